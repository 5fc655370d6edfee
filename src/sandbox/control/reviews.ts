// Control API: the review queue and human decisions. Decisions go through the same domain function
// the console uses, so a decision made here and one made in the console are indistinguishable.

import { Hono } from 'hono';
import { invalid, notFound } from '../../errors/errors.js';
import {
  type DecisionInput,
  type ScreeningRequest,
  SCREENING_STATES,
  isScreeningState,
} from '../../domain/screening/index.js';
import { toAuditEvent } from '../../domain/screening/ledger.js';
import type { AppEnv } from '../../web/env.js';
import { limits } from '../../domain/plans.js';
import { onlyKeys, readObject } from './admin.js';
import { ensureVisible, ownTenant, tenantFor } from './caller.js';
import { PAGE_PARAMS, pageOf, readPageQuery } from './paging.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const WINDOW_MS = limits.policy.reviewWindowHours * 3600_000;

function candidateLabel(r: ScreeningRequest): string {
  const c = r.submission.candidate;
  if (c.kind === 'structured') return c.fullName;
  return c.filename ? `${c.resumeRef} (${c.filename})` : c.resumeRef;
}

export function reviewSummary(r: ScreeningRequest) {
  return {
    requestId: r.id,
    tenantId: r.tenantId,
    state: r.state,
    createdAt: new Date(r.createdAt).toISOString(),
    queuedForReviewAt: iso(r.queuedForReviewAt),
    reviewExpiresAt:
      r.state === 'pending_review' && r.queuedForReviewAt !== null ? iso(r.queuedForReviewAt + WINDOW_MS) : null,
    jobTitle: r.submission.jobSpec.title,
    candidateLabel: candidateLabel(r),
    submission: { candidate: r.submission.candidate, jobSpec: r.submission.jobSpec },
    score: r.score,
  };
}

export function reviewDetail(r: ScreeningRequest) {
  return {
    requestId: r.id,
    tenantId: r.tenantId,
    state: r.state,
    idempotencyKey: r.idempotencyKey,
    jobTitle: r.submission.jobSpec.title,
    candidateLabel: candidateLabel(r),
    submission: { candidate: r.submission.candidate, jobSpec: r.submission.jobSpec },
    score: r.score,
    decision: r.decision,
    edits: r.edits,
    queuedForReviewAt: iso(r.queuedForReviewAt),
    reviewExpiresAt:
      r.state === 'pending_review' && r.queuedForReviewAt !== null ? iso(r.queuedForReviewAt + WINDOW_MS) : null,
    ledger: r.rows.map(toAuditEvent),
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

export function reviewsRoutes() {
  const r = new Hono<AppEnv>();

  // one page, oldest first by default (the order a review queue is worked in)
  r.get('/', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['state', 'tenantId', ...PAGE_PARAMS]);
    const { state } = query;
    if (state !== undefined && !isScreeningState(state))
      throw invalid(`state must be one of ${SCREENING_STATES.join(', ')}`, 'state');
    const tenantId = tenantFor(c, query.tenantId || undefined, false);
    const list = c.var.core.screening.requests.ordered(tenantId);
    const page = pageOf(list, readPageQuery(query), (q) => q.id, state ? (q) => q.state === state : undefined);
    return c.json({ reviews: page.items.map(reviewSummary), nextCursor: page.nextCursor });
  });

  // how many requests are in each state (the console's pending badge), without listing them
  r.get('/counts', (c) => {
    onlyKeys(c.req.query(), []);
    const { requests } = c.var.core.screening;
    const own = ownTenant(c);
    if (own === undefined)
      return c.json({ counts: Object.fromEntries(SCREENING_STATES.map((s) => [s, requests.countIn(s)])) });
    const counts: Record<string, number> = Object.fromEntries(SCREENING_STATES.map((s) => [s, 0]));
    for (const q of requests.ordered(own)) counts[q.state]++;
    return c.json({ counts });
  });

  r.get('/:requestId', (c) => {
    const absent = () => notFound(`no screening request ${c.req.param('requestId')}`);
    const req = c.var.core.screening.get(c.req.param('requestId'));
    if (!req) throw absent();
    ensureVisible(c, req.tenantId, absent);
    return c.json(reviewDetail(req));
  });

  r.post('/:requestId/decision', async (c) => {
    const body = await readObject(c);
    onlyKeys(body, ['decision', 'reviewerId', 'reviewerRole', 'note', 'editedScore', 'editedRationale']);
    if (typeof body.decision !== 'string')
      throw invalid('decision is required: approved, rejected or edited', 'decision');
    if (typeof body.reviewerId !== 'string') throw invalid('reviewerId is required (a string)', 'reviewerId');
    const found = c.var.core.screening.get(c.req.param('requestId'));
    ensureVisible(c, found?.tenantId, () => notFound(`no screening request ${c.req.param('requestId')}`));
    const req = c.var.core.screening.decide(c.req.param('requestId'), body as unknown as DecisionInput);
    return c.json({ requestId: req.id, state: req.state, decision: req.decision });
  });

  return r;
}
