// Batches of tenants' calls run beside other instances' batches (D-173): under the log's lock taken shared and a lock
// of each of their tenants, appended under a short lock of the append alone. Checked through real instances on a
// real PostgreSQL:
// - drawn calls of tenants sent at once to two instances, some tenants served by one instance and some by both, with
//   steps of no tenant and of every tenant among them, leave every tenant and the operator's reads the same on both
//   and on a third instance started afterwards from the log; batches ran beside each other on both instances;
// - while a rule of no tenant exists, a tenant's call may fire it: batches run alone, the rule fires exactly as often
//   as its count allows across both instances, and the state of no tenant is the same on both.
// - the calls of tenants with a webhook listener connected (its board belongs to every tenant) run alone;
// - a tenant whose steps an instance skipped is loaded there, its skipped steps applied, before the batch of its call
//   takes any lock: another instance's calls of it never wait for that replay.
// The cross-instance races of store-postgres.test.ts (one request per idempotency key, wallets charged exactly to
// zero, audit pages while both append) run on this path too: each failed with the tenants' locks left out.

import pg from 'pg';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoreReport } from '../src/domain/store.js';
import { exportState } from '../src/domain/snapshot.js';
import type { RunningSandbox } from '../src/main.js';
import { LOG_LOCK } from '../src/replication/replica.js';
import './support/fast-check-seed.js';
import { withoutDurations } from './support/inProcess.js';
import { instancesPerTest, postgresUnavailable, sharedInstances, sqlRows as sql } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { killListenersAfterEach, listen, startReceiver } from './support/listen.js';
import { failSubmits, SCREENING, submitBody, waitFor } from './support/screening.js';
import { acrossTenants, sendTenantCalls, sliceOf, tenantCallArb, tenantOn } from './support/tenantCalls.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const PUBLIC_URL = 'http://sandbox.test';
const QUICK = { replicaTiming: { foreignIdleMs: 0, foreignIdleCalls: 0, sweepMs: 200 } };
// no snapshot while they run: the third instance applies the whole log, in its order
const shared = sharedInstances(PUBLIC_URL, { snapshotEvery: 1_000_000 });

