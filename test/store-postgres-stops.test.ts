// Stops and starts of a shared sandbox that race each other (D-174). Checked through real instances on a real
// PostgreSQL:
// - two instances that each skip the other's tenants stop at once: each takes a snapshot of the same step, and only
//   one of them is written (the other's tenants kept as their stored states), so a third instance starts from it,
//   not from an older one, with every tenant as the two left it and no step of theirs to replay;
// - a start whose chosen snapshot other instances pruned before it was read chooses again; work that reaches a
//   stopped instance is refused without failing its store;
// - an instance whose connection that appends can no longer plan its statement (D-180), or cannot prepare it at all
//   (the first step after a start), stops with the database's reason, and its stop ends and leaves none of its
//   connections open.

import { describe, expect, it } from 'vitest';
import type { StoreReport } from '../src/domain/store.js';
import type { RunningSandbox } from '../src/main.js';
import { instancesPerTest, postgresUnavailable, sharedInstances, sqlRows as sql } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';
import { sliceOf, tenantOn } from './support/tenantCalls.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const PUBLIC_URL = 'http://sandbox.test';
// a tenant whose steps come only from the other instance is dropped at once
const QUICK = { replicaTiming: { foreignIdleMs: 0, foreignIdleCalls: 0, sweepMs: 200 } };
const shared = sharedInstances(PUBLIC_URL, { verifyCarriedParts: true });

