// The screening pipeline through real HTTP: every transition one ledger row with the right actor,
// a human decision before delivery, failure on unparseable candidates, and expiry on the clock.

import { describe, expect, it } from 'vitest';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, adminOf, clockAdvance, settled, submitBody } from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;

async function submitted(apiKey: string, body = submitBody()): Promise<string> {
  const res = await client(base(), apiKey)('POST', `${SCREENING}/screen`, body);
  expect(res.status, res.text).toBe(201);
  return res.json.requestId;
}

const path = (detail: any) => detail.ledger.map((e: any) => `${e.fromState ?? '-'}>${e.toState}@${e.actor}`);

describe('screening pipeline', () => {
  it('runs received -> parsed -> scored -> pending_review, waits for a human, then delivers', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const requestId = await submitted(t.apiKey);
    const queued = await settled(base(), requestId);
    expect(queued.state).toBe('pending_review');
    expect(queued.decision).toBeNull();
    expect(queued.score).toMatchObject({ schemaVersion: 1, modelId: 'sandbox-scorer-1', promptVersion: '2026-11-01' });
    expect(queued.score.dimensions.map((d: any) => d.name)).toEqual(['must_haves', 'nice_to_haves', 'experience']);
    expect(sb.get().core.contracts.validate('ScoreResultV1', queued.score)).toEqual([]);

    // nothing moves on by itself short of the review window
    await clockAdvance(base(), 3600);
    expect((await adminOf(base())('GET', `/sandbox/v1/reviews/${requestId}`)).json.state).toBe('pending_review');

    const admin = adminOf(base());
    const decided = await admin('POST', `/sandbox/v1/reviews/${requestId}/decision`, {
      decision: 'approved',
      reviewerId: 'rev_ayu',
      note: 'Strong match',
    });
    expect(decided.status).toBe(200);
    // no webhook URL: delivered at once
    expect(decided.json).toMatchObject({
      requestId,
      state: 'delivered',
      decision: {
        schemaVersion: 1,
        decision: 'approved',
        reviewerId: 'rev_ayu',
        reviewerRole: 'recruiter',
        note: 'Strong match',
      },
    });
    expect(decided.json.decision.latencyMs).toBeGreaterThanOrEqual(3600_000);
    expect(sb.get().core.contracts.validate('ReviewDecisionV1', decided.json.decision)).toEqual([]);

    const detail = (await admin('GET', `/sandbox/v1/reviews/${requestId}`)).json;
    expect(path(detail)).toEqual([
      '->received@system',
      'received>parsed@system',
      'parsed>scored@system',
      'scored>pending_review@system',
      'pending_review>approved@reviewer:rev_ayu',
      'approved>delivered@system',
    ]);
    // the tenant's own export holds the same rows
    const audit = (await client(base(), t.apiKey)('GET', `${SCREENING}/audit`)).json.events;
    expect(audit.map((e: any) => e.id)).toEqual(detail.ledger.map((e: any) => e.id));
    expect(audit.find((e: any) => e.toState === 'scored').payload).toMatchObject({ score: queued.score.score });
    // a replay now reports the current state
    const replay = await client(base(), t.apiKey)('POST', `${SCREENING}/screen`, {
      ...submitBody(),
      idempotencyKey: detail.idempotencyKey,
    });
    expect(replay.json).toEqual({ requestId, state: 'delivered' });
  });

  it('records edited decisions with the reviewer edits in the ledger', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const requestId = await submitted(t.apiKey);
    await settled(base(), requestId);
    const admin = adminOf(base());
    const res = await admin('POST', `/sandbox/v1/reviews/${requestId}/decision`, {
      decision: 'edited',
      reviewerId: 'rev_budi',
      reviewerRole: 'hiring-manager',
      editedScore: 55,
      editedRationale: 'Less Kubernetes depth than the summary implies.',
    });
    expect(res.status).toBe(200);
    expect(res.json.decision).toMatchObject({ decision: 'edited', reviewerRole: 'hiring-manager' });
    const detail = (await admin('GET', `/sandbox/v1/reviews/${requestId}`)).json;
    const row = detail.ledger.find((e: any) => e.toState === 'edited');
    expect(row).toMatchObject({
      actor: 'reviewer:rev_budi',
      payload: { editedScore: 55, editedRationale: expect.stringContaining('Kubernetes') },
    });
    expect(detail.edits).toEqual({
      editedScore: 55,
      editedRationale: 'Less Kubernetes depth than the summary implies.',
    });
  });

  it('refuses bad decisions: unknown request 404, wrong state and bad fields 400 naming them', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const requestId = await submitted(t.apiKey);
    await settled(base(), requestId);
    const admin = adminOf(base());
    const unknown = await admin('POST', '/sandbox/v1/reviews/scr_nope/decision', {
      decision: 'approved',
      reviewerId: 'r',
    });
    expect(unknown.status).toBe(404);
    for (const [body, field] of [
      [{ decision: 'maybe', reviewerId: 'r' }, 'decision'],
      [{ decision: 'approved' }, 'reviewerId'],
      [{ decision: 'approved', reviewerId: ' ' }, 'reviewerId'],
      [{ decision: 'edited', reviewerId: 'r' }, 'editedScore'],
      [{ decision: 'edited', reviewerId: 'r', editedScore: 101 }, 'editedScore'],
      [{ decision: 'approved', reviewerId: 'r', editedScore: 50 }, 'editedScore'],
      [{ decision: 'approved', reviewerId: 'r', mood: 'good' }, 'mood'],
    ] as const) {
      const res = await admin('POST', `/sandbox/v1/reviews/${requestId}/decision`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.message).toContain(field);
    }
    expect((await admin('GET', `/sandbox/v1/reviews/${requestId}`)).json.ledger).toHaveLength(4);
    await admin('POST', `/sandbox/v1/reviews/${requestId}/decision`, { decision: 'rejected', reviewerId: 'r' });
    const twice = await admin('POST', `/sandbox/v1/reviews/${requestId}/decision`, {
      decision: 'approved',
      reviewerId: 'r',
    });
    expect(twice.status).toBe(400);
    expect(twice.json.error.message).toMatch(/state 'delivered'/);
  });

  it('fails a candidate named Sandbox Fail and an unknown resumeRef, with one row each', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const magic = await submitted(
      t.apiKey,
      submitBody({ candidate: { kind: 'structured', fullName: 'Sandbox Fail' } }),
    );
    const missing = await submitted(
      t.apiKey,
      submitBody({ candidate: { kind: 'resume_ref', resumeRef: 'res_does_not_exist' } }),
    );
    for (const id of [magic, missing]) {
      const d = await settled(base(), id);
      expect(d.state).toBe('failed');
      expect(d.score).toBeNull();
      expect(path(d)).toEqual(['->received@system', 'received>failed@system']);
      expect(d.ledger[1].payload.reason).toMatch(/parsed|found/);
    }
  });

  it('scores a resume_ref candidate from its fixture', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const id = await submitted(
      t.apiKey,
      submitBody({
        candidate: { kind: 'resume_ref', resumeRef: 'res_demo_backend', filename: 'dewi.pdf' },
        jobSpec: { title: 'Senior Backend Engineer', mustHaves: ['Go', 'PostgreSQL'] },
      }),
    );
    const d = await settled(base(), id);
    expect(d.state).toBe('pending_review');
    expect(d.score.dimensions[0]).toMatchObject({
      name: 'must_haves',
      score: 100,
      evidence: expect.stringContaining("'PostgreSQL'"),
    });
    const list = (await adminOf(base())('GET', `/sandbox/v1/reviews?tenantId=${t.tenantId}&state=pending_review`)).json
      .reviews;
    expect(list.find((r: any) => r.requestId === id)).toMatchObject({
      candidateLabel: 'res_demo_backend (dewi.pdf)',
      jobTitle: 'Senior Backend Engineer',
    });
  });

  it('expires a request left in pending_review for 72 hours of sandbox clock', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const id = await submitted(t.apiKey);
    await settled(base(), id);
    await clockAdvance(base(), 71 * 3600);
    expect((await adminOf(base())('GET', `/sandbox/v1/reviews/${id}`)).json.state).toBe('pending_review');
    await clockAdvance(base(), 3600);
    const d = (await adminOf(base())('GET', `/sandbox/v1/reviews/${id}`)).json;
    expect(d.state).toBe('expired');
    expect(path(d).at(-1)).toBe('pending_review>expired@system');
    const late = await adminOf(base())('POST', `/sandbox/v1/reviews/${id}/decision`, {
      decision: 'approved',
      reviewerId: 'r',
    });
    expect(late.status).toBe(400);
    expect(late.json.error.message).toMatch(/expired/);
  });

  it('expires at once after scoring when the job title is Sandbox Expire', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const id = await submitted(t.apiKey, submitBody({ jobSpec: { title: 'Sandbox Expire', mustHaves: [] } }));
    const d = await settled(base(), id);
    expect(d.state).toBe('expired');
    expect(path(d).slice(-2)).toEqual(['scored>pending_review@system', 'pending_review>expired@system']);
  });

  it('filters the review list by state and tenant and refuses an unknown state', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const id = await submitted(t.apiKey);
    await settled(base(), id);
    const admin = adminOf(base());
    const mine = (await admin('GET', `/sandbox/v1/reviews?tenantId=${t.tenantId}`)).json.reviews;
    expect(mine.map((r: any) => r.requestId)).toEqual([id]);
    expect((await admin('GET', `/sandbox/v1/reviews?tenantId=${t.tenantId}&state=delivered`)).json.reviews).toEqual([]);
    const bad = await admin('GET', '/sandbox/v1/reviews?state=done');
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('state');
    expect((await admin('GET', '/sandbox/v1/reviews/scr_nope')).status).toBe(404);
  });

  // last: a reset empties every store this file's other tests used
  it('empties requests, ledger and deliveries on sandbox reset', async () => {
    const t = await createTenant(base(), { planTier: 'pro', webhookUrl: 'http://127.0.0.1:9/unreachable' });
    const id = await submitted(t.apiKey);
    await settled(base(), id);
    const core = sb.get().core;
    expect(core.webhooks.list({ requestId: id })).toHaveLength(1);
    expect((await adminOf(base())('POST', '/sandbox/v1/reset')).status).toBe(200);
    expect(core.screening.list()).toEqual([]);
    expect(core.screening.ledger.size).toBe(0);
    expect(core.webhooks.list()).toEqual([]);
    expect((await adminOf(base())('GET', `/sandbox/v1/reviews/${id}`)).status).toBe(404);
    const fresh = await createTenant(base(), { planTier: 'pro' });
    expect((await client(base(), fresh.apiKey)('GET', `${SCREENING}/audit`)).json).toEqual({
      events: [],
      nextCursor: null,
    });
  });
});
