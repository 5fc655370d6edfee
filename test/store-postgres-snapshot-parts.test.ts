// Snapshots stored by part on a real PostgreSQL (D-146): a snapshot of a state of many tenants, written
// while calls keep arriving, is exactly the state after its step (an instance started from it and one that
// replayed the whole log hold the same state, tenant by tenant and in the same order); a start reads it one
// part at a time; pruning removes a snapshot's parts with it; parts without their header (a snapshot whose
// writing did not finish) are ignored; and a snapshot stored whole, by a version before parts, is still read.

import pg from 'pg';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportState } from '../src/domain/snapshot.js';
import type { Core } from '../src/domain/core.js';
import type { RunningSandbox } from '../src/main.js';
import { readSnapshot } from '../src/replication/snapshots.js';
import { browser } from './support/console.js';
import { postgresUnavailable, sharedInstances, startTestDatabase, type TestDatabase } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

/**
 * Instances of the shared sandbox on a database, their store failures collected; every tenant in memory, since
 * their whole states are compared (tenants loaded on demand: store-postgres-residency.test.ts).
 */
const { failures, start } = sharedInstances('http://sandbox.test', {
  snapshotEvery: 0,
  noRateLimits: true,
  residentTenants: 0,
});

interface Tenant {
  tenantId: string;
  apiKey: string;
}

const admin = (base: string) => client(base, ADMIN_TOKEN);

async function tenant(base: string): Promise<Tenant> {
  const res = await admin(base)('POST', '/sandbox/v1/tenants', { planTier: 'scale' });
  expect(res.status, res.text).toBe(201);
  return res.json as Tenant;
}

async function storeOf(base: string) {
  const res = await admin(base)('GET', '/sandbox/v1/store');
  expect(res.status, res.text).toBe(200);
  return res.json;
}

async function submit(base: string, t: Tenant): Promise<string> {
  const res = await client(base, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
  expect(res.status, res.text).toBe(201);
  return res.json.requestId as string;
}

/**
 * The whole state as the domain exports it, but for the request log's timings (each instance measures its
 * own calls, D-112): two instances that applied the same steps hold the same.
 */
function stateOf(core: Core) {
  const strip = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(strip);
    if (v === null || typeof v !== 'object') return;
    const o = v as Record<string, unknown>;
    // a request log entry (its time, and the duration this instance measured)
    if ('atMs' in o && 'durationMs' in o && 'status' in o) delete o.durationMs;
    for (const x of Object.values(o)) strip(x);
  };
  const s = exportState(core);
  strip(s);
  return s;
}

