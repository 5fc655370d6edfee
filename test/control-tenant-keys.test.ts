// A tenant's own API key on the control API (D-133), over real HTTP: every route of the control API's
// description (walked from contracts/control.openapi.yaml, so a new route cannot be forgotten) tried with
// another tenant's key against the owner's objects (404 as if absent or 403, nothing changed, nothing
// read) and with the owner's key (works where the route's audience includes tenants, 403 where it is the
// operator's); a key in the query string still refused; the admin token unchanged.

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { applyBody, readCorpus } from './support/jobs.js';
import { call, connectMcp } from './support/mcp.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const raw = parse(readFileSync(new URL('../contracts/control.openapi.yaml', import.meta.url), 'utf8'));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const operations: { method: string; path: string; tenant: boolean }[] = Object.entries<any>(raw.paths).flatMap(
  ([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({
      method: m.toUpperCase(),
      path,
      tenant: (item[m].security as Record<string, string[]>[]).some((s) => 'tenantKey' in s),
    })),
);

const sb = useSandbox({ corpusSize: 120 });

interface Owned {
  tenantId: string;
  apiKey: string;
  requestId: string;
  decidable: string;
  deliveryId: string;
  entryId: string;
  applicationId: string;
  faultId: string;
}

/** One call of a route made about `ids`' objects: the path's ids filled in, and a body or query naming the tenant. */
type Call = { path: string; body?: unknown; stream?: boolean };
const CALLS: Record<string, (o: Owned) => Call> = {
  'GET /sandbox/v1/tenants': () => ({ path: '/sandbox/v1/tenants' }),
  'POST /sandbox/v1/tenants': () => ({ path: '/sandbox/v1/tenants', body: { planTier: 'free' } }),
  'GET /sandbox/v1/tenants/{tenantId}': (o) => ({ path: `/sandbox/v1/tenants/${o.tenantId}` }),
  'PATCH /sandbox/v1/tenants/{tenantId}': (o) => ({
    path: `/sandbox/v1/tenants/${o.tenantId}`,
    body: { name: 'renamed by a key' },
  }),
  'POST /sandbox/v1/tenants/{tenantId}/keys': (o) => ({ path: `/sandbox/v1/tenants/${o.tenantId}/keys`, body: {} }),
  'POST /sandbox/v1/tenants/{tenantId}/webhook-secret/rotate': (o) => ({
    path: `/sandbox/v1/tenants/${o.tenantId}/webhook-secret/rotate`,
    body: {},
  }),
  'GET /sandbox/v1/tenants/{tenantId}/clock': (o) => ({ path: `/sandbox/v1/tenants/${o.tenantId}/clock` }),
  'POST /sandbox/v1/tenants/{tenantId}/clock/advance': (o) => ({
    path: `/sandbox/v1/tenants/${o.tenantId}/clock/advance`,
    body: { seconds: 1 },
  }),
  'GET /sandbox/v1/reviews': (o) => ({ path: `/sandbox/v1/reviews?tenantId=${o.tenantId}` }),
  'GET /sandbox/v1/reviews/counts': () => ({ path: '/sandbox/v1/reviews/counts' }),
  'GET /sandbox/v1/reviews/{requestId}': (o) => ({ path: `/sandbox/v1/reviews/${o.requestId}` }),
  'POST /sandbox/v1/reviews/{requestId}/decision': (o) => ({
    path: `/sandbox/v1/reviews/${o.decidable}/decision`,
    body: { decision: 'approved', reviewerId: 'reviewer:key-holder' },
  }),
  'GET /sandbox/v1/webhooks/deliveries': (o) => ({ path: `/sandbox/v1/webhooks/deliveries?tenantId=${o.tenantId}` }),
  'GET /sandbox/v1/webhooks/deliveries/{deliveryId}': (o) => ({
    path: `/sandbox/v1/webhooks/deliveries/${o.deliveryId}`,
  }),
  'POST /sandbox/v1/webhooks/deliveries/{deliveryId}/redeliver': (o) => ({
    path: `/sandbox/v1/webhooks/deliveries/${o.deliveryId}/redeliver`,
  }),
  'POST /sandbox/v1/webhooks/test': (o) => ({ path: '/sandbox/v1/webhooks/test', body: { tenantId: o.tenantId } }),
  'GET /sandbox/v1/webhooks/endpoints': (o) => ({ path: `/sandbox/v1/webhooks/endpoints?tenantId=${o.tenantId}` }),
  'GET /sandbox/v1/webhooks/listen': (o) => ({
    path: `/sandbox/v1/webhooks/listen?tenantId=${o.tenantId}`,
    stream: true,
  }),
  'POST /sandbox/v1/webhooks/listen/{attemptId}/answer': (o) => ({
    path: `/sandbox/v1/webhooks/listen/${o.deliveryId}.9/answer`,
    body: { tenantId: o.tenantId, statusCode: 200, durationMs: 1 },
  }),
  'GET /sandbox/v1/webhooks/listen/listeners': (o) => ({
    path: `/sandbox/v1/webhooks/listen/listeners?tenantId=${o.tenantId}`,
  }),
  'GET /sandbox/v1/logs': (o) => ({ path: `/sandbox/v1/logs?tenantId=${o.tenantId}` }),
  'GET /sandbox/v1/logs/{entryId}': (o) => ({ path: `/sandbox/v1/logs/${o.entryId}` }),
  'GET /sandbox/v1/applications': (o) => ({ path: `/sandbox/v1/applications?tenantId=${o.tenantId}` }),
  'GET /sandbox/v1/applications/{applicationId}': (o) => ({ path: `/sandbox/v1/applications/${o.applicationId}` }),
  'GET /sandbox/v1/outbox': () => ({ path: '/sandbox/v1/outbox' }),
  'GET /sandbox/v1/clock': () => ({ path: '/sandbox/v1/clock' }),
  'GET /sandbox/v1/clock/timers': (o) => ({ path: `/sandbox/v1/clock/timers?tenantId=${o.tenantId}` }),
  'POST /sandbox/v1/clock/advance': () => ({ path: '/sandbox/v1/clock/advance', body: { seconds: 1 } }),
  'GET /sandbox/v1/faults': (o) => ({ path: `/sandbox/v1/faults?tenantId=${o.tenantId}` }),
  'POST /sandbox/v1/faults': (o) => ({
    path: '/sandbox/v1/faults',
    body: { tenantId: o.tenantId, path: '/api/v1/jobs', mode: 'status', status: 503, count: 1 },
  }),
  'DELETE /sandbox/v1/faults': (o) => ({ path: `/sandbox/v1/faults?tenantId=${o.tenantId}` }),
  'DELETE /sandbox/v1/faults/{faultId}': (o) => ({ path: `/sandbox/v1/faults/${o.faultId}` }),
  'PUT /sandbox/v1/bugs/{bugName}': () => ({ path: '/sandbox/v1/bugs/skip-idempotency' }),
  'DELETE /sandbox/v1/bugs/{bugName}': () => ({ path: '/sandbox/v1/bugs/skip-idempotency' }),
  'POST /sandbox/v1/reset': () => ({ path: '/sandbox/v1/reset' }),
  'GET /sandbox/v1/demo': () => ({ path: '/sandbox/v1/demo' }),
  'GET /sandbox/v1/store': () => ({ path: '/sandbox/v1/store' }),
};

