// The screening state machine after intake:
//   received -> parsed -> scored -> pending_review -> (approved | rejected | edited) -> delivered
// with `failed` when the candidate cannot be parsed or the decision's delivery exhausts its retries,
// and `expired` when no reviewer decides within the review window. Every transition writes exactly
// one ledger row. A result reaches `delivered` only after a human decision.
// Requirements: SCR-STATE-1, SCR-STATE-2, SCR-REVIEW-1, SCR-LEDGER-1, SCR-HOOK-1, SCR-HOOK-2, POL-STATE-1,
// POL-STATE-2, POL-STATE-3, POL-HOOK-3, POL-HOOK-5; decisions D-02, D-03, D-119 (a connected listener is a destination).

import type { CoreContext } from '../context.js';
import { limits } from '../plans.js';
import type { Delivery, WebhookService } from '../webhooks/index.js';
import { flatten } from './flatten.js';
import { JobSpecTable, type StoredJobSpec } from './jobSpecs.js';
import type { Actor, Ledger, LedgerPayload } from './ledger.js';
import { RecentTable } from './recentTable.js';
import { encodeCandidate, StoredRequest } from './record.js';
import type { RequestStore } from './requests.js';
import { parseCandidate, type ResumeFixture } from './resumes.js';
import { scoreTemplate, subjectOf, withSubject } from './scorer.js';
import type { ReviewDecisionV1, ReviewEdits, ScoreResultV1, ScreeningState, Submission } from './types.js';

/** Magic job title whose review window closes as soon as the request is queued for review. */
export const EXPIRE_TITLE = 'sandbox expire';

const DECIDED: readonly ScreeningState[] = ['approved', 'rejected', 'edited'];

const sameResult = (a: ScoreResultV1, b: ScoreResultV1) =>
  a.score === b.score &&
  a.rationale === b.rationale &&
  a.confidence === b.confidence &&
  a.modelId === b.modelId &&
  a.promptVersion === b.promptVersion &&
  a.dimensions.length === b.dimensions.length &&
  a.dimensions.every(
    (d, i) =>
      d.name === b.dimensions[i].name && d.score === b.dimensions[i].score && d.evidence === b.dimensions[i].evidence,
  );

export class Pipeline {
  private readonly jobSpecs = new JobSpecTable();
  // identical scores (the same candidate data against the same spec) share one stored text
  private readonly scores = new RecentTable<string>();

  constructor(
    private readonly ctx: CoreContext,
    private readonly ledger: Ledger,
    private readonly requests: RequestStore,
    private readonly webhooks: WebhookService,
    private readonly resumes: ReadonlyMap<string, ResumeFixture>,
  ) {
    webhooks.onOutcome((d) => this.onDeliveryOutcome(d));
  }

  /** Forgets the shared job specs (requests still hold theirs). */
  reset(): void {
    this.jobSpecs.reset();
    this.scores.reset();
    this.lastTemplate = null;
  }

  /**
   * Takes a new request in: stores it in state `received` with its intake row, and schedules the
   * automatic steps to run after the submit response has been computed.
   */
  admit(id: string, tenantId: string, submission: Submission, now: number): StoredRequest {
    const job = this.jobSpecs.intern(submission.jobSpec);
    const req = new StoredRequest(
      flatten(id),
      submission.idempotencyKey,
      now,
      this.ledger.rowsFor(tenantId),
      encodeCandidate(submission.candidate),
      job,
    );
    this.requests.insert(req);
    const payload = { creditsCharged: limits.spec.creditsPerScreen, candidateKind: submission.candidate.kind };
    this.ledger.appendTo(req.store, req, req.id, null, 'received', 'system', payload, now);
    this.ctx.clock.defer(this.runLater, req, submission);
    return req;
  }

  /** Moves the request and writes its ledger row (unless a planted bug swallows it). */
  transition(
    req: StoredRequest,
    to: ScreeningState,
    actor: Actor,
    payload: LedgerPayload | null,
    writeRow = true,
  ): void {
    const from = req.state;
    req.state = to;
    this.requests.moved(from, to);
    // a tenant's rows are stamped on its own clock (D-120)
    if (writeRow)
      this.ledger.appendTo(req.store, req, req.id, from, to, actor, payload, this.ctx.clock.of(req.tenantId).now());
  }

  // screenings come in runs of similar candidates: the last template is recognised without serialising it
  private lastTemplate: { template: ScoreResultV1; text: string } | null = null;

  /** The shared JSON text of a result template. */
  private templateText(template: ScoreResultV1): string {
    const last = this.lastTemplate;
    if (last && sameResult(last.template, template)) return last.text;
    const text = this.scores.get(JSON.stringify(template), flatten);
    this.lastTemplate = { template, text };
    return text;
  }