type Residency = NonNullable<StoreReport['instance']['residency']>;
const residency = async (sb: RunningSandbox): Promise<Residency> => {
  const res = await client(sb.listenUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/store');
  expect(res.status, res.text).toBe(200);
  return (res.json as unknown as StoreReport).instance.residency!;
};

const screen = (sb: RunningSandbox, key: string) =>
  client(sb.listenUrl, key)('POST', `${SCREENING}/screen`, submitBody());

/** Each snapshot's step, the parts its header lists, and the parts stored. */
const snapshots = (url: string) =>
  sql<{ seq: string; parts: number; stored: string }>(
    url,
    `SELECT s.seq, s.parts, (SELECT count(*) FROM sandbox_snapshot_parts p WHERE p.seq = s.seq) AS stored
       FROM sandbox_snapshots s ORDER BY s.seq`,
  );

describe.skipIf(why !== null)('stops and starts of a shared sandbox racing each other', () => {
  const { database, start, pair } = instancesPerTest(shared);

  it('two instances that skip tenants stop at once: one snapshot of the step, from which a third starts', async () => {
    const { url, a, b } = await pair({ ...QUICK, snapshotEvery: 1_000_000 });
    const [t, u] = [await tenantOn(a.listenUrl), await tenantOn(b.listenUrl)];
    // T's calls on a, U's on b: each instance drops the other's tenant and skips its steps
    await waitFor(async () => {
      expect((await screen(a, t.apiKey)).status).toBe(201);
      expect((await screen(b, u.apiKey)).status).toBe(201);
      return (await residency(a)).skipped! > 0 && (await residency(b)).skipped! > 0 ? true : undefined;
    }, 'steps skipped on both');
    for (let i = 0; i < 3; i++) {
      expect((await screen(a, t.apiKey)).status).toBe(201);
      expect((await screen(b, u.apiKey)).status).toBe(201);
    }
    const before = { t: await sliceOf(a, t.tenantId), u: await sliceOf(b, u.tenantId) };
    await Promise.all([a.close(), b.close()]);
    // both stopped at the same step, so both took a snapshot of it
    expect(a.replica!.snapshotActivity().appliedSeq).toBe(b.replica!.snapshotActivity().appliedSeq);
    const stop = a.replica!.snapshotActivity().appliedSeq;
    const rows = await snapshots(url);
    expect(rows.map((r) => Number(r.seq))).toEqual([stop]);
    // its header lists exactly the parts stored: one instance's snapshot, not two mixed
    expect(Number(rows[0].stored)).toBe(rows[0].parts);
    const c = await start(url, QUICK);
    expect(c.replica!.snapshotActivity().loadedFrom).toMatchObject({ seq: stop, replayedSteps: 0 });
    expect(await sliceOf(c, t.tenantId)).toEqual(before.t);
    expect(await sliceOf(c, u.tenantId)).toEqual(before.u);
    // the tenants of the snapshot not written are stored as of the step: no step of theirs is replayed
    expect((await residency(c)).replayed).toBe(0);
  }, 120_000);

  it('a stopped instance refuses work without failing its store; a start whose snapshot was pruned before it was read chooses again', async () => {
    const url = await database();
    const a = await start(url, { snapshotEvery: 5 });
    const t = await tenantOn(a.listenUrl);
    for (let i = 0; i < 12; i++) expect((await screen(a, t.apiKey)).status).toBe(201);
    const slice = await sliceOf(a, t.tenantId);
    await a.close();
    // work that reaches a stopped instance is refused, and its store does not fail for it (checked after the tests)
    await expect(a.replica!.read(() => Promise.resolve(1))).rejects.toThrow('this instance has stopped');
    const kept = (await snapshots(url)).map((r) => Number(r.seq));
    expect(kept).toHaveLength(2);
    // the newest one goes between the choice and the read, as when other instances write two newer ones and prune
    const c = await start(url, {
      beforeStart: async () =>
        void (await sql(
          url,
          `DELETE FROM sandbox_snapshot_parts WHERE seq = ${kept[1]}; DELETE FROM sandbox_snapshots WHERE seq = ${kept[1]}`,
        )),
    });
    expect(c.replica!.snapshotActivity().loadedFrom!.seq).toBe(kept[0]);
    expect(await sliceOf(c, t.tenantId)).toEqual(slice);
  }, 120_000);

  /** The stop of an instance whose store failed ends, and leaves none of its connections open. */
  const stopsLeavingNoConnection = async (sb: RunningSandbox, url: string) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the stop did not end within 15 s')), 15_000);
    });
    await Promise.race([sb.close(), late]).finally(() => clearTimeout(timer));
    await waitFor(async () => {
      const [open] = await sql<{ n: string }>(
        url,
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      return Number(open.n) === 0 ? true : undefined;
    }, 'no connection of the stopped instance left open');
  };
  const createTenant = (sb: RunningSandbox) =>
    client(sb.listenUrl, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { name: 'x', planTier: 'free' });

  it('an instance whose log cannot be written stops, saying why; its stop leaves no connection open', async () => {
    const url = await database();
    const failed: Error[] = [];
    const a = await start(url, { onStoreFailure: (e) => failed.push(e) });
    // a call written first: the connection that appends has prepared its statement (D-180)
    expect((await createTenant(a)).status).toBe(201);
    // without the log, the statement can no longer be planned
    await sql(url, 'ALTER TABLE sandbox_log RENAME TO sandbox_log_elsewhere');
    const res = await createTenant(a);
    expect(res.status, res.text).toBe(503);
    expect(res.text).toContain('relation \\"sandbox_log\\" does not exist');
    expect(failed.map((e) => e.message)).toEqual([
      'the log could not be written (relation "sandbox_log" does not exist)',
    ]);
    await stopsLeavingNoConnection(a, url);
  }, 60_000);

  it('an instance whose connection that appends cannot prepare its statement stops, saying why; its stop leaves no connection open', async () => {
    const url = await database();
    const failed: Error[] = [];
    // the log read through a view that takes no INSERT, from before the start reads it: the start's first step (the
    // timers due while no instance ran) opens the connection that appends, whose statement cannot be prepared
    const a = await start(url, {
      onStoreFailure: (e) => failed.push(e),
      afterSnapshotRead: async () =>
        void (await sql(
          url,
          `ALTER TABLE sandbox_log RENAME TO sandbox_log_elsewhere;
           CREATE VIEW sandbox_log AS SELECT * FROM sandbox_log_elsewhere UNION ALL SELECT * FROM sandbox_log_elsewhere WHERE false`,
        )),
    });
    const why = 'the log could not be written (cannot insert into view "sandbox_log")';
    await waitFor(() => failed.length > 0, 'the store failure');
    expect(failed.map((e) => e.message)).toEqual([why]);
    const res = await createTenant(a);
    expect(res.status, res.text).toBe(503);
    expect(res.text).toContain('cannot insert into view \\"sandbox_log\\"');
    await stopsLeavingNoConnection(a, url);
  }, 60_000);
});
