// The screening state machine after intake:
//   received -> parsed -> scored -> pending_review -> (approved | rejected | edited) -> delivered
// with `failed` when the candidate cannot be parsed or the decision's delivery exhausts its retries,
// and `expired` when no reviewer decides within the review window. Every transition writes exactly
// one ledger row. A result reaches `delivered` only after a human decision.

import type { CoreContext } from '../context.js';
import { limits } from '../plans.js';
import type { Delivery, WebhookService } from '../../webhooks/index.js';
import type { Actor, Ledger, LedgerPayload } from './ledger.js';
import type { RequestStore } from './requests.js';
import { parseCandidate, type ResumeFixture } from './resumes.js';
import { scoreCandidate } from './scorer.js';
import type { ReviewDecisionV1, ReviewEdits, ScreeningRequest, ScreeningState } from './types.js';

/** Magic job title whose review window closes as soon as the request is queued for review. */
export const EXPIRE_TITLE = 'sandbox expire';

const DECIDED: readonly ScreeningState[] = ['approved', 'rejected', 'edited'];

export class Pipeline {
  constructor(
    private readonly ctx: CoreContext,
    private readonly ledger: Ledger,
    private readonly requests: RequestStore,
    private readonly webhooks: WebhookService,
    private readonly resumes: ReadonlyMap<string, ResumeFixture>,
  ) {
    webhooks.onOutcome((d) => this.onDeliveryOutcome(d));
  }

  /** Moves the request and writes its ledger row (unless a planted bug swallows it). */
  transition(req: ScreeningRequest, to: ScreeningState, actor: Actor, payload: LedgerPayload | null, writeRow = true): void {
    const from = req.state;
    req.state = to;
    if (writeRow) req.rows.push(this.ledger.append(req.tenantId, req.id, from, to, actor, payload, this.ctx.clock.now()));
  }

  intake(req: ScreeningRequest): void {
    req.rows.push(
      this.ledger.append(req.tenantId, req.id, null, 'received', 'system', { creditsCharged: limits.spec.creditsPerScreen, candidateKind: req.submission.candidate.kind }, req.createdAt),
    );
  }

  /** Runs the automatic steps, after the submit response has been computed. */
  schedule(req: ScreeningRequest): void {
    setImmediate(() => {
      // a sandbox reset in between drops the request
      if (this.requests.get(req.id) !== req) return;
      try {
        this.run(req);
      } catch (err) {
        console.error(`screening pipeline failed for ${req.id}`, err);
      }
    });
  }

  private run(req: ScreeningRequest): void {
    const parsed = parseCandidate(req.submission.candidate, this.resumes);
    if (!parsed.ok) {
      this.transition(req, 'failed', 'system', { reason: parsed.reason });
      return;
    }
    this.transition(req, 'parsed', 'system', { source: parsed.profile.source });

    const score = scoreCandidate(parsed.profile, req.submission.jobSpec);
    req.score = score;
    const summary = { score: score.score, confidence: score.confidence, modelId: score.modelId, promptVersion: score.promptVersion };
    this.transition(req, 'scored', 'system', summary, !this.ctx.faults.bug('skip_ledger_row'));
    if (this.webhookUrlOf(req)) this.webhooks.enqueue({ tenantId: req.tenantId, requestId: req.id, event: 'screening.scored', result: score });

    const now = this.ctx.clock.now();
    const expiresAt = now + limits.policy.reviewWindowHours * 3600_000;
    req.queuedForReviewAt = now;
    this.transition(req, 'pending_review', 'system', { expiresAt: this.ctx.clock.iso(expiresAt) });
    if (req.submission.jobSpec.title.trim().toLowerCase() === EXPIRE_TITLE) this.expire(req, 'magic job title');
    else req.cancelExpiry = this.ctx.clock.schedule(expiresAt, () => this.expire(req, 'review window elapsed'));
  }

  private expire(req: ScreeningRequest, why: string): void {
    if (req.state !== 'pending_review' || this.requests.get(req.id) !== req) return;
    req.cancelExpiry = null;
    this.transition(req, 'expired', 'system', { reason: why, reviewWindowHours: limits.policy.reviewWindowHours });
  }

  /** Records a human decision; the caller has checked the request is pending review. */
  decide(req: ScreeningRequest, decision: ReviewDecisionV1, edits: ReviewEdits | null): void {
    req.cancelExpiry?.();
    req.cancelExpiry = null;
    req.decision = decision;
    req.edits = edits;
    const payload: Record<string, string | number> = { decision: decision.decision, reviewerRole: decision.reviewerRole, latencyMs: decision.latencyMs };
    if (decision.note !== undefined) payload.note = decision.note;
    if (edits?.editedScore !== undefined) payload.editedScore = edits.editedScore;
    if (edits?.editedRationale !== undefined) payload.editedRationale = edits.editedRationale;
    this.transition(req, decision.decision, `reviewer:${decision.reviewerId}`, payload);
    if (this.webhookUrlOf(req)) {
      this.webhooks.enqueue({ tenantId: req.tenantId, requestId: req.id, event: 'screening.review_decided', result: decision });
    } else {
      this.transition(req, 'delivered', 'system', { webhook: 'none configured' });
    }
  }

  private onDeliveryOutcome(d: Delivery): void {
    if (d.event !== 'screening.review_decided') return;
    const req = this.requests.get(d.requestId);
    // only the first outcome counts: failed and delivered are final
    if (!req || !DECIDED.includes(req.state)) return;
    const last = d.attempts.at(-1);
    if (d.status === 'delivered') {
      this.transition(req, 'delivered', 'system', { deliveryId: d.id, attempt: last?.attempt ?? 0, statusCode: last?.statusCode ?? null });
    } else if (d.status === 'exhausted') {
      this.transition(req, 'failed', 'system', { reason: 'the review_decided delivery exhausted its retries', deliveryId: d.id, attempts: d.attempts.length });
    }
  }

  private webhookUrlOf(req: ScreeningRequest): string | null {
    try {
      return this.ctx.tenants.get(req.tenantId).webhookUrl;
    } catch {
      return null;
    }
  }
}