async function send(baseUrl: string, key: string, method: string, c: Call) {
  if (!c.stream) return client(baseUrl, key)(method, c.path, c.body);
  // a stream: only its status matters here; the connection is dropped at once
  const ctl = new AbortController();
  const res = await fetch(baseUrl + c.path, {
    method,
    headers: { authorization: `Bearer ${key}` },
    signal: ctl.signal,
  });
  const text = res.ok ? '' : await res.text();
  ctl.abort();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

/** A tenant with one of everything a tenant owns: requests (one left pending), a failing delivery, a log entry, an application, a fault rule, an e-mail. */
async function owner(baseUrl: string, jobId: string, name: string): Promise<Owned> {
  const admin = client(baseUrl, ADMIN_TOKEN);
  const t = await createTenant(baseUrl, { planTier: 'pro', name, webhookUrl: 'http://127.0.0.1:9/closed' });
  const api = client(baseUrl, t.apiKey);
  const ids: string[] = [];
  for (const k of ['one', 'two']) {
    const sub = await api('POST', `${SCREENING}/screen`, submitBody({ idempotencyKey: `${name}-${k}` }));
    expect(sub.status).toBe(201);
    ids.push(sub.json.requestId);
  }
  for (const id of ids) {
    await waitFor(
      async () =>
        (await admin('GET', `/sandbox/v1/reviews/${id}`)).json.state === 'pending_review' ? true : undefined,
      `${id} pending`,
    );
  }
  const deliveryId = await waitFor(async () => {
    const d = (await admin('GET', `/sandbox/v1/webhooks/deliveries?tenantId=${t.tenantId}`)).json.deliveries;
    return d.length > 0 && d[0].attempts.length > 0 ? (d[0].id as string) : undefined;
  }, 'a delivery attempted');
  const applied = await api('POST', `/api/v1/jobs/${jobId}/apply`, applyBody());
  expect(applied.status).toBe(200);
  const mcp = await connectMcp(`${baseUrl}/api/mcp`, t.apiKey);
  const hired = await call(mcp.client, 'hire', {
    brief: 'We need a frontend engineer with React and TypeScript',
    company: name,
    contact_email: `people@${name}.example`,
    publish_if_no_match: true,
  });
  await mcp.close();
  expect(hired.isError).toBe(false);
  const fault = await admin('POST', '/sandbox/v1/faults', {
    tenantId: t.tenantId,
    path: '/api/v1/market',
    mode: 'status',
    status: 503,
    count: 5,
  });
  expect(fault.status).toBe(201);
  const entryId = await waitFor(
    async () =>
      (await admin('GET', `/sandbox/v1/logs?tenantId=${t.tenantId}`)).json.entries[0]?.id as string | undefined,
    'a log entry',
  );
  return {
    tenantId: t.tenantId,
    apiKey: t.apiKey,
    requestId: ids[0],
    decidable: ids[1],
    deliveryId,
    entryId,
    applicationId: applied.json.applicationId,
    faultId: fault.json.id,
  };
}

/** What the operator sees of a tenant: everything a key of another tenant must neither read nor change. */
async function snapshot(baseUrl: string, o: Owned) {
  const admin = client(baseUrl, ADMIN_TOKEN);
  const paths = [
    `/sandbox/v1/tenants/${o.tenantId}`,
    `/sandbox/v1/tenants/${o.tenantId}/clock`,
    `/sandbox/v1/reviews?tenantId=${o.tenantId}`,
    `/sandbox/v1/reviews/${o.requestId}`,
    `/sandbox/v1/reviews/${o.decidable}`,
    `/sandbox/v1/webhooks/deliveries?tenantId=${o.tenantId}`,
    `/sandbox/v1/applications?tenantId=${o.tenantId}`,
    `/sandbox/v1/faults?tenantId=${o.tenantId}`,
    `/sandbox/v1/outbox`,
  ];
  const out: Record<string, unknown> = {};
  for (const p of paths) {
    const res = await admin('GET', p);
    expect(res.status, p).toBe(200);
    // the clock's reading moves with real time; its offset, timers and advances are the tenant's state
    const { now: _now, sandboxNow: _sandboxNow, ...state } = res.json;
    out[p] = state;
  }
  return out;
}

describe("a tenant's own key on the control API", () => {
  let a: Owned;
  let b: Owned;
  beforeAll(async () => {
    const { baseUrl } = sb.get();
    const job = (await readCorpus(sb.get())).find((j) => j.employerContact !== null)!;
    a = await owner(baseUrl, job.id, 'alpha');
    b = await owner(baseUrl, job.id, 'bravo');
  }, 30_000);

  it('has a call for every route the control API describes', () => {
    expect(operations.map((op) => `${op.method} ${op.path}`).sort()).toEqual(Object.keys(CALLS).sort());
  });

  it("keeps the operator's routes the operator's (D-133): the description opens none of them to a tenant's key", () => {
    expect(
      operations
        .filter((op) => !op.tenant)
        .map((op) => `${op.method} ${op.path}`)
        .sort(),
    ).toEqual(
      [
        'GET /sandbox/v1/tenants',
        'POST /sandbox/v1/tenants',
        'POST /sandbox/v1/tenants/{tenantId}/keys',
        'GET /sandbox/v1/clock',
        'GET /sandbox/v1/clock/timers',
        'POST /sandbox/v1/clock/advance',
        'PUT /sandbox/v1/bugs/{bugName}',
        'DELETE /sandbox/v1/bugs/{bugName}',
        'POST /sandbox/v1/reset',
        'GET /sandbox/v1/demo',
        'GET /sandbox/v1/store',
      ].sort(),
    );
  });

  it("reaches none of another tenant's objects: 404 as if absent on tenant routes, 403 on operator routes, nothing changed, nothing read", async () => {
    const { baseUrl } = sb.get();
    const before = await snapshot(baseUrl, b);
    for (const op of operations) {
      const res = await send(baseUrl, a.apiKey, op.method, CALLS[`${op.method} ${op.path}`](b));
      const label = `${op.method} ${op.path} with another tenant's key: ${res.status} ${res.text}`;
      if (!op.tenant) {
        expect(res.status, label).toBe(403);
        expect(res.json.error.code, label).toBe('forbidden');
      } else if (op.path === '/sandbox/v1/reviews/counts' || op.path === '/sandbox/v1/outbox') {
        // listings with no tenant to name: only the caller's own items
        expect(res.status, label).toBe(200);
      } else {
        expect(res.status, label).toBe(404);
        expect(res.json.error.code, label).toBe('not_found');
      }
      for (const id of [b.tenantId, b.requestId, b.decidable, b.deliveryId, b.applicationId, b.faultId]) {
        const read = res.text.replace(
          new RegExp(`(tenant|request|delivery|application|fault rule|entry|attempt) '?${id}'?`, 'g'),
          '',
        );
        expect(read.includes(id), `${label} mentions ${id} beyond naming it as absent`).toBe(false);
      }
    }
    expect(await snapshot(baseUrl, b)).toEqual(before);
  });

  it("counts and lists only the key's own tenant's items", async () => {
    const { baseUrl } = sb.get();
    const own = client(baseUrl, a.apiKey);
    const admin = client(baseUrl, ADMIN_TOKEN);
    const counts = (await own('GET', '/sandbox/v1/reviews/counts')).json.counts;
    const all = (await admin('GET', '/sandbox/v1/reviews/counts')).json.counts;
    const mine = (await admin('GET', `/sandbox/v1/reviews?tenantId=${a.tenantId}`)).json.reviews;
    expect(Object.values<number>(counts).reduce((x, y) => x + y, 0)).toBe(mine.length);
    expect(Object.values<number>(all).reduce((x, y) => x + y, 0)).toBeGreaterThan(mine.length);
    for (const [path, key] of [
      ['/sandbox/v1/reviews', 'reviews'],
      ['/sandbox/v1/webhooks/deliveries', 'deliveries'],
      ['/sandbox/v1/logs', 'entries'],
      ['/sandbox/v1/applications', 'applications'],
      ['/sandbox/v1/faults', 'rules'],
    ] as const) {
      const res = await own('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.json[key].length, path).toBeGreaterThan(0);
      for (const item of res.json[key]) expect(item.tenantId, path).toBe(a.tenantId);
    }
    const mail = (await own('GET', '/sandbox/v1/outbox')).json.messages;
    expect(mail.length).toBeGreaterThan(0);
    for (const m of mail) expect(m.data.tenantId).toBe(a.tenantId);
    expect(
      (await admin('GET', '/sandbox/v1/outbox')).json.messages.some((m: any) => m.data.tenantId === b.tenantId),
    ).toBe(true);
  });

  it("works on its own tenant's routes with the owner's key, and the operator's answer 403", async () => {
    const { baseUrl } = sb.get();
    for (const op of operations) {
      const ids = { ...a };
      if (op.path === '/sandbox/v1/faults/{faultId}') {
        // the rule made at the start is gone with DELETE /faults (walked just before): one to delete
        ids.faultId = (
          await client(baseUrl, a.apiKey)('POST', '/sandbox/v1/faults', {
            path: '/api/v1/market',
            mode: 'status',
            status: 503,
          })
        ).json.id;
      }
      const res = await send(baseUrl, a.apiKey, op.method, CALLS[`${op.method} ${op.path}`](ids));
      const label = `${op.method} ${op.path} with the owner's key: ${res.status} ${res.text}`;
      if (!op.tenant) {
        expect(res.status, label).toBe(403);
      } else if (op.path.endsWith('/answer')) {
        // no such attempt awaits an answer: the route is reached and says so about the owner's own tenant
        expect(res.status, label).toBe(404);
        expect(res.text, label).toContain(`of tenant ${a.tenantId} awaits`);
      } else {
        expect(res.status, label).toBeGreaterThanOrEqual(200);
        expect(res.status, label).toBeLessThan(300);
      }
    }
    const admin = client(baseUrl, ADMIN_TOKEN);
    // the owner's calls did what they say, on the owner's tenant
    expect((await admin('GET', `/sandbox/v1/tenants/${a.tenantId}`)).json.name).toBe('renamed by a key');
    expect((await admin('GET', `/sandbox/v1/reviews/${a.decidable}`)).json.decision).toMatchObject({
      decision: 'approved',
      reviewerId: 'reviewer:key-holder',
    });
    expect((await admin('GET', `/sandbox/v1/tenants/${a.tenantId}/clock`)).json.offsetSeconds).toBe(1);
    expect((await admin('GET', `/sandbox/v1/faults?tenantId=${a.tenantId}`)).json.rules).toEqual([]);
  });

  it('makes only rules of its own tenant, and changes only what is not the operator’s', async () => {
    const { baseUrl } = sb.get();
    const own = client(baseUrl, a.apiKey);
    const rule = await own('POST', '/sandbox/v1/faults', {
      path: '/api/v1/market',
      mode: 'status',
      status: 503,
      count: 1,
    });
    expect(rule.status).toBe(201);
    expect(rule.json.tenantId).toBe(a.tenantId);
    for (const body of [{ planTier: 'scale' }, { screeningCredits: 999 }, { applyCredits: 999 }, { disabled: true }]) {
      const res = await own('PATCH', `/sandbox/v1/tenants/${a.tenantId}`, body);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.json.error.message).toContain(Object.keys(body)[0]);
    }
    expect((await client(baseUrl, ADMIN_TOKEN)('GET', `/sandbox/v1/tenants/${a.tenantId}`)).json).toMatchObject({
      planTier: 'pro',
      disabled: false,
    });
  });

  it('refuses a key in the query string, a key without the scope a route needs, and an unknown key', async () => {
    const { baseUrl } = sb.get();
    const anon = client(baseUrl);
    const inQuery = await anon('GET', `/sandbox/v1/tenants/${a.tenantId}?api_key=${a.apiKey}`);
    expect(inQuery.status).toBe(401);
    expect(inQuery.json.error.message).toMatch(/query/);
    const bare = await anon('GET', `/sandbox/v1/tenants/${a.tenantId}/clock?x=${a.apiKey}`);
    expect(bare.status).toBe(401);
    const jobsOnly = (
      await client(baseUrl, ADMIN_TOKEN)('POST', `/sandbox/v1/tenants/${a.tenantId}/keys`, { scopes: ['jobs'] })
    ).json.apiKey;
    const scoped = client(baseUrl, jobsOnly);
    expect((await scoped('GET', '/sandbox/v1/reviews')).status).toBe(403);
    expect((await scoped('GET', `/sandbox/v1/tenants/${a.tenantId}/clock`)).status).toBe(200);
    expect(
      (await client(baseUrl, 'sk_live_0123456789abcdef0123')('GET', `/sandbox/v1/tenants/${a.tenantId}`)).status,
    ).toBe(401);
    expect((await anon('GET', '/sandbox/v1/reset')).status).toBe(401);
  });

  it('leaves the admin token every route and every tenant', async () => {
    const { baseUrl } = sb.get();
    const admin = client(baseUrl, ADMIN_TOKEN);
    expect((await admin('GET', `/sandbox/v1/tenants/${b.tenantId}`)).status).toBe(200);
    expect((await admin('GET', '/sandbox/v1/tenants')).json.tenants.length).toBeGreaterThanOrEqual(2);
    expect((await admin('GET', `/sandbox/v1/reviews?tenantId=${b.tenantId}`)).json.reviews.length).toBe(2);
    expect((await admin('GET', '/sandbox/v1/demo')).status).toBe(200);
    expect(
      (await admin('PATCH', `/sandbox/v1/tenants/${b.tenantId}`, { screeningCredits: 7 })).json.screeningCredits
        .remaining,
    ).toBe(7);
  });
});
