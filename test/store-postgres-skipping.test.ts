// An instance of a shared sandbox skips the steps of the tenants it does not hold (D-172): a tenant whose calls run
// on another instance is dropped here after a while, its steps are skipped, and they are applied from the log when
// the tenant is loaded here again. Checked through real instances on a real PostgreSQL:
// - drawn calls of tenants over two instances leave every tenant's slice, read on either, the same, and the
//   operator's reads across tenants alike; steps were skipped and replayed; an instance started from their snapshots
//   while they run, and one started after the three stopped at once, hold every tenant the same;
// - a call of a tenant whose stored state is being written waits for the write outside the queue: another
//   tenant's call sent after it is answered first (D-186);
// - a tenant loaded from a stored state that holds a webhook attempt in flight, whose start this instance skipped,
//   awaits the attempt's answer from the log and ends as the instance that made it holds it (D-185);
// - a tenant's call that changed the state of no tenant (a rule of no tenant fired, a failed sign-in) is applied
//   by every instance: the global state is the same on both;
// - the instance holding a tenant killed, the other takes its timers up without a call of it; it reads the tenants
//   it takes up ahead of their loads, another tenant's calls answered meanwhile (D-188);
// - a start from a snapshot whose instance skipped a tenant's steps applies them (the log kept them), also when the
//   tenant is loaded by a later step of it that the start replays.
// - before a step of no tenant, only the tenants behind whose skipped steps no stored state covers are loaded;
// - a tenant moved to an instance that skipped its steps has them applied between batches (D-175): another tenant's
//   calls run there meanwhile, its own wait, no snapshot is taken, and the tenant ends as its other instance holds it;
//   a stop during the move answers its calls and leaves a snapshot with the tenant whole; a step of no tenant during
//   the move waits for the tenant's steps;
// - a tenant whose skipped steps are gone from the log, or include one another version wrote, is refused however it
//   is loaded: its call is answered 503 with the reason, and the instance stops (D-176); a call taken in one batch
//   after a read that stopped the instance is refused and not written.

import pg from 'pg';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoreReport } from '../src/domain/store.js';
import { exportState } from '../src/domain/snapshot.js';
import type { RunningSandbox } from '../src/main.js';
import { LOG_LOCK } from '../src/replication/replica.js';
import './support/fast-check-seed.js';
import { DashboardClient } from './support/dashboard.js';
import { withoutDurations } from './support/inProcess.js';
import { spawnCliInstance } from './support/instances.js';
import { instancesPerTest, postgresUnavailable, sharedInstances, sqlRows as sql } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { failSubmits, SCREENING, startReceiver, submitBody, waitFor } from './support/screening.js';
import { acrossTenants, sendTenantCalls, sliceOf, tenantCallArb, tenantOn } from './support/tenantCalls.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const PUBLIC_URL = 'http://sandbox.test';
// a tenant whose steps come only from the other instance is dropped at once; a gone instance is noticed within 1 s
const QUICK = { replicaTiming: { foreignIdleMs: 0, foreignIdleCalls: 0, sweepMs: 200 } };
const shared = sharedInstances(PUBLIC_URL, { snapshotEvery: 25, verifyCarriedParts: true });

