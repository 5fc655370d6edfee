// Per-tenant clocks and per-tenant chaos rules (D-120, D-121), through real HTTP: advancing one tenant's
// clock moves that tenant's review expiries, webhook retries, credit periods, rate windows and ledger
// times and nobody else's; the sandbox clock moves everyone's; a rule scoped to a tenant touches only
// that tenant's calls and deliveries.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp } from './support/mcp.js';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import {
  SCREENING,
  adminOf,
  clockAdvance,
  deliveriesOf,
  settled,
  startReceiver,
  submitBody,
  waitFor,
} from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;
const admin = () => adminOf(base());

let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});

async function submit(apiKey: string): Promise<string> {
  const res = await client(base(), apiKey)('POST', `${SCREENING}/screen`, submitBody());
  expect(res.status).toBe(201);
  return res.json.requestId;
}

async function advanceTenant(tenantId: string, seconds: number) {
  const res = await admin()('POST', `/sandbox/v1/tenants/${tenantId}/clock/advance`, { seconds });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

const stateOf = async (requestId: string) => (await admin()('GET', `/sandbox/v1/reviews/${requestId}`)).json.state;

describe('a clock per tenant', () => {
  it("advancing tenant A's clock 72 h expires A's pending review, not B's, and lists each tenant's timers", async () => {
    const a = await createTenant(base(), { planTier: 'pro' });
    const b = await createTenant(base(), { planTier: 'pro' });
    const ra = await submit(a.apiKey);
    const rb = await submit(b.apiKey);
    expect((await settled(base(), ra)).state).toBe('pending_review');
    expect((await settled(base(), rb)).state).toBe('pending_review');

    const before = (await admin()('GET', `/sandbox/v1/tenants/${a.tenantId}/clock`)).json;
    expect(before.pendingByLabel['review expiry']).toBe(1);
    expect(before.soonest[0]).toMatchObject({ label: 'review expiry', ref: ra, tenantId: a.tenantId });

    const moved = await advanceTenant(a.tenantId, 72 * 3600 + 1);
    expect(moved.fired.byLabel['review expiry']).toBe(1);
    expect(moved.offsetSeconds).toBeGreaterThanOrEqual(72 * 3600 + 1);
    expect(await stateOf(ra)).toBe('expired');
    expect(await stateOf(rb)).toBe('pending_review');
    // the expiry's ledger row is stamped on A's clock, 72 h after the request entered review
    const rows = (await client(base(), a.apiKey)('GET', `${SCREENING}/audit?limit=50`)).json.events.filter(
      (r: any) => r.requestId === ra,
    );
    const at = (state: string) => Date.parse(rows.find((r: any) => r.toState === state).createdAt);
    expect(at('expired') - at('pending_review')).toBeGreaterThanOrEqual(72 * 3600_000);

    const clockA = (await admin()('GET', `/sandbox/v1/tenants/${a.tenantId}/clock`)).json;
    const clockB = (await admin()('GET', `/sandbox/v1/clock/timers?tenantId=${b.tenantId}`)).json;
    expect(clockA.pendingTimers).toBe(0);
    expect(clockA.advances[0]).toMatchObject({ tenantId: a.tenantId, fired: 1 });
    expect(clockB.pendingByLabel['review expiry']).toBe(1);
    expect(Date.parse(clockA.now) - Date.parse(clockB.now)).toBeGreaterThanOrEqual(72 * 3600_000);
    // the sandbox clock did not move; its list of advances shows A's among every clock's, newest first (D-156)
    const sandbox = (await admin()('GET', '/sandbox/v1/clock')).json;
    expect(Math.abs(Date.parse(sandbox.now) - Date.now())).toBeLessThan(60_000);
    const every = (await admin()('GET', '/sandbox/v1/clock/timers')).json;
    expect(every.advances[0]).toEqual(clockA.advances[0]);
  });

  it("a tenant's ledger and audit times follow its clock, and a keyset walk stays in order across advances", async () => {
    const a = await createTenant(base(), { planTier: 'pro' });
    const api = client(base(), a.apiKey);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push(await submit(a.apiKey));
      await settled(base(), ids[i]);
      await advanceTenant(a.tenantId, 3600);
    }
    const rows: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await api(
        'GET',
        `${SCREENING}/audit?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      rows.push(...res.json.events);
      cursor = res.json.nextCursor;
      // rows keep arriving on a clock that moves between pages
      if (cursor && rows.length === 2) {
        await advanceTenant(a.tenantId, 7200);
        ids.push(await submit(a.apiKey));
        await settled(base(), ids[3]);
      }
    } while (cursor);
    const times = rows.map((r) => Date.parse(r.createdAt));
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(new Set(rows.map((r) => r.requestId))).toEqual(new Set(ids));
    // the last request's rows are stamped 2 h + 3 h (at least) ahead of real time
    const last = rows.filter((r) => r.requestId === ids[3]);
    expect(Date.parse(last[0].createdAt) - Date.now()).toBeGreaterThan(5 * 3600_000 - 60_000);
    // `since` on the tenant's time picks the rows stamped after the second advance
    const since = new Date(Date.parse(rows.find((r) => r.requestId === ids[1])!.createdAt) + 1).toISOString();
    const page = await api('GET', `${SCREENING}/audit?limit=500&since=${encodeURIComponent(since)}`);
    expect(page.status).toBe(200);
    expect(page.json.events.map((r: any) => r.requestId)).not.toContain(ids[0]);
    expect(page.json.events.map((r: any) => r.requestId)).toContain(ids[2]);
  });

  it("A's rate window starts afresh when A's clock moves a minute; B's stays spent", async () => {
    const a = await createTenant(base(), { planTier: 'free' });
    const b = await createTenant(base(), { planTier: 'free' });
    const me = (key: string) => client(base(), key)('GET', '/api/v1/me');
    for (const t of [a, b]) {
      let last = await me(t.apiKey);
      while (last.status === 200) last = await me(t.apiKey);
      expect(last.status).toBe(429);
    }
    await advanceTenant(a.tenantId, 61);
    const ra = await me(a.apiKey);
    expect(ra.status).toBe(200);
    expect(ra.headers.get('x-ratelimit-remaining')).toBe('59');
    expect((await me(b.apiKey)).status).toBe(429);
  });

  it("A's talent_search day starts afresh when A's clock moves a day; B's stays spent", async () => {
    const a = await createTenant(base(), { planTier: 'pro' });
    const b = await createTenant(base(), { planTier: 'pro' });
    const url = `${base()}/api/mcp`;
    const [ma, mb] = await Promise.all([connectMcp(url, a.apiKey), connectMcp(url, b.apiKey)]);
    try {
      for (const m of [ma, mb]) {
        for (let i = 0; i < 50; i++)
          expect((await call(m.client, 'talent_search', { skills: ['TypeScript'] })).isError).toBe(false);
        expect((await call(m.client, 'talent_search', { skills: ['TypeScript'] })).isError).toBe(true);
      }
      await advanceTenant(a.tenantId, 86_400);
      expect((await call(ma.client, 'talent_search', { skills: ['TypeScript'] })).isError).toBe(false);
      expect((await call(mb.client, 'talent_search', { skills: ['TypeScript'] })).isError).toBe(true);
    } finally {
      await Promise.all([ma.close(), mb.close()]);
    }
  });

  it("A's credit period and resetAt follow A's clock", async () => {
    const a = await createTenant(base(), { planTier: 'starter' });
    const b = await createTenant(base(), { planTier: 'starter' });
    await submit(a.apiKey);
    await submit(b.apiKey);
    const usage = async (key: string) => (await client(base(), key)('GET', `${SCREENING}/usage`)).json;
    const ua = await usage(a.apiKey);
    expect(ua.creditsRemaining).toBe(99);
    await advanceTenant(a.tenantId, Math.ceil((Date.parse(ua.resetAt) - Date.now()) / 1000) + 60);
    const after = await usage(a.apiKey);
    expect(after.creditsRemaining).toBe(100);
    expect(Date.parse(after.resetAt)).toBeGreaterThan(Date.parse(ua.resetAt));
    const ub = await usage(b.apiKey);
    expect(ub.creditsRemaining).toBe(99);
    expect(ub.resetAt).toBe(ua.resetAt);
  });

  it("B's webhook retries do not fire when A's clock moves; they fire when B's does", async () => {
    const a = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url });
    const b = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url });
    rx.queue(500);
    const rb = await submit(b.apiKey);
    const failedOnce = await waitFor(async () => {
      const d = (await deliveriesOf(base(), rb)).find((x) => x.event === 'screening.scored');
      return d && d.attempts.length === 1 && d.status === 'retrying' ? d : undefined;
    }, 'the first failed attempt of B');
    expect(failedOnce.attempts[0].statusCode).toBe(500);
    const fired = await advanceTenant(a.tenantId, 3600);
    expect(fired.fired.byLabel['webhook retry']).toBeUndefined();
    await new Promise((r) => setTimeout(r, 100));
    expect((await deliveriesOf(base(), rb)).find((x) => x.event === 'screening.scored').attempts).toHaveLength(1);
    const moved = await advanceTenant(b.tenantId, 5);
    expect(moved.fired.byLabel['webhook retry']).toBe(1);
    const delivered = await waitFor(async () => {
      const d = (await deliveriesOf(base(), rb)).find((x) => x.event === 'screening.scored');
      return d?.status === 'delivered' ? d : undefined;
    }, 'B delivered after its own advance');
    expect(delivered.attempts).toHaveLength(2);
    // the attempt and the body are stamped on B's clock
    expect(Date.parse(delivered.attempts[1].at) - Date.now()).toBeGreaterThan(-1000);
    expect(Date.parse(JSON.parse(delivered.attempts[1].body).deliveredAt)).toBe(Date.parse(delivered.attempts[1].at));
    void a;
  });

  it('the sandbox clock moves every tenant: an advance of 72 h expires both reviews', async () => {
    const a = await createTenant(base(), { planTier: 'pro' });
    const b = await createTenant(base(), { planTier: 'pro' });
    await advanceTenant(a.tenantId, 600);
    const ra = await submit(a.apiKey);
    const rb = await submit(b.apiKey);
    await settled(base(), ra);
    await settled(base(), rb);
    const beforeA = Date.parse((await admin()('GET', `/sandbox/v1/tenants/${a.tenantId}/clock`)).json.now);
    await clockAdvance(base(), 72 * 3600 + 1);
    expect(await stateOf(ra)).toBe('expired');
    expect(await stateOf(rb)).toBe('expired');
    const afterA = (await admin()('GET', `/sandbox/v1/tenants/${a.tenantId}/clock`)).json;
    expect(Date.parse(afterA.now) - beforeA).toBeGreaterThanOrEqual(72 * 3600_000);
    expect(afterA.offsetSeconds).toBe(600);
  });

  it('refuses bad input with a 4xx naming the problem', async () => {
    const a = await createTenant(base(), { planTier: 'pro' });
    const bad = await admin()('POST', `/sandbox/v1/tenants/${a.tenantId}/clock/advance`, { seconds: -1 });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/seconds/);
    const unknown = await admin()('POST', '/sandbox/v1/tenants/ten_nobody/clock/advance', { seconds: 1 });
    expect(unknown.status).toBe(404);
    expect((await admin()('GET', '/sandbox/v1/tenants/ten_nobody/clock')).status).toBe(404);
    expect((await admin()('GET', '/sandbox/v1/clock/timers?tenantId=ten_nobody')).status).toBe(404);
    expect(
      (await client(base())('POST', `/sandbox/v1/tenants/${a.tenantId}/clock/advance`, { seconds: 1 })).status,
    ).toBe(401);
  });
});

describe('fault rules per tenant', () => {
  it("a status rule scoped to A answers A's calls 503 and leaves B's alone; listing and clearing per tenant", async () => {
    const a = await createTenant(base(), { planTier: 'pro' });
    const b = await createTenant(base(), { planTier: 'pro' });
    const rule = await admin()('POST', '/sandbox/v1/faults', {
      path: '/api/v1/jobs',
      mode: 'status',
      status: 503,
      count: 2,
      tenantId: a.tenantId,
    });
    expect(rule.status).toBe(201);
    expect(rule.json.tenantId).toBe(a.tenantId);
    const jobs = (key?: string) => client(base(), key)('GET', '/api/v1/jobs?limit=1');
    expect((await jobs(b.apiKey)).status).toBe(200);
    expect((await jobs()).status).toBe(401);
    const hit = await jobs(a.apiKey);
    expect(hit.status).toBe(503);
    expect(hit.json.error.message).toContain(rule.json.id);
    expect((await jobs(b.apiKey)).status).toBe(200);
    const listA = await admin()('GET', `/sandbox/v1/faults?tenantId=${a.tenantId}`);
    expect(listA.json.rules).toEqual([expect.objectContaining({ id: rule.json.id, remaining: 1, hits: 1 })]);
    expect((await admin()('GET', `/sandbox/v1/faults?tenantId=${b.tenantId}`)).json.rules).toEqual([]);
    const other = await admin()('POST', '/sandbox/v1/faults', { mode: 'latency', latencyMs: 1, tenantId: b.tenantId });
    expect((await admin()('DELETE', `/sandbox/v1/faults?tenantId=${a.tenantId}`)).status).toBe(204);
    const all = (await admin()('GET', '/sandbox/v1/faults')).json.rules.map((r: any) => r.id);
    expect(all).not.toContain(rule.json.id);
    expect(all).toContain(other.json.id);
    expect((await jobs(a.apiKey)).status).toBe(200);
    expect((await admin()('DELETE', `/sandbox/v1/faults/${other.json.id}`)).status).toBe(204);
  });

  it("a webhook_failure rule scoped to A fails A's deliveries and not B's", async () => {
    const a = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url });
    const b = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url });
    const rule = await admin()('POST', '/sandbox/v1/faults', {
      mode: 'webhook_failure',
      status: 500,
      count: 1,
      tenantId: a.tenantId,
    });
    expect(rule.status).toBe(201);
    const rb = await submit(b.apiKey);
    const db = await waitFor(
      async () => (await deliveriesOf(base(), rb)).find((x) => x.event === 'screening.scored' && x.attempts.length > 0),
      'B attempt',
    );
    expect(db.attempts[0].statusCode).toBe(200);
    const ra = await submit(a.apiKey);
    const da = await waitFor(
      async () => (await deliveriesOf(base(), ra)).find((x) => x.event === 'screening.scored' && x.attempts.length > 0),
      'A attempt',
    );
    expect(da.attempts[0].statusCode).toBe(500);
    expect(da.attempts[0].error).toMatch(/chaos rule/);
    expect((await admin()('GET', '/sandbox/v1/faults')).json.rules.map((r: any) => r.id)).not.toContain(rule.json.id);
  });

  it('refuses a rule for a tenant that does not exist, naming tenantId', async () => {
    const res = await admin()('POST', '/sandbox/v1/faults', { mode: 'latency', latencyMs: 1, tenantId: 'ten_nobody' });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/tenantId/);
    expect((await admin()('GET', '/sandbox/v1/faults?tenantId=ten_nobody')).status).toBe(404);
  });
});
