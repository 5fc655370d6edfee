// Tenant clocks and tenant fault rules (D-120, D-121) on the shared sandbox: two instances on one
// PostgreSQL agree at once on each tenant's clock, its timers and its scoped rules, and a restart
// replays them.

import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/main.js';
import { postgresUnavailable, sharedInstances, twoSharedInstances, type TestDatabase } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const shared = sharedInstances('http://sandbox.test', { seedDemo: false, corpusSize: 50 });

const adminAt = (sb: RunningSandbox) => client(sb.listenUrl, ADMIN_TOKEN);

async function tenant(sb: RunningSandbox) {
  const res = await adminAt(sb)('POST', '/sandbox/v1/tenants', { planTier: 'pro' });
  expect(res.status, res.text).toBe(201);
  return res.json as { tenantId: string; apiKey: string };
}

describe.skipIf(why !== null)('tenant clocks and tenant fault rules on a shared sandbox', () => {
  let db: TestDatabase;
  let a: RunningSandbox;
  let b: RunningSandbox;
  twoSharedInstances(
    shared,
    (p) => ({ db, a, b } = p),
    () => [a, b],
  );

  it("one tenant's clock advanced on instance A is the same on instance B at once, and expires only that tenant's review everywhere", async () => {
    const one = await tenant(a);
    const two = await tenant(b);
    const ids: string[] = [];
    for (const [sb, t] of [
      [b, one],
      [a, two],
    ] as const) {
      const made = await client(sb.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
      expect(made.status, made.text).toBe(201);
      ids.push(made.json.requestId);
    }
    for (const id of ids)
      await waitFor(
        async () => (await adminAt(a)('GET', `/sandbox/v1/reviews/${id}`)).json?.state === 'pending_review',
        'pending review',
      );
    const moved = await adminAt(a)('POST', `/sandbox/v1/tenants/${one.tenantId}/clock/advance`, {
      seconds: 72 * 3600 + 1,
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.fired.byLabel['review expiry']).toBe(1);
    const onB = (await adminAt(b)('GET', `/sandbox/v1/tenants/${one.tenantId}/clock`)).json;
    expect(onB.offsetSeconds).toBe(72 * 3600 + 1);
    expect(onB.advances[0]).toMatchObject({ tenantId: one.tenantId, fired: 1 });
    for (const sb of [a, b]) {
      expect((await adminAt(sb)('GET', `/sandbox/v1/reviews/${ids[0]}`)).json.state).toBe('expired');
      expect((await adminAt(sb)('GET', `/sandbox/v1/reviews/${ids[1]}`)).json.state).toBe('pending_review');
      expect((await adminAt(sb)('GET', `/sandbox/v1/tenants/${two.tenantId}/clock`)).json).toMatchObject({
        offsetSeconds: 0,
        pendingTimers: 1,
      });
    }
  });

  it('a fault rule scoped to a tenant, made on instance B, is seen and spent alike on both instances and touches no other tenant', async () => {
    const one = await tenant(a);
    const two = await tenant(b);
    const rule = await adminAt(b)('POST', '/sandbox/v1/faults', {
      mode: 'status',
      status: 503,
      path: '/api/screening/v1/usage',
      count: 2,
      tenantId: one.tenantId,
    });
    expect(rule.status, rule.text).toBe(201);
    for (const sb of [a, b])
      expect(
        (await adminAt(sb)('GET', `/sandbox/v1/faults?tenantId=${one.tenantId}`)).json.rules.map((r: any) => r.id),
      ).toEqual([rule.json.id]);
    const usage = (sb: RunningSandbox, key: string) => client(sb.listenUrl, key)('GET', `${SCREENING}/usage`);
    expect((await usage(a, two.apiKey)).status).toBe(200);
    expect((await usage(b, two.apiKey)).status).toBe(200);
    expect((await usage(a, one.apiKey)).status).toBe(503);
    const left = (await adminAt(b)('GET', `/sandbox/v1/faults?tenantId=${one.tenantId}`)).json.rules;
    expect(left).toEqual([expect.objectContaining({ id: rule.json.id, remaining: 1 })]);
    expect((await usage(b, one.apiKey)).status).toBe(503);
    expect((await usage(a, one.apiKey)).status).toBe(200);
    for (const sb of [a, b])
      expect((await adminAt(sb)('GET', `/sandbox/v1/faults?tenantId=${one.tenantId}`)).json.rules).toEqual([]);
  });

  it("a restarted instance replays each tenant's clock offset", async () => {
    const one = await tenant(a);
    expect(
      (await adminAt(b)('POST', `/sandbox/v1/tenants/${one.tenantId}/clock/advance`, { seconds: 5000 })).status,
    ).toBe(200);
    await a.close();
    a = await shared.start(db.url);
    const clock = (await adminAt(a)('GET', `/sandbox/v1/tenants/${one.tenantId}/clock`)).json;
    expect(clock.offsetSeconds).toBe(5000);
  });
});
