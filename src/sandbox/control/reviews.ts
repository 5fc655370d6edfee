// Control API: the review queue and human decisions. Decisions go through the same domain function
// the console uses, so a decision made here and one made in the console are indistinguishable.

import { Hono } from 'hono';
import { invalid, notFound } from '../../errors/errors.js';
import { type DecisionInput, type ScreeningRequest, SCREENING_STATES, isScreeningState } from '../../domain/screening/index.js';
import { toAuditEvent } from '../../domain/screening/ledger.js';
import type { AppEnv } from '../../web/env.js';
import { onlyKeys, readObject } from './admin.js';

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
    jobTitle: r.submission.jobSpec.title,
    candidateLabel: candidateLabel(r),
    score: r.score,
  };
}

export function reviewDetail(r: ScreeningRequest) {
  return {
    requestId: r.id,
    tenantId: r.tenantId,
    state: r.state,
    idempotencyKey: r.idempotencyKey,
    submission: { candidate: r.submission.candidate, jobSpec: r.submission.jobSpec },
    score: r.score,
    decision: r.decision,
    edits: r.edits,
    ledger: r.rows.map(toAuditEvent),
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

export function reviewsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['state', 'tenantId']);
    const { state, tenantId } = query;
    if (state !== undefined && !isScreeningState(state)) throw invalid(`state must be one of ${SCREENING_STATES.join(', ')}`, 'state');
    const reviews = c.var.core.screening.list({ state, tenantId: tenantId || undefined }).map(reviewSummary);
    return c.json({ reviews });
  });

  r.get('/:requestId', (c) => {
    const req = c.var.core.screening.get(c.req.param('requestId'));
    if (!req) throw notFound(`no screening request ${c.req.param('requestId')}`);
    return c.json(reviewDetail(req));
  });

  r.post('/:requestId/decision', async (c) => {
    const body = await readObject(c);
    onlyKeys(body, ['decision', 'reviewerId', 'reviewerRole', 'note', 'editedScore', 'editedRationale']);
    if (typeof body.decision !== 'string') throw invalid('decision is required: approved, rejected or edited', 'decision');
    if (typeof body.reviewerId !== 'string') throw invalid('reviewerId is required (a string)', 'reviewerId');
    const req = c.var.core.screening.decide(c.req.param('requestId'), body as unknown as DecisionInput);
    return c.json({ requestId: req.id, state: req.state, decision: req.decision });
  });

  return r;
}
