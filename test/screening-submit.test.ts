// Submit: idempotency (also under concurrency), credits, 402 with upsell, and refusal of bad input
// without any charge or ledger row.

import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, adminOf, expectConforms, submitBody } from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;
const conforms = (op: string, res: { status: number; json: unknown; headers: Headers }) =>
  expectConforms(sb.get().core, op, res);

async function creditsOf(apiKey: string): Promise<number> {
  const res = await client(base(), apiKey)('GET', `${SCREENING}/usage`);
  expect(res.status).toBe(200);
  return res.json.creditsRemaining;
}

async function auditRows(apiKey: string): Promise<any[]> {
  const res = await client(base(), apiKey)('GET', `${SCREENING}/audit?limit=500`);
  expect(res.status).toBe(200);
  return res.json.events;
}

describe('POST /screen', () => {
  it('accepts a new key with 201 and state received, charging one credit', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const api = client(base(), t.apiKey);
    const res = await api('POST', `${SCREENING}/screen`, submitBody());
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ requestId: expect.stringMatching(/^scr_./), state: 'received' });
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    conforms('submitScreen', res);
    expect(await creditsOf(t.apiKey)).toBe(99);
  });

  it('answers 50 concurrent submits of one key with one 201, 49 replays, one request and one credit', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const api = client(base(), t.apiKey);
    const body = submitBody({ idempotencyKey: 'same-key-for-all' });
    const results = await Promise.all(Array.from({ length: 50 }, () => api('POST', `${SCREENING}/screen`, body)));
    const created = results.filter((r) => r.status === 201);
    const replayed = results.filter((r) => r.status === 200);
    expect(created).toHaveLength(1);
    expect(replayed).toHaveLength(49);
    expect(new Set(results.map((r) => r.json.requestId)).size).toBe(1);
    for (const r of replayed) expect(r.headers.get('idempotent-replayed')).toBe('true');
    conforms('submitScreen', replayed[0]);
    expect(await creditsOf(t.apiKey)).toBe(499);
    const intake = (await auditRows(t.apiKey)).filter((e) => e.fromState === null);
    expect(intake).toHaveLength(1);
    const listed = await adminOf(base())('GET', `/sandbox/v1/reviews?tenantId=${t.tenantId}`);
    expect(listed.json.reviews).toHaveLength(1);
  });

  it('returns the existing request with its current state when a replay carries a different body', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const api = client(base(), t.apiKey);
    const first = await api('POST', `${SCREENING}/screen`, submitBody({ idempotencyKey: 'k-diff' }));
    await new Promise((r) => setTimeout(r, 50));
    const other = submitBody({
      idempotencyKey: 'k-diff',
      jobSpec: { title: 'Completely different role', mustHaves: ['Rust'] },
    });
    const again = await api('POST', `${SCREENING}/screen`, other);
    expect(again.status).toBe(200);
    expect(again.json.requestId).toBe(first.json.requestId);
    expect(again.json.state).toBe('pending_review');
    const detail = await adminOf(base())('GET', `/sandbox/v1/reviews/${first.json.requestId}`);
    expect(detail.json.submission.jobSpec.title).toBe('Senior Backend Engineer');
    expect(await creditsOf(t.apiKey)).toBe(99);
  });

  it('keeps idempotency keys per tenant: two tenants may use the same key', async () => {
    const a = await createTenant(base(), { planTier: 'starter' });
    const b = await createTenant(base(), { planTier: 'starter' });
    const body = submitBody({ idempotencyKey: 'shared-key' });
    const ra = await client(base(), a.apiKey)('POST', `${SCREENING}/screen`, body);
    const rb = await client(base(), b.apiKey)('POST', `${SCREENING}/screen`, body);
    expect([ra.status, rb.status]).toEqual([201, 201]);
    expect(ra.json.requestId).not.toBe(rb.json.requestId);
  });

  it('accepts an empty mustHaves list', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const res = await client(base(), t.apiKey)(
      'POST',
      `${SCREENING}/screen`,
      submitBody({ jobSpec: { title: 'Data Annotator', mustHaves: [] } }),
    );
    expect(res.status).toBe(201);
  });

  it('answers 402 with an upsell and the free cap after the free tier has used its 10 screens', async () => {
    const t = await createTenant(base(), { planTier: 'free' });
    const api = client(base(), t.apiKey);
    for (let i = 0; i < 10; i++) expect((await api('POST', `${SCREENING}/screen`, submitBody())).status).toBe(201);
    const usage = await api('GET', `${SCREENING}/usage`);
    expect(usage.json).toMatchObject({
      creditsRemaining: 0,
      freeScreenCap: 10,
      nearLimit: true,
      usagePercent: 1,
      resetAt: null,
    });
    const before = (await auditRows(t.apiKey)).length;
    const res = await api('POST', `${SCREENING}/screen`, submitBody());
    expect(res.status).toBe(402);
    expect(res.json.error.code).toBe('payment_required');
    expect(res.json.error.message).toMatch(/10/);
    expect(res.json.error.upsell).toEqual({ upgradeUrl: `${sb.get().baseUrl}/app/billing`, freeScreenCap: 10 });
    conforms('submitScreen', res);
    expect((await auditRows(t.apiKey)).length).toBe(before);
    // a replay of an accepted key still answers, without a charge
    const listed = await adminOf(base())('GET', `/sandbox/v1/reviews?tenantId=${t.tenantId}`);
    const firstKey = (await adminOf(base())('GET', `/sandbox/v1/reviews/${listed.json.reviews[0].requestId}`)).json
      .idempotencyKey;
    const replay = await api('POST', `${SCREENING}/screen`, submitBody({ idempotencyKey: firstKey }));
    expect(replay.status).toBe(200);
  });

  it('answers 402 without freeScreenCap when a paid wallet is exhausted', async () => {
    const t = await createTenant(base(), { planTier: 'scale' });
    await adminOf(base())('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { screeningCredits: 1 });
    const api = client(base(), t.apiKey);
    expect((await api('POST', `${SCREENING}/screen`, submitBody())).status).toBe(201);
    const res = await api('POST', `${SCREENING}/screen`, submitBody());
    expect(res.status).toBe(402);
    expect(res.json.error.upsell.upgradeUrl).toBe(`${sb.get().baseUrl}/app/billing`);
    expect(res.json.error.upsell).not.toHaveProperty('freeScreenCap');
    expect(res.json.error.message).toMatch(/2000/);
    conforms('submitScreen', res);
    expect(await creditsOf(t.apiKey)).toBe(0);
  });
});