  // one function for every request's automatic steps: no closure per submit
  private readonly runLater = (req: StoredRequest, submission: Submission) => {
    // a sandbox reset in between drops the request
    if (this.requests.get(req.id) !== req) return;
    try {
      this.run(req, submission);
    } catch (err) {
      console.error(`screening pipeline failed for ${req.id}`, err);
    }
  };

  private run(req: StoredRequest, submission: Submission): void {
    const parsed = parseCandidate(submission.candidate, this.resumes);
    if (!parsed.ok) {
      this.transition(req, 'failed', 'system', { reason: parsed.reason });
      return;
    }
    this.transition(req, 'parsed', 'system', { source: parsed.profile.source });

    // scored once, here, and kept: every later read gets the kept result. Candidates with the same data
    // against the same spec share one template; only the name in the rationale is their own.
    const template = scoreTemplate(parsed.profile, submission.jobSpec, req.job.compiled(submission.jobSpec));
    const score = withSubject(template, subjectOf(parsed.profile.name));
    // a structured candidate's name is kept with the candidate already; a resume's is the fixture's own
    req.keepScore(this.templateText(template), submission.candidate.kind === 'structured' ? null : parsed.profile.name);
    const summary = {
      score: score.score,
      confidence: score.confidence,
      modelId: score.modelId,
      promptVersion: score.promptVersion,
    };
    this.transition(req, 'scored', 'system', summary, this.ctx.faults.planted.writesScoredRow());
    if (this.webhooks.hasDestination(req.tenantId))
      this.webhooks.enqueue({ tenantId: req.tenantId, requestId: req.id, event: 'screening.scored', result: score });

    const clock = this.ctx.clock.of(req.tenantId);
    const now = clock.now();
    const expiresAt = now + limits.policy.reviewWindowHours * 3600_000;
    req.queuedForReviewAt = now;
    this.transition(req, 'pending_review', 'system', { expiresAt: clock.iso(expiresAt) });
    if (submission.jobSpec.title.trim().toLowerCase() === EXPIRE_TITLE) this.expire(req, 'magic job title');
    else {
      req.expiry = clock.scheduleCall(expiresAt, this.windowElapsed, req, 'review expiry');
      this.onQueued?.(req);
    }
  }

  /** The shared stored form of a job spec from its JSON text (a snapshot's request, D-136). */
  jobOf(json: string): StoredJobSpec {
    return this.jobSpecs.intern(JSON.parse(json) as Submission['jobSpec']);
  }

  /** Re-arms a restored request's review expiry at the time it was due (D-136). */
  rearmExpiry(req: StoredRequest, at: number): void {
    req.expiry = this.ctx.clock.of(req.tenantId).scheduleCall(at, this.windowElapsed, req, 'review expiry');
  }

  /** Told of each request entering pending review (the automatic reviewer, D-134). */
  onQueued: ((req: StoredRequest) => void) | null = null;

  // one function for every request's expiry timer: a sandbox may hold hundreds of thousands of them
  private readonly windowElapsed = (req: StoredRequest) => this.expire(req, 'review window elapsed');

  /** Stops the request's expiry timer, if it has one. */
  cancelExpiry(req: StoredRequest): void {
    if (req.expiry) this.ctx.clock.cancel(req.expiry);
    req.expiry = null;
  }

  private expire(req: StoredRequest, why: string): void {
    if (req.state !== 'pending_review' || this.requests.get(req.id) !== req) return;
    req.expiry = null;
    this.transition(req, 'expired', 'system', { reason: why, reviewWindowHours: limits.policy.reviewWindowHours });
  }

  /** Records a human decision; the caller has checked the request is pending review. */
  decide(req: StoredRequest, decision: ReviewDecisionV1, edits: ReviewEdits | null): void {
    this.cancelExpiry(req);
    req.decision = decision;
    req.edits = edits;
    const payload: Record<string, string | number> = {
      decision: decision.decision,
      reviewerRole: decision.reviewerRole,
      latencyMs: decision.latencyMs,
    };
    if (decision.note !== undefined) payload.note = decision.note;
    if (edits?.editedScore !== undefined) payload.editedScore = edits.editedScore;
    if (edits?.editedRationale !== undefined) payload.editedRationale = edits.editedRationale;
    this.transition(req, decision.decision, `reviewer:${decision.reviewerId}`, payload);
    if (this.webhooks.hasDestination(req.tenantId)) {
      this.webhooks.enqueue({
        tenantId: req.tenantId,
        requestId: req.id,
        event: 'screening.review_decided',
        result: decision,
      });
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
      this.transition(req, 'delivered', 'system', {
        deliveryId: d.id,
        attempt: last?.attempt ?? 0,
        statusCode: last?.statusCode ?? null,
      });
    } else if (d.status === 'exhausted') {
      this.transition(req, 'failed', 'system', {
        reason: 'the review_decided delivery exhausted its retries',
        deliveryId: d.id,
        attempts: d.attempts.length,
      });
    }
  }
}
