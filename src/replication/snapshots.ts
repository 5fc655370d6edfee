// Snapshots of a shared sandbox in PostgreSQL (D-138): the whole state as of one step of the log, so a
// start loads the newest snapshot it can read and replays only the steps after it. The state is JSON,
// gzip-compressed off the event loop; a new snapshot prunes what the two newest make useless (older
// snapshots, and the steps up to the older of the two), so the database follows the state, not the history.
// Requirements: none of its own; decisions D-138, D-112.

import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Db } from '../store/postgres/pool.js';
import type { Writer } from './versions.js';

const zip = promisify(gzip);
const unzip = promisify(gunzip);

/** How many snapshots are kept: the newest, and one before it in case the newest cannot be read. */
export const SNAPSHOTS_KEPT = 2;

/** A snapshot's description, without its state. */
export interface SnapshotInfo extends Writer {
  seq: number;
  snapshotFormat: number;
  bytes: number;
  rawBytes: number;
  createdAt: Date;
}

interface InfoRow {
  seq: number;
  log_format: number;
  snapshot_format: number;
  code_version: string;
  bytes: number;
  raw_bytes: number;
  created_at: Date;
}

const info = (r: InfoRow): SnapshotInfo => ({
  seq: Number(r.seq),
  logFormat: r.log_format,
  snapshotFormat: r.snapshot_format,
  codeVersion: r.code_version,
  bytes: Number(r.bytes),
  rawBytes: Number(r.raw_bytes),
  createdAt: r.created_at,
});

/** Every snapshot kept, newest first. */
export async function listSnapshots(db: Db): Promise<SnapshotInfo[]> {
  const { rows } = await db.query<InfoRow>(
    `SELECT seq, log_format, snapshot_format, code_version, octet_length(state) AS bytes, raw_bytes, created_at
       FROM sandbox_snapshots ORDER BY seq DESC`,
  );
  return rows.map(info);
}

/** The state a snapshot holds, parsed. */
export async function readSnapshot(db: Db, seq: number): Promise<unknown> {
  const { rows } = await db.query<{ state: Buffer }>(`SELECT state FROM sandbox_snapshots WHERE seq = $1`, [seq]);
  if (!rows.length) throw new Error(`snapshot ${seq} was pruned while it was being read`);
  return JSON.parse((await unzip(rows[0].state)).toString('utf8')) as unknown;
}

/** Writes a snapshot (its JSON already taken) and prunes what it makes useless; returns its compressed size. */
export async function writeSnapshot(
  db: Db,
  seq: number,
  json: string,
  writer: Writer,
  snapshotFormat: number,
  /** The writing instance, which has applied every step up to `seq`. */
  self: string,
): Promise<number> {
  const state = await zip(Buffer.from(json, 'utf8'));
  await db.query(
    `INSERT INTO sandbox_snapshots (seq, log_format, snapshot_format, code_version, state, raw_bytes)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (seq) DO NOTHING`,
    [seq, writer.logFormat, snapshotFormat, writer.codeVersion, state, Buffer.byteLength(json, 'utf8')],
  );
  await prune(db, self);
  return state.length;
}

/** An instance not heard of for this long is taken for gone: pruning no longer waits for it. */
export const INSTANCE_GONE_AFTER_S = 30;

/**
 * Deletes the snapshots older than the kept ones and the steps the older kept one covers, but no step a live
 * instance has still to apply (each reports how far it applied the log every two seconds, `sandbox_instances`).
 */
export async function prune(db: Db, self: string): Promise<void> {
  const { rows } = await db.query<{ seq: number }>(
    `SELECT seq FROM sandbox_snapshots ORDER BY seq DESC LIMIT ${SNAPSHOTS_KEPT}`,
  );
  if (rows.length < SNAPSHOTS_KEPT) return;
  const floor = Number(rows[rows.length - 1].seq);
  const live = await db.query<{ applied: string | null }>(
    `SELECT min(applied_seq) AS applied FROM sandbox_instances
     WHERE instance <> $1 AND seen_at > now() - interval '${INSTANCE_GONE_AFTER_S} seconds'`,
    [self],
  );
  const behind = live.rows[0]?.applied;
  const steps = behind === null || behind === undefined ? floor : Math.min(floor, Number(behind));
  await db.query(`DELETE FROM sandbox_snapshots WHERE seq < $1`, [floor]);
  await db.query(`DELETE FROM sandbox_log WHERE seq <= $1`, [steps]);
  await db.query(
    `DELETE FROM sandbox_instances WHERE seen_at < now() - interval '${INSTANCE_GONE_AFTER_S * 10} seconds'`,
  );
}

/** The log's steps after `seq`: how many, their bytes, and who wrote them. */
export async function tailAfter(
  db: Db,
  seq: number,
): Promise<{ steps: number; bytes: number; first: number | null; writers: (Writer | null)[] }> {
  const [sizes, writers] = await Promise.all([
    db.query<{ steps: number; bytes: number; first: number | null }>(
      `SELECT count(*)::bigint AS steps, coalesce(sum(octet_length(step) + coalesce(octet_length(body), 0)), 0)::bigint AS bytes,
              min(seq) AS first
         FROM sandbox_log WHERE seq > $1`,
      [seq],
    ),
    db.query<{ log_format: number | null; code_version: string | null }>(
      `SELECT DISTINCT log_format, code_version FROM sandbox_log WHERE seq > $1`,
      [seq],
    ),
  ]);
  const s = sizes.rows[0];
  return {
    steps: Number(s.steps),
    bytes: Number(s.bytes),
    first: s.first === null ? null : Number(s.first),
    writers: writers.rows.map((r) =>
      r.log_format === null || r.code_version === null
        ? null
        : { logFormat: r.log_format, codeVersion: r.code_version },
    ),
  };
}

/** The newest step's number (0 when the log is empty). */
export async function lastSeq(db: Db): Promise<number> {
  const { rows } = await db.query<{ seq: number | null }>(`SELECT max(seq) AS seq FROM sandbox_log`);
  return rows[0].seq === null ? 0 : Number(rows[0].seq);
}
