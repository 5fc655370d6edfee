// Snapshots of a shared sandbox with webhook attempts in flight, on a real PostgreSQL (D-138, D-137): a slow
// receiver keeps attempts always awaiting their answer, and snapshots are still taken (each holds those
// attempts as data); an instance started from such a snapshot finishes them with the answers that arrive
// later, exactly as the instances that made them; and when the instance making an attempt is killed after a
// snapshot, the attempt is recorded as lost and retried on schedule on every instance, the one started from
// the snapshot included.

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/main.js';
import { listSnapshots, readSnapshot } from '../src/replication/snapshots.js';
import { killListenersAfterEach, listen } from './support/listen.js';
import {
  postgresUnavailable,
  sharedInstances,
  QUICK_LOST_ATTEMPTS,
  startTestDatabase,
  type TestDatabase,
} from './support/postgres.js';
import { spawnCliInstance } from './support/instances.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const PUBLIC_URL = 'http://sandbox.test';
/** Instances of the shared sandbox on a database, their store failures collected. */
const { failures, start } = sharedInstances(PUBLIC_URL, {
  // often enough for several snapshots mid-traffic, seldom enough that an idle instance keeps up (D-138)
  snapshotEvery: 60,
});

const admin = (base: string) => client(base, ADMIN_TOKEN);

/**
 * A receiver that answers each attempt after `delayMs` (every `failEvery`-th with a 500), and that can hold
 * every answer not yet given until it is released.
 */
