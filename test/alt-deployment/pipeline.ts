// The asynchronous screening pipeline: a slow scorer, a timed reviewer and the deliveries after each step.
import { createHash } from 'node:crypto';
import type { Deliverer } from './webhooks.js';
import type { ScreeningRequest, ScreeningStore, State } from './ledger.js';
import type { Tenant } from './tenants.js';
import type { Timers } from './timers.js';
import type { Switches } from './violations.js';

const REVIEWERS = [
  { id: 'rv-ana', role: 'recruiter' },
  { id: 'rv-budi', role: 'hiring-manager' },
  { id: 'rv-citra', role: 'recruiter' },
];
const DECISIONS = ['approved', 'rejected', 'edited'] as const;

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Scores on a 0..5 scale with a 0..100 confidence: must-haves found in the candidate, plus experience. */
export function scoreOf(r: ScreeningRequest, v: Switches): Record<string, unknown> {
  const c = r.candidate;
  const text = (
    c.kind === 'structured' ? [c.fullName, c.summary ?? '', ...(c.skills ?? [])] : [c.resumeRef, c.filename ?? '']
  )
    .join(' ')
    .toLowerCase();
  const must = r.jobSpec.mustHaves;
  const hits = must.filter((m) => m.trim() !== '' && text.includes(m.toLowerCase()));
  const mustScore = must.length ? (5 * hits.length) / must.length : 2.5;
  const years = c.kind === 'structured' ? Math.max(0, Math.min(c.experienceYears ?? 0, 10)) : 3;
  const expScore = years / 2;
  const score = Math.round(((mustScore + expScore) / 2) * 10) / 10;
  const result: Record<string, unknown> = {
    schemaVersion: v.on('schema-version-2') ? 2 : 1,
    score,
    dimensions: [
      {
        name: 'must_haves',
        score: Math.round(mustScore * 10) / 10,
        evidence: `${hits.length} of ${must.length} must-haves found`,
      },
      {
        name: 'experience',
        score: expScore,
        evidence: c.kind === 'structured' ? `${years} years stated` : 'from the referenced resume',
      },
    ],
    rationale: `Scored ${score} of 5 for "${r.jobSpec.title}" on must-have coverage and experience.`,
    confidence: c.kind === 'structured' ? 72 : 48,
    modelId: 'alt-scorer-2',
    promptVersion: '2026-11-a',
  };
  if (v.on('score-no-rationale')) delete result.rationale;
  if (v.on('resume-ref-no-dimensions') && c.kind === 'resume_ref') result.dimensions = [];
  return result;
}

export class Pipeline {
  constructor(
    private readonly store: ScreeningStore,
    private readonly timers: Timers,
    private readonly deliverer: Deliverer,
    private readonly tenantOf: (id: string) => Tenant,
    private readonly v: Switches,
    private readonly delays: { scoringMs: number; reviewMs: number },
    private readonly tenantIds: readonly string[] = [],
  ) {}

  /** Requests whose review_decided went out before the decision (decided-hook-early, a planted violation). */
  private readonly sentEarly = new Set<string>();

  start(r: ScreeningRequest): void {
    this.timers.after(this.delays.scoringMs, () => this.score(r));
  }

  private post(
    r: ScreeningRequest,
    event: 'screening.scored' | 'screening.review_decided',
    result: unknown,
  ): Promise<boolean> | undefined {
    const t = this.tenantOf(r.tenantId);
    if (!t.webhookUrl) return undefined;
    const tenantId = this.v.on('hook-foreign-tenant')
      ? (this.tenantIds.find((id) => id !== r.tenantId) ?? r.tenantId)
      : r.tenantId;
    const body: Record<string, unknown> = { requestId: r.id, tenantId, event, result };
    if (this.v.on('hook-no-tenant')) delete body.tenantId;
    return this.deliverer.send({ url: t.webhookUrl, secret: t.webhookSecret, event, body });
  }

  private score(r: ScreeningRequest): void {
    const result = scoreOf(r, this.v);
    this.store.move(
      r,
      'scored',
      this.v.on('actor-model') ? 'model:scorer' : 'system',
      { score: result.score },
      this.v.on('ledger-skip-scored'),
    );
    if (!this.v.on('no-scored-hook')) void this.post(r, 'screening.scored', result);
    if (this.v.on('review-skipped')) {
      const decision = {
        schemaVersion: 1,
        decision: 'approved',
        reviewerId: 'auto',
        reviewerRole: 'model',
        latencyMs: 0,
        note: 'auto-approved',
      };
      return this.deliver(r, decision);
    }
    this.store.move(r, 'pending_review', 'system');
    r.pendingSince = Date.now();
    if (this.v.on('decided-hook-early')) {
      this.sentEarly.add(r.id);
      void this.post(r, 'screening.review_decided', this.decisionOf(r).result);
    }
    if (Number.isFinite(this.delays.reviewMs)) this.timers.after(this.delays.reviewMs, () => this.decide(r)); // else a reviewer that never decides
  }

  /** The reviewer and decision for a request (a hash of its key and job title), and the ReviewDecisionV1. */
  private decisionOf(r: ScreeningRequest) {
    const h = digest(`${r.idempotencyKey}|${r.jobSpec.title}`);
    const decision = DECISIONS[h[0] % 3];
    const reviewer = REVIEWERS[h[1] % REVIEWERS.length];
    const latency = Date.now() - (r.pendingSince ?? Date.now());
    const result = {
      schemaVersion: this.v.on('schema-version-2') ? 2 : 1,
      decision,
      reviewerId: reviewer.id,
      reviewerRole: reviewer.role,
      latencyMs: this.v.on('decision-latency-text') ? `${latency} ms` : latency,
      note: decision === 'edited' ? 'Score adjusted after reading the portfolio.' : `Reviewed and ${decision}.`,
    };
    return { decision, reviewer, result };
  }

  private decide(r: ScreeningRequest): void {
    const { decision, reviewer, result } = this.decisionOf(r);
    if (this.v.on('review-to-delivered')) {
      this.store.move(r, 'delivered', `reviewer:${reviewer.id}`, { decision, reviewerRole: reviewer.role });
      void this.post(r, 'screening.review_decided', result);
      return;
    }
    this.store.move(r, decision, `reviewer:${reviewer.id}`, { decision, reviewerRole: reviewer.role });
    if (this.sentEarly.has(r.id))
      return this.store.move(r, 'delivered', 'system', { event: 'screening.review_decided' });
    if (this.v.on('no-decided-hook')) return;
    this.deliver(r, result);
  }

  /** Sends review_decided; the request moves to delivered once acknowledged, to failed when retries run out. */
  private deliver(r: ScreeningRequest, result: unknown): void {
    const sent = this.post(r, 'screening.review_decided', result);
    if (!sent) return;
    void sent.then((ok) => {
      if (this.timers.stopped) return;
      const to: State = ok ? 'delivered' : 'failed';
      this.store.move(r, to, 'system', { event: 'screening.review_decided' });
    });
  }
}
