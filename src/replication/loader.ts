// Rebuilding one tenant of a shared sandbox from the database alone (docs/design/tenant-partitions.md, stage 1):
// the newest snapshot's global part and the tenant's part, then, in log order, the steps after that snapshot
// whose partition is the tenant's, `global`, `create` or `all` (a tenant's steps read global state: the sandbox
// clock, rules of no tenant, planted bugs), replayed in a scratch core of the same settings; the tenant's slice
// is then exported from it. What it costs is bounded by the steps since the newest snapshot. A tenant the snapshot has
// no part of (its instance did not hold it) starts from its newest stored state before the snapshot, and its own
// steps up to the snapshot are replayed first: no step of another partition that changes what it reads lies between
// them (D-172).
// Requirements: none of the documents; decisions D-145, D-148.

import type { Db } from '../store/postgres/pool.js';
import { GLOBAL_PART, listSnapshots, newestStoredState, readWholeSnapshot } from './snapshots.js';
import { gunzipSync } from 'node:zlib';
import type { SnapshotPayload } from './snapshotter.js';

/** The snapshot a tenant is rebuilt from: its step, and what to import (by part, or a whole state). */
export type TenantBase =
  | { seq: 0 }
  | { seq: number; global: unknown; tenant: unknown; tenantSeq: number }
  | { seq: number; whole: SnapshotPayload };

const parse = (data: Buffer): unknown => JSON.parse(gunzipSync(data).toString('utf8')) as unknown;

/** The newest snapshot at or before step `upTo`, with only the global part and `tenantId`'s part read. */
export async function tenantBase(db: Db, tenantId: string, upTo: number): Promise<TenantBase> {
  const newest = (await listSnapshots(db)).find((s) => s.seq <= upTo);
  if (!newest) return { seq: 0 };
  if (newest.parts === null)
    return { seq: newest.seq, whole: (await readWholeSnapshot(db, newest.seq)) as SnapshotPayload };
  const { rows } = await db.query<{ part: string; data: Buffer }>(
    `SELECT part, data FROM sandbox_snapshot_parts WHERE seq = $1 AND part IN ($2, $3)`,
    [newest.seq, GLOBAL_PART, tenantId],
  );
  const global = rows.find((r) => r.part === GLOBAL_PART);
  if (!global) throw new Error(`snapshot ${newest.seq} was pruned while tenant ${tenantId} was being loaded`);
  const mine = rows.find((r) => r.part === tenantId);
  if (mine) return { seq: newest.seq, global: parse(global.data), tenant: parse(mine.data), tenantSeq: newest.seq };
  const stored = await db.query<{ seq: string; data: Buffer }>(
    `SELECT n.seq, n.data FROM ${newestStoredState('$1', '$2')} n`,
    [tenantId, newest.seq],
  );
  const row = stored.rows[0];
  return {
    seq: newest.seq,
    global: parse(global.data),
    tenant: row ? parse(row.data) : null,
    tenantSeq: row ? Number(row.seq) : newest.seq,
  };
}

/** The steps a tenant's rebuild replays after step `after` up to `upTo`: a page of at most `limit`, in log order. */
export const tenantStepsSql = (after: number, upTo: number, limit: number) =>
  `SELECT seq, step, body, log_format, code_version, partition FROM sandbox_log
    WHERE seq > ${Math.floor(after)} AND seq <= ${Math.floor(upTo)}
      AND (partition IS NULL OR partition = ANY($1))
    ORDER BY seq LIMIT ${Math.floor(limit)}`;