async function slowReceiver(delayMs: number, failEvery: number) {
  let arrivals = 0;
  let held = false;
  const waiting: (() => void)[] = [];
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const status = ++arrivals % failEvery === 0 ? 500 : 200;
      const answer = () => {
        if (held) return void waiting.push(answer);
        res.writeHead(status);
        res.end(status === 200 ? 'ok' : 'nope');
      };
      setTimeout(answer, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals: () => arrivals,
    hold: () => void (held = true),
    release() {
      held = false;
      for (const answer of waiting.splice(0)) answer();
    },
    setDelay: (ms: number) => void (delayMs = ms),
    setFailEvery: (n: number) => void (failEvery = n),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function tenant(base: string, input: Record<string, unknown>) {
  const res = await admin(base)('POST', '/sandbox/v1/tenants', input);
  expect(res.status, res.text).toBe(201);
  return res.json as { tenantId: string; apiKey: string };
}

async function storeOf(base: string) {
  const res = await admin(base)('GET', '/sandbox/v1/store');
  expect(res.status, res.text).toBe(200);
  return res.json;
}

async function deliveries(base: string, tenantId: string): Promise<any[]> {
  const res = await admin(base)('GET', `/sandbox/v1/webhooks/deliveries?tenantId=${tenantId}&limit=200`);
  expect(res.status, res.text).toBe(200);
  return res.json.deliveries;
}

/** What an integrator and the operator see of a tenant's screening and webhooks: the same on every instance. */
async function observe(base: string, t: { tenantId: string; apiKey: string }) {
  const op = admin(base);
  const get = async (path: string, c = op) => {
    const res = await c('GET', path);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.json;
  };
  return {
    deliveries: await deliveries(base, t.tenantId),
    usage: await get(`${SCREENING}/usage`, client(base, t.apiKey)),
    reviews: await get(`/sandbox/v1/reviews?tenantId=${t.tenantId}&limit=200`),
    timers: { ...(await get(`/sandbox/v1/clock/timers?tenantId=${t.tenantId}&limit=200`)), now: null },
  };
}

/** The webhook attempts awaiting their answer that the snapshot of step `seq` holds. */
async function pendingIn(pool: pg.Pool, seq: number): Promise<number> {
  const payload = (await readSnapshot(pool, seq)) as { replica: { pending?: unknown[] } };
  return payload.replica.pending?.length ?? 0;
}

/** The attempts awaiting a listener's answer that the snapshot of step `seq` holds. */
async function relayedIn(pool: pg.Pool, seq: number): Promise<number> {
  const payload = (await readSnapshot(pool, seq)) as { state: { relayed?: unknown[] } };
  return payload.state.relayed?.length ?? 0;
}

killListenersAfterEach();

describe.skipIf(why !== null)('shared sandbox snapshots with webhook attempts in flight', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
  }, 120_000);
  afterAll(async () => {
    await db?.stop();
    expect(failures).toEqual([]);
  });

  it('takes snapshots while a slow receiver keeps attempts in flight; an instance started from one finishes them as the others do', async () => {
    const url = await db.another();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const receiver = await slowReceiver(1_500, 4);
    const [a, b] = await Promise.all([start(url), start(url)]);
    let c: RunningSandbox | undefined;
    try {
      const t = await tenant(a.listenUrl, { planTier: 'scale', webhookUrl: receiver.url });
      // steady submits on both instances: with answers taking 1.5 s, some attempt is always in flight
      let go = true;
      let submitted = 0;
      const load = Array.from({ length: 2 }, async (_, w) => {
        while (go) {
          const base = [a.listenUrl, b.listenUrl][(submitted + w) % 2];
          const res = await client(base, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
          expect(res.status, res.text).toBe(201);
          submitted++;
          await new Promise((r) => setTimeout(r, 40));
        }
      });
      // snapshots are written meanwhile, each holding attempts that await their answer
      const holding = new Set<number>();
      await waitFor(
        async () => {
          for (const s of await listSnapshots(pool))
            if (!holding.has(s.seq) && (await pendingIn(pool, s.seq).catch(() => 0)) > 0) holding.add(s.seq);
          return holding.size >= 2 ? true : undefined;
        },
        'two snapshots taken with attempts in flight',
        40_000,
      );
      // answers held back: the newest snapshot's attempts in flight are answered only after c has loaded it
      receiver.hold();
      go = false;
      await Promise.all(load);
      c = await start(url);
      const loaded = (await storeOf(c.listenUrl)).instance.loadedFrom;
      expect(loaded.seq).toBeGreaterThan(0);
      expect(await pendingIn(pool, loaded.seq)).toBeGreaterThan(0);
      // the answers (some 500s, so retries on the schedule) arrive; then every attempt succeeds
      receiver.setFailEvery(Infinity);
      receiver.setDelay(0);
      receiver.release();
      await waitFor(
        async () => {
          const list = await deliveries(a.listenUrl, t.tenantId);
          return list.length > 0 && list.every((d) => d.status === 'delivered') ? true : undefined;
        },
        'every delivery delivered',
        40_000,
      );
      const onA = await observe(a.listenUrl, t);
      expect(onA.deliveries.some((d: any) => d.attempts.length > 1)).toBe(true);
      expect(onA.deliveries.length).toBeGreaterThanOrEqual(submitted / 2);
      // c's reads are steps too: compare with what a and b saw after them
      const onC = await observe(c.listenUrl, t);
      expect(onC).toEqual(await observe(a.listenUrl, t));
      expect(await observe(b.listenUrl, t)).toEqual(await observe(c.listenUrl, t));
    } finally {
      receiver.release();
      await Promise.all([a.close(), b.close(), c?.close()]);
      await receiver.close();
      await pool.end();
    }
  }, 120_000);

  const spawnInstance = (url: string) =>
    spawnCliInstance(url, { adminToken: ADMIN_TOKEN, publicUrl: PUBLIC_URL }, { env: { SANDBOX_SNAPSHOT_EVERY: '5' } });

  it('an attempt whose instance is killed after a snapshot is recorded as lost and retried on schedule on every instance', async () => {
    const url = await db.another();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const receiver = await slowReceiver(0, Infinity);
    receiver.hold();
    const maker = await spawnInstance(url);
    let b: RunningSandbox | undefined;
    let c: RunningSandbox | undefined;
    try {
      // b and c take the maker's attempt for lost 1 s past the receiver timeout, not 10 s (QUICK_LOST_ATTEMPTS)
      b = await start(url, { snapshotEvery: 5, ...QUICK_LOST_ATTEMPTS });
      const t = await tenant(maker.base, { planTier: 'scale', webhookUrl: receiver.url });
      const res = await client(maker.base, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
      expect(res.status, res.text).toBe(201);
      await waitFor(() => receiver.arrivals() >= 1, 'the attempt at the receiver', 10_000);
      // steps on the maker until it writes a snapshot holding its attempt in flight
      const seq = await waitFor(
        async () => {
          await client(maker.base, t.apiKey)('GET', `${SCREENING}/usage`);
          const [newest] = await listSnapshots(pool);
          return newest && (await pendingIn(pool, newest.seq)) > 0 ? newest.seq : undefined;
        },
        'a snapshot holding the attempt in flight',
        10_000,
      );
      maker.child.kill('SIGKILL');
      await new Promise((r) => maker.child.once('exit', r));
      c = await start(url, QUICK_LOST_ATTEMPTS);
      expect((await storeOf(c.listenUrl)).instance.loadedFrom.seq).toBeGreaterThanOrEqual(seq);
      // the receiver answers from now on: the retry succeeds
      receiver.release();
      const [delivery] = await waitFor(
        async () => {
          const list = await deliveries(b!.listenUrl, t.tenantId);
          return list[0]?.status === 'delivered' ? list : undefined;
        },
        'the lost attempt retried and delivered',
        60_000,
      );
      expect(delivery.attempts.map((x: any) => [x.attempt, x.statusCode])).toEqual([
        [1, null],
        [2, 200],
      ]);
      expect(delivery.attempts[0].error).toMatch(/stopped before the receiver answered/);
      // the retry came on the schedule (5 s after the lost attempt was recorded), the same on every instance
      expect(Date.parse(delivery.attempts[1].at) - Date.parse(delivery.attempts[0].at)).toBeGreaterThanOrEqual(5_000);
      const onC = await observe(c.listenUrl, t);
      expect(onC).toEqual(await observe(b.listenUrl, t));
      expect(onC.deliveries[0].attempts).toHaveLength(2);
    } finally {
      maker.child.kill('SIGKILL');
      receiver.release();
      await Promise.all([b?.close(), c?.close()]);
      await receiver.close();
      await pool.end();
    }
  }, 90_000);

  it('an attempt awaiting the answer of a listener is in the snapshot; an instance started from it records the answer as the others do', async () => {
    const url = await db.another();
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const local = await slowReceiver(0, Infinity);
    local.hold();
    const [a, b] = await Promise.all([start(url, { snapshotEvery: 5 }), start(url, { snapshotEvery: 5 })]);
    let c: RunningSandbox | undefined;
    try {
      const t = await tenant(a.listenUrl, { planTier: 'scale', webhookUrl: 'http://127.0.0.1:9/unreachable' });
      // the listener holds its stream on b; the attempt is made on a and awaits the listener's answer
      await listen(b.listenUrl, t.apiKey, local.url);
      const res = await client(a.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
      expect(res.status, res.text).toBe(201);
      await waitFor(() => local.arrivals() >= 1, 'the attempt at the listener', 20_000);
      const seq = await waitFor(
        async () => {
          await client(a.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`);
          const [newest] = await listSnapshots(pool);
          return newest && (await relayedIn(pool, newest.seq)) > 0 ? newest.seq : undefined;
        },
        'a snapshot holding the attempt awaiting the listener',
        10_000,
      );
      c = await start(url, { snapshotEvery: 5 });
      expect((await storeOf(c.listenUrl)).instance.loadedFrom.seq).toBeGreaterThanOrEqual(seq);
      local.release();
      const [delivery] = await waitFor(
        async () => {
          const list = await deliveries(a.listenUrl, t.tenantId);
          return list[0]?.status === 'delivered' ? list : undefined;
        },
        'the delivery delivered through the listener',
        20_000,
      );
      expect(delivery.attempts.map((x: any) => [x.attempt, x.url, x.statusCode])).toEqual([[1, 'listener:', 200]]);
      const onC = await observe(c.listenUrl, t);
      expect(onC).toEqual(await observe(a.listenUrl, t));
      expect(await observe(b.listenUrl, t)).toEqual(await observe(c.listenUrl, t));
    } finally {
      local.release();
      await Promise.all([a.close(), b.close(), c?.close()]);
      await local.close();
      await pool.end();
    }
  }, 90_000);
});