type Batches = { alone: number; beside: number };
const batches = async (sb: RunningSandbox): Promise<Batches> => {
  const res = await client(sb.listenUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/store');
  expect(res.status, res.text).toBe(200);
  return (res.json as unknown as StoreReport).instance.partitions!.batches!;
};

/** A chain of drawn calls: its tenants are served by instance 0, by instance 1, or by both in turn. */
const chainArb = fc.record({
  served: fc.constantFrom('a', 'b', 'both'),
  calls: fc.array(tenantCallArb, { minLength: 4, maxLength: 12 }),
});

describe.skipIf(why !== null)('batches of tenants run beside other instances', () => {
  killListenersAfterEach();
  const { start, pair } = instancesPerTest(shared);

  it('drawn calls sent at once to two instances leave the state a start from the log rebuilds', async () => {
    const { url, a, b } = await pair(QUICK);
    let run = 0;
    const ids = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(chainArb, { minLength: 3, maxLength: 5 }), async (chains) => {
        // every chain at once, each one's calls in order: tenants served by one instance run beside the other's
        const made = await Promise.all(
          chains.map(({ served, calls }) => {
            const on = served === 'a' ? [a] : served === 'b' ? [b] : [a, b];
            return sendTenantCalls(on, calls, ++run);
          }),
        );
        for (const m of made) for (const t of m.tenants) ids.add(t.tenantId);
        for (const id of ids) expect(await sliceOf(b, id), `tenant ${id}`).toEqual(await sliceOf(a, id));
        expect(await acrossTenants(b)).toEqual(await acrossTenants(a));
      }),
      { numRuns: 4 },
    );
    // and many calls at once, so that batches overlap: of tenants held apart, and of two tenants whose calls reach
    // both instances at once (one request per idempotency key there)
    const tenants = await Promise.all(Array.from({ length: 6 }, (_, i) => tenantOn((i % 2 ? b : a).listenUrl)));
    for (let round = 0; round < 3; round++) {
      const out = await Promise.all(
        tenants.flatMap((t, i) =>
          Array.from({ length: 8 }, (_, j) =>
            client((i >= 4 ? j % 2 : i % 2) ? b.listenUrl : a.listenUrl, t.apiKey)(
              'POST',
              `${SCREENING}/screen`,
              submitBody(i === 5 ? { idempotencyKey: `beside-${round}` } : {}),
            ),
          ),
        ),
      );
      expect(out.filter((r) => r.status === 201)).toHaveLength(41);
      expect(out.filter((r) => r.status === 200)).toHaveLength(7);
      expect(new Set(out.slice(40).map((r) => r.json.requestId)).size).toBe(1);
    }
    for (const t of tenants) ids.add(t.tenantId);
    const [ba, bb] = [await batches(a), await batches(b)];
    expect(ba.beside, 'batches beside on a').toBeGreaterThan(0);
    expect(bb.beside, 'batches beside on b').toBeGreaterThan(0);
    // a third instance, started now, applies the log in its order: the same state as the two that ran it
    const c = await start(url, QUICK);
    for (const id of ids) {
      const onA = await sliceOf(a, id);
      expect(await sliceOf(b, id), `tenant ${id} on b`).toEqual(onA);
      expect(await sliceOf(c, id), `tenant ${id} on c`).toEqual(onA);
    }
    expect(await acrossTenants(c)).toEqual(await acrossTenants(a));
  }, 300_000);

  it('runs batches alone while a rule of no tenant may fire, which fires exactly its count across both instances', async () => {
    const { a, b } = await pair(QUICK);
    const tenants = await Promise.all(Array.from({ length: 4 }, (_, i) => tenantOn((i % 2 ? b : a).listenUrl)));
    const burst = () =>
      Promise.all(
        tenants.flatMap((t, i) =>
          Array.from({ length: 6 }, () =>
            client((i % 2 ? b : a).listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody()),
          ),
        ),
      );
    for (const res of await burst()) expect(res.status, res.text).toBe(201);
    const before = [await batches(a), await batches(b)];
    expect(before[0].beside + before[1].beside).toBeGreaterThan(0);
    await failSubmits(a.listenUrl, 30);
    // 24 calls while the rule stays: every one fails, and no batch ran beside another
    expect((await burst()).map((r) => r.status)).toEqual(Array.from({ length: 24 }, () => 503));
    const during = [await batches(a), await batches(b)];
    expect(during.map((x) => x.beside)).toEqual(before.map((x) => x.beside));
    // 24 more: the rule fires its last 6 times, on whichever instance
    const statuses = (await burst()).map((r) => r.status);
    expect(statuses.filter((s) => s === 503)).toHaveLength(6);
    expect(statuses.filter((s) => s === 201)).toHaveLength(18);
    const globalOf = (sb: RunningSandbox) => sb.replica!.read(async () => exportState(sb.core).global);
    expect(withoutDurations(await globalOf(b))).toEqual(withoutDurations(await globalOf(a)));
  }, 120_000);

  it("applies a tenant's skipped steps before its call's batch takes any lock", async () => {
    const { url, a, b } = await pair(QUICK);
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(a.listenUrl)];
    const screen = (sb: RunningSandbox, key: string) =>
      client(sb.listenUrl, key)('POST', `${SCREENING}/screen`, submitBody());
    // T's calls on a only, U's on b: b drops T and skips its steps
    await waitFor(async () => {
      expect((await screen(a, t.apiKey)).status).toBe(201);
      expect((await screen(b, u.apiKey)).status).toBe(201);
      return b.replica!.residencyActivity().skipped! > 0 ? true : undefined;
    }, 'steps of T skipped on b');
    const before = b.replica!.residencyActivity().replayed!;
    const lock = new pg.Client({ connectionString: url });
    await lock.connect();
    try {
      // with the log's lock held elsewhere, T's call on b waits for it, its skipped steps already applied
      await lock.query('SELECT pg_advisory_lock($1)', [LOG_LOCK]);
      const call = screen(b, t.apiKey);
      await waitFor(
        () => (b.replica!.residencyActivity().replayed! > before ? true : undefined),
        "T's skipped steps applied on b while the log's lock is held elsewhere",
      );
      await lock.query('SELECT pg_advisory_unlock($1)', [LOG_LOCK]);
      expect((await call).status).toBe(201);
    } finally {
      await lock.end();
    }
    expect(await sliceOf(b, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
  }, 60_000);

  it('an idle instance applies what another commits while it writes, not only at its sweep (D-191)', async () => {
    // a sweep far beyond the test: only following the writes can bring b up to date without a call on it
    const { url, a, b } = await pair({ replicaTiming: { sweepMs: 60_000 } });
    const t = await tenantOn(a.listenUrl);
    const screen = () => client(a.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    const logged = async () =>
      Number(
        (await sql<{ n: string }>(url, `SELECT count(*) AS n FROM sandbox_log WHERE partition = '${t.tenantId}'`))[0].n,
      );
    expect((await screen()).status).toBe(201);
    // one call on b reads a's steps: b has seen another instance write
    expect((await client(b.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`)).status).toBe(200);
    const applied = () => b.replica!.partitionCounts.tenant;
    const [before, loggedBefore] = [applied(), await logged()];
    for (let i = 0; i < 20; i++) expect((await screen()).status).toBe(201);
    const wrote = (await logged()) - loggedBefore;
    expect(wrote).toBeGreaterThanOrEqual(20);
    // every step of T that a wrote is applied (or skipped) on b, with no call on b
    await waitFor(
      () => (applied() - before >= wrote ? true : undefined),
      `b applying a's ${wrote} steps without a call`,
      10_000,
    );
  }, 60_000);

  it('runs the batches of tenants with a webhook listener connected alone', async () => {
    const { a, b } = await pair(QUICK);
    const rx = await startReceiver();
    try {
      const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(b.listenUrl)];
      await listen(b.listenUrl, t.apiKey, rx.url);
      await listen(a.listenUrl, u.apiKey, rx.url);
      const burst = async () => {
        const out = await Promise.all(
          [t, u].flatMap((x, i) =>
            Array.from({ length: 10 }, () =>
              client((i ? b : a).listenUrl, x.apiKey)('POST', `${SCREENING}/screen`, submitBody()),
            ),
          ),
        );
        for (const res of out) expect(res.status, res.text).toBe(201);
      };
      await burst();
      const before = [await batches(a), await batches(b)];
      await burst();
      const after = [await batches(a), await batches(b)];
      expect(after.map((x) => x.beside)).toEqual(before.map((x) => x.beside));
      expect(after[0].alone + after[1].alone).toBeGreaterThan(before[0].alone + before[1].alone);
    } finally {
      await rx.close();
    }
  }, 90_000);
});