describe('bad input: 4xx envelope, nothing charged, no ledger row', () => {
  const good = () => submitBody();
  const bodies: Array<[string, unknown, RegExp]> = [
    ['missing idempotencyKey', { candidate: good().candidate, jobSpec: good().jobSpec }, /idempotencyKey/],
    ['empty idempotencyKey', { ...good(), idempotencyKey: '' }, /idempotencyKey/],
    ['unknown top-level field', { ...good(), priority: 'high' }, /priority/],
    ['unknown candidate field', { ...good(), candidate: { kind: 'structured', fullName: 'A', age: 30 } }, /age/],
    ['unknown jobSpec field', { ...good(), jobSpec: { title: 'X', mustHaves: [], salary: 1 } }, /salary/],
    ['unknown candidate kind', { ...good(), candidate: { kind: 'linkedin', url: 'x' } }, /kind/],
    ['missing fullName', { ...good(), candidate: { kind: 'structured' } }, /fullName/],
    ['skills not an array', { ...good(), candidate: { kind: 'structured', fullName: 'A', skills: 'Go' } }, /skills/],
    [
      'skill not a string',
      { ...good(), candidate: { kind: 'structured', fullName: 'A', skills: ['Go', 3] } },
      /skills/,
    ],
    [
      'experienceYears a string',
      { ...good(), candidate: { kind: 'structured', fullName: 'A', experienceYears: '5' } },
      /experienceYears/,
    ],
    [
      'negative experienceYears',
      { ...good(), candidate: { kind: 'structured', fullName: 'A', experienceYears: -1 } },
      /experienceYears/,
    ],
    ['mustHaves missing', { ...good(), jobSpec: { title: 'X' } }, /mustHaves/],
    ['title a number', { ...good(), jobSpec: { title: 7, mustHaves: [] } }, /title/],
    [
      'too many mustHaves',
      { ...good(), jobSpec: { title: 'X', mustHaves: Array.from({ length: 201 }, (_, i) => `s${i}`) } },
      /mustHaves/,
    ],
    ['string too long', { ...good(), jobSpec: { title: 'x'.repeat(10_001), mustHaves: [] } }, /title/],
    ['body is an array', [good()], /body|object/],
    ['body is a string', 'just text', /body|object|JSON/],
  ];

  it.each(bodies)('%s -> 400 naming the field', async (_name, body, field) => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const api = client(base(), t.apiKey);
    const res = await api('POST', `${SCREENING}/screen`, typeof body === 'string' ? JSON.stringify(body) : body);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('invalid_request');
    expect(res.json.error.message).toMatch(field);
    conforms('submitScreen', res);
    expect(await creditsOf(t.apiKey)).toBe(100);
    expect(await auditRows(t.apiKey)).toHaveLength(0);
  });

  it('refuses malformed JSON, a wrong content type and an oversized body', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const api = client(base(), t.apiKey);
    const malformed = await api('POST', `${SCREENING}/screen`, '{"idempotencyKey": "a",');
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.message).toMatch(/JSON/);
    const wrongType = await api('POST', `${SCREENING}/screen`, JSON.stringify(good()), {
      'content-type': 'text/plain',
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.error.message).toMatch(/Content-Type/);
    const huge = { ...good(), candidate: { kind: 'structured', fullName: 'A', summary: 'x'.repeat(300 * 1024) } };
    const oversized = await api('POST', `${SCREENING}/screen`, huge);
    expect(oversized.status).toBe(413);
    expect(oversized.json.error.message).toMatch(/bytes/);
    expect(await creditsOf(t.apiKey)).toBe(100);
    expect(await auditRows(t.apiKey)).toHaveLength(0);
  });

  it('refuses a missing, unknown or query-string key with 401 and a key without the scope or of a disabled tenant with 403', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const anon = client(base());
    const none = await anon('POST', `${SCREENING}/screen`, good());
    expect(none.status).toBe(401);
    expect(none.json.error.code).toBe('unauthorized');
    const unknown = await client(base(), 'rjk_live_00000000000000000000000000000000')('GET', `${SCREENING}/usage`);
    expect(unknown.status).toBe(401);
    const inQuery = await anon('GET', `${SCREENING}/usage?api_key=${t.apiKey}`);
    expect(inQuery.status).toBe(401);
    expect(inQuery.json.error.message).toMatch(/query string/);
    const inQueryToo = await client(base(), t.apiKey)('GET', `${SCREENING}/audit?token=${t.apiKey}`);
    expect(inQueryToo.status).toBe(401);

    const jobsOnly = await createTenant(base(), { planTier: 'starter', scopes: ['jobs'] });
    const noScope = await client(base(), jobsOnly.apiKey)('POST', `${SCREENING}/screen`, good());
    expect(noScope.status).toBe(403);
    expect(noScope.json.error.code).toBe('forbidden');
    expect(noScope.json.error.message).toMatch(/screening/);
    conforms('submitScreen', noScope);
    conforms('getUsage', inQuery);

    const admin = client(base(), ADMIN_TOKEN);
    await admin('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { disabled: true });
    const disabled = await client(base(), t.apiKey)('POST', `${SCREENING}/screen`, good());
    expect(disabled.status).toBe(403);
    await admin('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { disabled: false });
    expect(await creditsOf(t.apiKey)).toBe(100);
    expect(await auditRows(t.apiKey)).toHaveLength(0);
  });
});