/** Runs `n` jobs `width` at a time. */
async function pool(n: number, width: number, job: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

describe.skipIf(why !== null)('shared sandbox snapshots stored by part on PostgreSQL', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
  }, 120_000);
  afterAll(async () => {
    await db?.stop();
    expect(failures).toEqual([]);
  });

  it('a snapshot of many tenants written while calls keep arriving is the state after its step: an instance started from it holds what a full replay of the log holds', async () => {
    const url = await db.another();
    // the snapshot is due at step 600: after the tenants and their first requests, amid the traffic below
    const a = await start(url, { snapshotEvery: 600 });
    let c: RunningSandbox | undefined;
    let d: RunningSandbox | undefined;
    const pgc = new pg.Client({ connectionString: url });
    await pgc.connect();
    try {
      const tenants: Tenant[] = [];
      await pool(240, 8, async (i) => (tenants[i] = await tenant(a.listenUrl)));
      await pool(300, 8, (i) => submit(a.listenUrl, tenants[i % tenants.length]));
      expect((await storeOf(a.listenUrl)).instance.lastWritten).toBeNull();
      // calls keep arriving, over every tenant, until the snapshot is written and for a while after it
      let written: { seq: number } | null = null;
      let after = 0;
      let i = 0;
      await pool(8, 8, async () => {
        // at most about 1,150 steps in all: the next snapshot (due at step 1,200) would prune the log
        while (after < 40 && i < 540) {
          const k = i++;
          if (k % 9 === 8)
            await admin(a.listenUrl)(
              'POST',
              `/sandbox/v1/reviews/${await submit(a.listenUrl, tenants[k % 240])}/decision`,
              {
                decision: 'approved',
                reviewerId: 'r1',
              },
            );
          else await submit(a.listenUrl, tenants[(k * 7) % 240]);
          const { instance } = await storeOf(a.listenUrl);
          written ??= instance.lastWritten;
          if (written) after++;
          // while it is written (its slices rest three times as long as they run, D-194), calls arrive at a pace the
          // log's budget lasts for
          else if (instance.writing) await new Promise((r) => setTimeout(r, 100));
        }
      });
      expect(written).not.toBeNull();
      const seq = written!.seq;
      const store = await storeOf(a.listenUrl);
      expect(store.snapshots.count).toBe(1);
      // the global part and one per tenant (the demo tenants included)
      expect(store.snapshots.newest.parts.count).toBe(1 + Object.keys(exportState(a.core).tenants).length);
      expect(store.snapshots.newest.parts.count).toBeGreaterThan(240);
      expect(store.snapshots.newest.parts.globalBytes).toBeGreaterThan(0);
      expect(store.snapshots.newest.parts.largestTenantBytes).toBeGreaterThan(0);
      expect(store.snapshots.newest.bytes).toBeGreaterThan(store.snapshots.newest.parts.largestTenantBytes);
      // the operator's console shows the parts too
      const page = browser(a.listenUrl);
      await page.login();
      expect((await page.request('GET', '/console/demo')).text).toContain(
        `data-field="parts">${store.snapshots.newest.parts.count} parts, one per tenant and one for the rest`,
      );
      expect(store.log.firstSeq).toBe(1);
      // steps after the snapshot's were committed while it was being written (after its export, before its
      // header): the snapshot holds none of them
      const { rows: during } = await pgc.query(
        `SELECT count(*)::int AS n FROM sandbox_log
          WHERE seq > $1 AND committed_at < (SELECT created_at FROM sandbox_snapshots WHERE seq = $1)`,
        [seq],
      );
      expect(during[0].n).toBeGreaterThan(0);
      // one row per tenant and a global one, keyed by part
      const { rows: parts } = await pgc.query(
        `SELECT part, ord FROM sandbox_snapshot_parts WHERE seq = $1 ORDER BY ord`,
        [seq],
      );
      expect(parts[0]).toEqual({ part: 'global', ord: 0 });
      expect(parts.slice(1).map((p) => p.part)).toEqual(Object.keys(exportState(a.core).tenants));

      // the same log, whole, in a database of its own: an instance there replays every step
      const copy = await db.another();
      const other = new pg.Client({ connectionString: copy });
      await other.connect();
      try {
        const c0 = await start(copy);
        await c0.close();
        await other.query('TRUNCATE sandbox_meta, sandbox_log, sandbox_snapshots, sandbox_snapshot_parts');
        const meta = await pgc.query('SELECT key, value FROM sandbox_meta');
        for (const r of meta.rows) await other.query('INSERT INTO sandbox_meta VALUES ($1, $2)', [r.key, r.value]);
        const log = await pgc.query('SELECT seq, step, body, log_format, code_version FROM sandbox_log ORDER BY seq');
        await other.query(
          `INSERT INTO sandbox_log (seq, step, body, log_format, code_version)
           SELECT * FROM unnest($1::bigint[], $2::text[], $3::bytea[], $4::int[], $5::text[])`,
          ['seq', 'step', 'body', 'log_format', 'code_version'].map((k) => log.rows.map((r) => r[k])),
        );
        const last = Number(log.rows[log.rows.length - 1].seq);
        [c, d] = await Promise.all([start(url), start(copy)]);
        const fromSnapshot = (await storeOf(c.listenUrl)).instance;
        expect(fromSnapshot.loadedFrom.seq).toBe(seq);
        expect(fromSnapshot.loadedFrom.replayedSteps).toBe(last - seq);
        expect((await storeOf(d.listenUrl)).instance.loadedFrom).toMatchObject({ seq: 0, replayedSteps: last });
        // the control reads above are not steps: both stand at the log's last step
        expect(stateOf(c.core)).toEqual(stateOf(d.core));
        const t = tenants[7];
        const audit = async (s: RunningSandbox) =>
          (await client(s.listenUrl, t.apiKey)('GET', `${SCREENING}/audit?limit=500`)).json;
        expect(await audit(c)).toEqual(await audit(d));
      } finally {
        await other.end();
      }
    } finally {
      await pgc.end();
      await Promise.all([a.close(), c?.close(), d?.close()]);
    }
  }, 120_000);

  it('prunes parts with their snapshot, ignores parts whose header was never written, and reads a snapshot stored whole by an earlier version', async () => {
    const url = await db.another();
    const a = await start(url, { snapshotEvery: 10 });
    const t = await tenant(a.listenUrl);
    for (let i = 0; i < 35; i++) await submit(a.listenUrl, t);
    await waitFor(async () => ((await storeOf(a.listenUrl)).log.firstSeq > 1 ? true : undefined), 'pruned steps');
    await a.close();
    const pgc = new pg.Client({ connectionString: url });
    await pgc.connect();
    try {
      const heads = (await pgc.query('SELECT seq FROM sandbox_snapshots ORDER BY seq')).rows.map((r) => r.seq);
      expect(heads).toHaveLength(2);
      const kept = (await pgc.query('SELECT DISTINCT seq FROM sandbox_snapshot_parts ORDER BY seq')).rows;
      expect(kept.map((r) => r.seq)).toEqual(heads);
      const newest = Number(heads[1]);
      // a snapshot whose writing did not finish: parts of a later step, no header
      await pgc.query(
        `INSERT INTO sandbox_snapshot_parts (part, seq, ord, data, raw_bytes) VALUES ('global', $1, 0, $2, 2)`,
        [newest + 100_000, gzipSync('{}')],
      );
      const b = await start(url);
      const audit = async (s: RunningSandbox) =>
        (await client(s.listenUrl, t.apiKey)('GET', `${SCREENING}/audit?limit=500`)).json;
      const before = await audit(b);
      expect(before.events.length).toBeGreaterThan(35 * 3);
      expect((await storeOf(b.listenUrl)).instance.loadedFrom).toMatchObject({ seq: newest, replayedSteps: 0 });
      await b.close();

      // the newest snapshot as an earlier version stored it: the whole state in its header, no parts
      const seq = Number((await pgc.query('SELECT max(seq) AS seq FROM sandbox_snapshots')).rows[0].seq);
      const reader = new pg.Pool({ connectionString: url });
      const whole = Buffer.from(JSON.stringify(await readSnapshot(reader, seq)));
      await reader.end();
      await pgc.query('DELETE FROM sandbox_snapshot_parts');
      await pgc.query('UPDATE sandbox_snapshots SET state = $2, parts = NULL, bytes = NULL WHERE seq = $1', [
        seq,
        gzipSync(whole),
      ]);
      await pgc.query('DELETE FROM sandbox_snapshots WHERE seq < $1', [seq]);
      const c = await start(url);
      try {
        const store = await storeOf(c.listenUrl);
        expect(store.instance.loadedFrom).toMatchObject({ seq, replayedSteps: 0 });
        expect(store.snapshots.newest.parts).toBeNull();
        expect(await audit(c)).toEqual(before);
        await submit(c.listenUrl, t);
      } finally {
        await c.close();
      }
      // its clean stop writes parts again: the global one and one per tenant
      const stored = await pgc.query('SELECT count(*)::int AS n FROM sandbox_snapshot_parts');
      const tenants = (JSON.parse(whole.toString()) as { state: { tenants: object } }).state.tenants;
      expect(stored.rows[0].n).toBe(1 + Object.keys(tenants).length);
    } finally {
      await pgc.end();
    }
  }, 90_000);
});