type Residency = NonNullable<StoreReport['instance']['residency']>;
const residency = async (sb: RunningSandbox): Promise<Residency> => {
  const res = await client(sb.listenUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/store');
  expect(res.status, res.text).toBe(200);
  return (res.json as unknown as StoreReport).instance.residency!;
};

/** What belongs to no tenant on an instance, after every step committed so far is applied there. */
const globalOf = (sb: RunningSandbox) =>
  sb.replica!.read(async () => {
    const g = exportState(sb.core).global as Record<string, unknown>;
    return { faults: g.faults, accounts: g.accounts };
  });

/** A submit of the key's tenant through an instance. */
const screen = (base: string, key: string) => client(base, key)('POST', `${SCREENING}/screen`, submitBody());

const spawn = (url: string, env: Record<string, string> = {}) =>
  spawnCliInstance(url, { adminToken: ADMIN_TOKEN, publicUrl: PUBLIC_URL }, { env });

describe.skipIf(why !== null)('skipping the steps of tenants an instance does not hold', () => {
  const { database, start, pair } = instancesPerTest(shared);

  it('every tenant is the same on both instances after drawn calls over both, its skipped steps replayed', async () => {
    // snapshots every 10 steps: the third instance below starts from one
    const { url, a, b } = await pair({ ...QUICK, snapshotEvery: 10 });
    let run = 0;
    const ids = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(tenantCallArb, { minLength: 6, maxLength: 16 }), async (calls) => {
        run++;
        const { tenants } = await sendTenantCalls([a, b], calls, run);
        for (const t of tenants) ids.add(t.tenantId);
        // each tenant read on both (a read loads it where it is not held, its skipped steps applied)
        for (const id of ids) expect(await sliceOf(b, id), `tenant ${id}`).toEqual(await sliceOf(a, id));
        expect(await acrossTenants(b)).toEqual(await acrossTenants(a));
      }),
      { numRuns: 6 },
    );
    const [ra, rb] = [await residency(a), await residency(b)];
    expect(ra.skipped! + rb.skipped!).toBeGreaterThan(0);
    expect(ra.replayed! + rb.replayed!).toBeGreaterThan(0);
    // a third instance, started from the snapshots the two wrote (each listing the tenants it skipped) while they run,
    // and a fourth from the snapshot of the two stopping at once: every tenant as the two left it
    const slices = new Map<string, unknown>();
    for (const id of ids) slices.set(id, await sliceOf(a, id));
    // a snapshot is due every 10 steps, and is written in the background: on a slow machine the first may still be
    // under way when the calls end
    const written = await waitFor(
      async () => {
        const [row] = await sql<{ seq: string | null }>(url, 'SELECT max(seq) AS seq FROM sandbox_snapshots');
        return row.seq === null ? undefined : Number(row.seq);
      },
      'a snapshot written by the two',
      30_000,
    );
    const c = await start(url, QUICK);
    expect(c.replica!.snapshotActivity().loadedFrom!.seq).toBeGreaterThanOrEqual(written);
    for (const id of ids) expect(await sliceOf(c, id), `tenant ${id} on c`).toEqual(slices.get(id));
    await Promise.all([a.close(), b.close(), c.close()]);
    const d = await start(url, QUICK);
    for (const id of ids) expect(await sliceOf(d, id), `tenant ${id} on d`).toEqual(slices.get(id));
  }, 240_000);

  it("applies everywhere a tenant's call that changed the state of no tenant", async () => {
    const { a, b } = await pair(QUICK);
    // T's calls run on a only, U's on b only: each instance drops the other's tenant
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(a.listenUrl)];
    for (let i = 0; i < 3; i++) {
      expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
      expect((await screen(b.listenUrl, u.apiKey)).status).toBe(201);
    }
    // more of T's calls until b, having dropped T, skips one
    await waitFor(
      async () =>
        (await client(a.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`)) && (await residency(b)).skipped! > 0
          ? true
          : undefined,
      'steps skipped on b',
    );
    // a rule of no tenant with a count, consumed by both tenants' calls on their own instances
    await failSubmits(a.listenUrl, 3);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await screen(a.listenUrl, t.apiKey)).status);
      statuses.push((await screen(b.listenUrl, u.apiKey)).status);
    }
    expect(statuses).toEqual([503, 503, 503, 201, 201, 201]);
    // failed sign-ins of T's account on a, counted per address on both
    const browser = new DashboardClient(a.listenUrl, '127.0.0.9');
    expect((await browser.signUp('skip-coupling@example.com', 'correct horse battery')).status).toBe(201);
    for (let i = 0; i < 3; i++) await browser.signIn('skip-coupling@example.com', 'wrong password');
    const [onA, onB] = [await globalOf(a), await globalOf(b)];
    expect(onB).toEqual(onA);
    expect(JSON.stringify(onA.accounts)).toContain('127.0.0.9');
    for (const id of [t.tenantId, u.tenantId]) expect(await sliceOf(b, id)).toEqual(await sliceOf(a, id));
  }, 120_000);

  it('keeps a tenant whose call waits here, however long, though its steps come from the other instance', async () => {
    // every batch cut after its first step: a call can wait in the queue across a batch and the drops after it
    const timing = { replicaTiming: { foreignIdleMs: 300, foreignIdleCalls: 0, sweepMs: 200, batchBudgetMs: 0 } };
    const { url, a, b } = await pair(timing);
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(a.listenUrl)];
    const lock = new pg.Client({ connectionString: url });
    await lock.connect();
    try {
      // b serves both; with the log's lock held, a call of T on a waits for it first, then b's calls of U and T
      for (const x of [u, t]) expect((await screen(b.listenUrl, x.apiKey)).status).toBe(201);
      const before = await residency(b);
      await lock.query('SELECT pg_advisory_lock($1)', [LOG_LOCK]);
      const onA = screen(a.listenUrl, t.apiKey);
      await new Promise((r) => setTimeout(r, 100));
      const waiting = [screen(b.listenUrl, u.apiKey), screen(b.listenUrl, t.apiKey)];
      // longer than the drop's wait: T's call on b arrived long before b applies a's step of T, in the batch of U's
      // call (a batch is cut after one step here), after which idle tenants are dropped
      await new Promise((r) => setTimeout(r, 700));
      await lock.query('SELECT pg_advisory_unlock($1)', [LOG_LOCK]);
      for (const res of await Promise.all([onA, ...waiting])) expect(res.status, res.text).toBe(201);
      const after = await residency(b);
      expect([after.evicted, after.loaded]).toEqual([before.evicted, before.loaded]);
    } finally {
      await lock.end();
    }
  }, 60_000);

  it("a call of a tenant whose stored state is being written waits outside the queue: others' calls run meanwhile", async () => {
    // on b, a tenant dropped for the other instance's steps stays in writing 3 s after its state is stored
    const { a, b } = await pair({ replicaTiming: { ...QUICK.replicaTiming, dropPauseMs: 3_000 } });
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(a.listenUrl)];
    for (const x of [u, t]) expect((await screen(b.listenUrl, x.apiKey)).status).toBe(201);
    // T's calls on a until b drops T: its stored state's write begins, and T leaves b's memory at once (D-172)
    await waitFor(
      async () =>
        (await screen(a.listenUrl, t.apiKey)) && (await residency(b)) && !b.core.tenants.has(t.tenantId)
          ? true
          : undefined,
      'T dropped on b',
    );
    // T's call on b waits for the write; U's call, sent after it, is answered first (it waited for the whole write
    // in T's batch, D-186)
    const answered: string[] = [];
    const onT = screen(b.listenUrl, t.apiKey).then((res) => (answered.push('T'), res));
    await new Promise((r) => setTimeout(r, 200));
    const onU = screen(b.listenUrl, u.apiKey).then((res) => (answered.push('U'), res));
    for (const res of await Promise.all([onT, onU])) expect(res.status, res.text).toBe(201);
    expect(answered).toEqual(['U', 'T']);
    expect(await sliceOf(b, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
  }, 60_000);

  it('finishes, as the other instance does, an attempt in flight in a stored state it loads, whose start it skipped', async () => {
    const { a, b } = await pair({ ...QUICK, snapshotEvery: 5 });
    const receiver = await startReceiver();
    try {
      const admin = client(a.listenUrl, ADMIN_TOKEN);
      const created = await admin('POST', '/sandbox/v1/tenants', { planTier: 'scale', webhookUrl: receiver.url });
      expect(created.status, created.text).toBe(201);
      const t = created.json as { tenantId: string; apiKey: string };
      const u = await tenantOn(b.listenUrl);
      // T's calls on a, U's on b, answered at once: b drops T and skips its steps
      await waitFor(async () => {
        expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
        expect((await screen(b.listenUrl, u.apiKey)).status).toBe(201);
        return (await residency(b)).skipped! > 0 ? true : undefined;
      }, 'T skipped on b');
      const deliveries = async (base: string) => {
        const res = await client(base, ADMIN_TOKEN)(
          'GET',
          `/sandbox/v1/webhooks/deliveries?tenantId=${t.tenantId}&limit=200`,
        );
        expect(res.status, res.text).toBe(200);
        return res.json.deliveries as { id: string; status: string; attempts: unknown[] }[];
      };
      const allDelivered = async () =>
        (await deliveries(a.listenUrl)).every((d) => d.status === 'delivered') ? true : undefined;
      await waitFor(allDelivered, 'no attempt in flight');
      // an attempt a makes and awaits; b skips the step that started it
      receiver.hold();
      const skippedBefore = (await residency(b)).skipped!;
      const arrived = receiver.received.length;
      expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
      await waitFor(() => (receiver.received.length > arrived ? true : undefined), 'the attempt at the receiver');
      const storeOfA = async () => (await admin('GET', '/sandbox/v1/store')).json;
      const started = Number((await storeOfA()).instance.appliedSeq);
      // a snapshot of T with the attempt in flight, written by a (T's calls go on there; U's on b are skipped there)
      await waitFor(async () => {
        expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
        const store = await storeOfA();
        return Number(store.snapshots.newest?.seq ?? 0) >= started && store.instance.lastWritten?.seq >= started
          ? true
          : undefined;
      }, 'a snapshot of T with the attempt in flight');
      expect((await residency(b)).skipped!).toBeGreaterThan(skippedBefore);
      // the answers arrive: a records them; b, which never saw the attempts start, loads T from that snapshot
      receiver.release();
      await waitFor(allDelivered, 'every delivery delivered on a');
      const onB = await deliveries(b.listenUrl);
      expect(onB).toEqual(await deliveries(a.listenUrl));
    } finally {
      receiver.release();
      await receiver.close();
    }
  }, 60_000);

  it('drops a tenant served elsewhere only once enough calls of other tenants arrived here since its last', async () => {
    const timing = { replicaTiming: { foreignIdleMs: 0, foreignIdleCalls: 4, sweepMs: 200 } };
    const { a, b } = await pair(timing);
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(a.listenUrl)];
    // b serves T once, then only U; T's calls go on on a
    expect((await screen(b.listenUrl, t.apiKey)).status).toBe(201);
    const held = async () => {
      expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
      expect((await screen(b.listenUrl, u.apiKey)).status).toBe(201);
      // the drop is written in the background: a read of no tenant is a turn of b's queue
      await residency(b);
      return b.core.tenants.has(t.tenantId);
    };
    // U's calls 1 to 3 since T's: T stays; from the 4th it goes
    for (let i = 1; i <= 3; i++) expect(await held(), `after ${i} calls of U`).toBe(true);
    await waitFor(async () => ((await held()) ? undefined : true), 'T dropped on b');
  }, 60_000);

  it('drops a tenant served elsewhere after a longer while with no calls of other tenants here (D-192)', async () => {
    const timing = { replicaTiming: { foreignIdleMs: 0, foreignIdleCalls: 1_000_000, foreignIdleLongMs: 1_500 } };
    const { a, b } = await pair(timing);
    const t = await tenantOn(a.listenUrl);
    // b serves T once, then nothing; T's calls go on on a, and b follows them (D-191)
    const servedAt = performance.now();
    expect((await screen(b.listenUrl, t.apiKey)).status).toBe(201);
    let droppedAt = 0;
    await waitFor(
      async () => {
        expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
        await new Promise((r) => setTimeout(r, 100));
        if (b.core.tenants.has(t.tenantId)) return undefined;
        droppedAt = performance.now();
        return true;
      },
      'T dropped on b',
      15_000,
    );
    expect(droppedAt - servedAt).toBeGreaterThanOrEqual(1_500);
    // its state is stored, and loaded again by its next call on b, as a holds it
    expect((await screen(b.listenUrl, t.apiKey)).status).toBe(201);
    expect(await sliceOf(b, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
  }, 60_000);

  it('forgets the tenants served elsewhere that leave at once over rounds, not in one turn (D-192)', async () => {
    // one tenant per round (no slice), rounds at least 300 ms apart
    const timing = { replicaTiming: { foreignIdleMs: 0, foreignIdleCalls: 0, dropSliceMs: 0, dropPauseMs: 300 } };
    const { a, b } = await pair(timing);
    const tenants: Awaited<ReturnType<typeof tenantOn>>[] = [];
    for (let i = 0; i < 4; i++) tenants.push(await tenantOn(a.listenUrl));
    // b serves each once: all four held there
    for (const t of tenants) expect((await screen(b.listenUrl, t.apiKey)).status).toBe(201);
    const held = () => tenants.filter((t) => b.core.tenants.has(t.tenantId)).length;
    expect(held()).toBe(4);
    // their calls go on on a: b follows them (D-191), and they leave b; how many it holds, between its turns
    const counts = [held()];
    const sampler = setInterval(() => {
      if (held() !== counts[counts.length - 1]) counts.push(held());
    }, 10);
    try {
      await waitFor(
        async () => {
          for (const t of tenants) expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
          return counts[counts.length - 1] === 0 ? true : undefined;
        },
        'the four dropped on b',
        20_000,
      );
    } finally {
      clearInterval(sampler);
    }
    expect(counts).toEqual([4, 3, 2, 1, 0]);
    // each stored, and loaded again by its next call on b as a holds it
    for (const t of tenants) {
      expect((await screen(b.listenUrl, t.apiKey)).status).toBe(201);
      expect(await sliceOf(b, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
    }
  }, 60_000);

  it('takes up the timers of a tenant whose instance was killed, with no call of it', async () => {
    const url = await database();
    const doomed = await spawn(url);
    const survivor = await start(url, QUICK);
    try {
      const admin = client(doomed.base, ADMIN_TOKEN);
      const t = (await admin('POST', '/sandbox/v1/tenants', { planTier: 'scale' })).json as {
        tenantId: string;
        apiKey: string;
      };
      const auto = { autoReview: { afterSeconds: 4, rule: 'approve' } };
      expect((await admin('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, auto)).status).toBe(200);
      const res = await screen(doomed.base, t.apiKey);
      expect(res.status, res.text).toBe(201);
      // the survivor skipped those steps, and has seen the doomed instance since
      await waitFor(
        async () =>
          (await client(doomed.base, t.apiKey)('GET', `${SCREENING}/usage`)) && (await residency(survivor)).behind! > 0
            ? true
            : undefined,
        'the tenant behind',
      );
      await new Promise((r) => setTimeout(r, 600));
      expect(survivor.core.tenants.has(t.tenantId)).toBe(false);
      doomed.child.kill('SIGKILL');
      // no call or read of the tenant: the survivor loads it once the doomed instance's reports stop
      await waitFor(() => (survivor.core.tenants.has(t.tenantId) ? true : undefined), 'the tenant loaded', 10_000);
      // its skipped steps applied after it (between batches, D-175)
      const taken = await waitFor(async () => {
        const r = await residency(survivor);
        return r.behind === 0 && r.replaying === 0 ? r : undefined;
      }, 'its skipped steps applied');
      expect(taken.replayed).toBeGreaterThan(0);
      const review = async () =>
        (await client(survivor.listenUrl, ADMIN_TOKEN)('GET', `/sandbox/v1/reviews/${res.json.requestId as string}`))
          .json;
      const decided = await waitFor(
        async () => ((await review()).decision ? await review() : undefined),
        'the review',
        15_000,
      );
      expect(decided.decision).toMatchObject({ decision: 'approved' });
    } finally {
      doomed.child.kill('SIGKILL');
    }
  }, 90_000);

  it("takes up a killed instance's tenants while its own tenants' calls go on", async () => {
    const url = await database();
    const doomed = await spawn(url);
    // every read of stored states takes 2.5 s: taken up in one turn of the queue, the tenants held U's calls that long
    const survivor = await start(url, { replicaTiming: { ...QUICK.replicaTiming, readPauseMs: 2_500 } });
    try {
      const held = [await tenantOn(doomed.base), await tenantOn(doomed.base)];
      for (const t of held) expect((await screen(doomed.base, t.apiKey)).status).toBe(201);
      const u = await tenantOn(survivor.listenUrl);
      expect((await screen(survivor.listenUrl, u.apiKey)).status).toBe(201);
      await waitFor(
        async () =>
          (await Promise.all(held.map((t) => screen(doomed.base, t.apiKey)))).every((r) => r.status === 201) &&
          (await residency(survivor)).behind === 2
            ? true
            : undefined,
        'both tenants behind on the survivor',
      );
      // seen since by the survivor's sweeps
      await new Promise((r) => setTimeout(r, 600));
      doomed.child.kill('SIGKILL');
      // U's reads, one after the other, until both tenants are in memory on the survivor
      const waits: number[] = [];
      const loaded = () => held.every((t) => survivor.core.tenants.has(t.tenantId));
      const until = Date.now() + 20_000;
      while (!loaded() && Date.now() < until) {
        const began = performance.now();
        const res = await client(survivor.listenUrl, u.apiKey)('GET', `${SCREENING}/usage`);
        expect(res.status, res.text).toBe(200);
        waits.push(performance.now() - began);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(loaded(), 'both tenants taken up').toBe(true);
      expect(Math.max(...waits), `U's reads took ${waits.map(Math.round).join(', ')} ms`).toBeLessThan(1_500);
      const taken = await waitFor(async () => {
        const r = await residency(survivor);
        return r.behind === 0 && r.replaying === 0 ? r : undefined;
      }, 'their skipped steps applied');
      expect(taken.replayed).toBeGreaterThan(0);
    } finally {
      doomed.child.kill('SIGKILL');
    }
  }, 90_000);

  it('a start from a snapshot whose instance skipped steps applies them: the log keeps them through pruning', async () => {
    const url = await database();
    // the doomed instance writes no snapshot; the other writes one every 5 steps and prunes
    const doomed = await spawn(url, { SANDBOX_SNAPSHOT_EVERY: '1000000' });
    const writer = await shared.start(url, {
      ...QUICK,
      snapshotEvery: 5,
      replicaTiming: { foreignIdleMs: 0, foreignIdleCalls: 0 },
    });
    const admin = client(doomed.base, ADMIN_TOKEN);
    const [t, u] = [await tenantOn(doomed.base), await tenantOn(writer.listenUrl)];
    try {
      for (let i = 0; i < 12; i++) {
        expect((await screen(doomed.base, t.apiKey)).status).toBe(201);
        expect((await screen(writer.listenUrl, u.apiKey)).status).toBe(201);
      }
      expect((await admin('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { name: 'skipped' })).status).toBe(200);
      expect((await residency(writer)).behind).toBe(1);
    } finally {
      doomed.child.kill('SIGKILL');
    }
    // the killed instance's report forgotten (as 30 s later): only the snapshots keep the log for a start
    await sql(url, 'DELETE FROM sandbox_instances');
    // the writer stops before it notices: its snapshot holds no part of T, only that its steps were skipped, and it
    // prunes the log up to the older snapshot it keeps
    await writer.close();
    const c = await start(url);
    const rows = await sql<{ log_from: string | null; first: string }>(
      url,
      'SELECT log_from, (SELECT min(seq) FROM sandbox_log) AS first FROM sandbox_snapshots ORDER BY seq LIMIT 1',
    );
    // the log was pruned, up to the first step skipped
    expect(rows[0].log_from).not.toBeNull();
    expect(Number(rows[0].first)).toBe(Number(rows[0].log_from));
    expect((await residency(c)).replayed).toBeGreaterThan(0);
    const slice = (await sliceOf(c, t.tenantId)) as { tenant: { name: string } };
    expect(JSON.stringify(slice)).toContain('"name":"skipped"');
    expect(withoutDurations(await c.replica!.rebuildTenant(t.tenantId))).toEqual(slice);
  }, 120_000);

  it("a start replaying a tenant's later steps first applies the steps its snapshot's instance skipped", async () => {
    const url = await database();
    // only stop snapshots: the one b leaves is the newest when c starts
    const opts = { ...QUICK, snapshotEvery: 1_000_000 };
    const a = await start(url, opts);
    const b = await start(url, opts);
    const t = await tenantOn(a.listenUrl);
    // T's calls on a only: b drops T and skips its steps
    await waitFor(async () => {
      expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
      return (await residency(b)).skipped! > 0 ? true : undefined;
    }, 'steps of T skipped on b');
    for (let i = 0; i < 3; i++) expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
    expect((await residency(b)).behind).toBe(1);
    await b.close();
    // steps of T after b's stop snapshot: c's start replays them, loading T as they come
    for (let i = 0; i < 3; i++) expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
    const c = await start(url, opts);
    expect(c.replica!.snapshotActivity().loadedFrom!.seq).toBeGreaterThan(0);
    expect(await sliceOf(c, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
    expect((await residency(c)).replayed).toBeGreaterThan(0);
  }, 120_000);

  it('loads before a step of no tenant only the tenants behind whose skipped steps no stored state covers', async () => {
    const { url, a, b } = await pair({ ...QUICK, snapshotEvery: 1 });
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(b.listenUrl)];
    // T's calls on a only, U's on b: b drops T and skips its steps
    await waitFor(async () => {
      expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
      expect((await screen(b.listenUrl, u.apiKey)).status).toBe(201);
      return (await residency(b)).skipped! > 0 ? true : undefined;
    }, 'steps of T skipped on b');
    // a snapshot of a, which holds T, at or after T's last step; then b's sweeps learn that it covers T
    const [{ last }] = await sql<{ last: string }>(
      url,
      `SELECT max(seq) AS last FROM sandbox_log WHERE partition = '${t.tenantId}'`,
    );
    await waitFor(async () => {
      const [{ seq }] = await sql<{ seq: string | null }>(url, 'SELECT max(seq) AS seq FROM sandbox_snapshots');
      return seq !== null && Number(seq) >= Number(last) ? true : undefined;
    }, "a snapshot covering T's last step");
    await new Promise((r) => setTimeout(r, 1_000));
    const before = b.replica!.residencyActivity();
    expect(before.behind).toBeGreaterThan(0);
    // a rule of no tenant made through b: the tenants behind whose steps no stored state covers are loaded first
    await failSubmits(b.listenUrl, 1);
    expect(b.replica!.residencyActivity().loaded).toBe(before.loaded);
    expect(await sliceOf(b, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
  }, 60_000);
  /**
   * Two instances; tenant T's calls run on a until b skips them, then 200 more (replays of one key: one credit); then a
   * call of T sent to b (T moves there), answered once b is seen applying T's skipped steps. One skipped step is
   * applied per turn between batches, 10 ms apart, so the move spans many batches. No snapshot of a stores T's state
   * meanwhile (b loads the state it wrote as it dropped T); b takes one every `bSnapshotEvery` steps.
   */
  async function movingTenant(bSnapshotEvery: number) {
    const timing = { replicaTiming: { ...QUICK.replicaTiming, replaySliceMs: 0, replayPauseMs: 10 } };
    const url = await database();
    const [a, b] = await Promise.all([
      start(url, { ...timing, snapshotEvery: 1e6 }),
      start(url, { ...timing, snapshotEvery: bSnapshotEvery }),
    ]);
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(a.listenUrl)];
    expect((await screen(b.listenUrl, u.apiKey)).status).toBe(201);
    const again = submitBody();
    const onA = () => client(a.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, again);
    await waitFor(
      async () => (await onA()) && ((await residency(b)).skipped! > 0 ? true : undefined),
      'T skipped on b',
    );
    for (let i = 0; i < 10; i++) await Promise.all(Array.from({ length: 20 }, onA));
    const before = await residency(b);
    expect(before.behind).toBe(1);
    const moved = client(b.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`);
    let settled = false;
    void moved.then(() => (settled = true));
    await waitFor(async () => ((await residency(b)).replaying === 1 ? true : undefined), 'T replaying on b');
    return { url, a, b, t, u, onA, before, moved, settled: () => settled };
  }

  it("a tenant moved here has its skipped steps applied between batches: other tenants' calls run meanwhile", async () => {
    const { a, b, t, u, onA, before, moved, settled } = await movingTenant(5);
    const snapshotted = () => b.replica!.snapshotActivity().lastWritten?.seq;
    await b.replica!.read(async () => {});
    const last = snapshotted();
    // meanwhile a goes on serving T (b skips those steps too, and applies them after the others), and U's call runs
    // on b while T's call waits
    for (const res of await Promise.all(Array.from({ length: 10 }, onA))) expect(res.status).toBe(200);
    // (five in a row: one of their steps is a multiple of 5, which makes a snapshot of b due)
    for (let i = 0; i < 5; i++) expect((await screen(b.listenUrl, u.apiKey)).status).toBe(201);
    // (a snapshot's write takes a moment: one taken now would be written within it)
    await new Promise((r) => setTimeout(r, 300));
    const during = await residency(b);
    expect(during.replaying).toBe(1);
    expect(during.skipped! - before.skipped!).toBeGreaterThanOrEqual(10);
    expect(settled()).toBe(false);
    // b's snapshot, due every 5 steps, waits for T's: a snapshot of b holds no tenant part-way through its steps
    expect(snapshotted()).toBe(last);
    expect((await moved).status).toBe(200);
    await waitFor(async () => ((snapshotted() ?? 0) > (last ?? 0) ? true : undefined), "b's next snapshot");
    const after = await residency(b);
    expect(after.replaying).toBe(0);
    expect(after.replayed! - before.replayed!).toBeGreaterThanOrEqual(200);
    // T's calls on b see every step of T, and its slice is a's
    const usage = async (base: string) => (await client(base, t.apiKey)('GET', `${SCREENING}/usage`)).json;
    expect(await usage(b.listenUrl)).toEqual(await usage(a.listenUrl));
    expect(await sliceOf(b, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
  }, 120_000);

  it("a stop during a tenant's move answers its calls and leaves a snapshot with the tenant whole", async () => {
    const { url, a, b, t, onA, moved } = await movingTenant(1e6);
    // steps of T b skips during the move, then b stops
    for (const res of await Promise.all(Array.from({ length: 10 }, onA))) expect(res.status).toBe(200);
    expect((await residency(b)).replaying).toBe(1);
    await b.close();
    expect((await moved).status).toBe(200);
    // an instance started from b's stop snapshot holds T as a does
    const c = await start(url, QUICK);
    expect(c.replica!.snapshotActivity().loadedFrom!.seq).toBeGreaterThan(0);
    expect(await sliceOf(c, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
  }, 120_000);

  it("a step of no tenant during a tenant's move waits for the tenant's skipped steps", async () => {
    const { a, b, t, u, moved } = await movingTenant(1e6);
    // a rule of no tenant made on a, applied on b (in the batch of U's call there) while T's steps are being applied
    // there: T's steps ran before it (on a), so they must not meet it on b
    await failSubmits(a.listenUrl, 3);
    const onB = await client(b.listenUrl, u.apiKey)('GET', `${SCREENING}/usage`);
    expect(onB.status).toBe(200);
    expect((await moved).status).toBe(200);
    expect(await globalOf(b)).toEqual(await globalOf(a));
    expect(await sliceOf(b, t.tenantId)).toEqual(await sliceOf(a, t.tenantId));
  }, 120_000);

  // the log keeps a tenant's steps an instance skipped (D-172); were they gone anyway (removed by hand, or by another
  // version's pruning), loading the tenant without them would make a state the log never had: it is refused. So is
  // loading it when one of them cannot be applied here (written by another version, D-176): the tenant would be
  // held without that step, and the instance stops however the tenant is loaded
  const LOADS = [
    ["the tenant's own call", (b: RunningSandbox, key: string) => screen(b.listenUrl, key)],
    [
      "an operator's read of every tenant",
      (b: RunningSandbox) => client(b.listenUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/tenants'),
    ],
  ] as const;
  const FAULTS = [
    {
      name: 'are no longer in the log',
      // every step but the log's last removed
      make: () => 'DELETE FROM sandbox_log WHERE seq < (SELECT max(seq) FROM sandbox_log)',
      refusal: (tenantId: string) =>
        `the steps of tenant ${tenantId} skipped here \\(from step \\d+\\) are no longer in the log \\(it starts at step \\d+\\)`,
      restart: /pruned|no longer in the log/,
    },
    {
      name: 'include one another version wrote',
      // the tenant's last step, applied on a and skipped on b, marked as another version's
      make: (tenantId: string) =>
        `UPDATE sandbox_log SET code_version = 'another-version' WHERE seq = (SELECT max(seq) FROM sandbox_log WHERE partition = '${tenantId}')`,
      refusal: () =>
        `step \\d+ was written by log format \\d+ / sandbox another-version; this instance is log format \\d+ / sandbox \\S+ and does not replay another version's steps`,
      // a start reads that step only when it is after the snapshot the start loads
      restart: null,
    },
  ];
  for (const fault of FAULTS)
    for (const [trigger, load] of LOADS)
      it(`refuses to load a tenant whose skipped steps ${fault.name} (${trigger})`, async () => {
        const stopped: Error[] = [];
        const { url, a, b } = await pair({ ...QUICK, onStoreFailure: (e) => stopped.push(e) });
        const t = await tenantOn(a.listenUrl);
        await waitFor(
          async () => ((await screen(a.listenUrl, t.apiKey)) && (await residency(b)).skipped! > 0 ? true : undefined),
          'steps of T skipped on b',
        );
        // two more, so that T's skipped steps reach past the one step the log keeps below
        for (let i = 0; i < 2; i++) expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
        const before = await sliceOf(a, t.tenantId);
        // every step committed so far applied (or skipped) on b, then the fault made in the log
        await globalOf(b);
        await sql(url, fault.make(t.tenantId));
        const refusal = fault.refusal(t.tenantId);
        // the call is refused with the envelope naming the fault, and the instance stops
        const res = await load(b, t.apiKey);
        expect(res.status, res.text).toBe(503);
        expect(res.json?.error?.code).toBe('service_disabled');
        expect(res.json?.error?.message).toMatch(new RegExp(refusal));
        expect(stopped.map((e) => e.message)).toEqual([expect.stringMatching(new RegExp(`^${refusal}$`))]);
        expect((await client(b.listenUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/tenants')).status).toBe(503);
        if (fault.restart) await expect(start(url, QUICK)).rejects.toThrow(fault.restart);
        // the instance that held the tenant serves it as before
        expect(await sliceOf(a, t.tenantId)).toEqual(before);
        expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
      }, 120_000);

  it('runs no call of a batch after a read in it that stopped the instance: it is refused, and not in the log', async () => {
    // batches as long as they come: the read and the call after it are taken in one
    const stopped: Error[] = [];
    const timing = { replicaTiming: { ...QUICK.replicaTiming, batchBudgetMs: 60_000 } };
    const { url, a, b } = await pair({ ...timing, onStoreFailure: (e) => stopped.push(e) });
    // T's calls run on a, its steps skipped on b; U's on b, which holds it
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(b.listenUrl)];
    expect((await screen(b.listenUrl, u.apiKey)).status).toBe(201);
    await waitFor(
      async () => ((await screen(a.listenUrl, t.apiKey)) && (await residency(b)).skipped! > 0 ? true : undefined),
      'steps of T skipped on b',
    );
    for (let i = 0; i < 2; i++) expect((await screen(a.listenUrl, t.apiKey)).status).toBe(201);
    await globalOf(b);
    await sql(url, FAULTS[0].make(t.tenantId));
    const stepsOfU = async () =>
      Number(
        (await sql<{ n: string }>(url, `SELECT count(*) AS n FROM sandbox_log WHERE partition = '${u.tenantId}'`))[0].n,
      );
    const stepsBefore = await stepsOfU();
    // with the log's lock held, a call of U on b waits for it in its batch; then the operator's read of every tenant
    // (which loads T: refused) and another call of U arrive, and are taken in the next batch, in that order
    const lock = new pg.Client({ connectionString: url });
    await lock.connect();
    let first!: ReturnType<typeof screen>, read!: ReturnType<typeof screen>, second!: ReturnType<typeof screen>;
    try {
      await lock.query('SELECT pg_advisory_lock($1)', [LOG_LOCK]);
      first = screen(b.listenUrl, u.apiKey);
      await waitFor(
        async () =>
          (
            await sql<{ n: string }>(
              url,
              "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
            )
          )[0].n !== '0'
            ? true
            : undefined,
        "b's batch waiting for the log's lock",
      );
      read = client(b.listenUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/tenants');
      await new Promise((r) => setTimeout(r, 200));
      second = screen(b.listenUrl, u.apiKey);
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1)', [LOG_LOCK]);
      await lock.end();
    }
    const refusal = new RegExp(FAULTS[0].refusal(t.tenantId));
    expect((await first).status).toBe(201);
    for (const res of [await read, await second]) {
      expect(res.status, res.text).toBe(503);
      expect(res.json?.error?.message).toMatch(refusal);
    }
    expect(stopped.map((e) => e.message)).toEqual([expect.stringMatching(refusal)]);
    // only the first call of U is in the log; a serves U on
    expect(await stepsOfU()).toBe(stepsBefore + 1);
    expect((await screen(a.listenUrl, u.apiKey)).status).toBe(201);
  }, 120_000);
});
