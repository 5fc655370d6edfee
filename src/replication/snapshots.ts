// Snapshots of a shared sandbox in PostgreSQL (D-138, D-146): the whole state as of one step of the log, so a
// start loads the newest snapshot it can read and replays only the steps after it. A snapshot is its row in
// `sandbox_snapshots` (its header: step, versions, sizes) and its parts in `sandbox_snapshot_parts`, each
// gzip-compressed JSON: `global` (what belongs to no tenant, and the recorder's counters) and one per tenant.
// The header and then the parts (streamed by COPY from their compressed pieces, D-178) are written in one
// transaction, so a snapshot is seen whole or not at all, and written by one instance alone (D-174); a start
// reads them one page at a time in one repeatable-read transaction (pruning meanwhile does not reach it). A
// snapshot written before parts (its whole state in the header's `state`) is still read.
// A new snapshot prunes what the two newest make useless (older snapshots with their parts, and the steps up
// to the older of the two), so the database follows the state, not the history.
// Requirements: none of its own; decisions D-138, D-146, D-112, D-174, D-178.

import { once } from 'node:events';
import { promisify } from 'node:util';
import { gunzip, gunzipSync } from 'node:zlib';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Db } from '../store/postgres/pool.js';
import type { Writer } from './versions.js';

const unzip = promisify(gunzip);

/** The part of a snapshot that belongs to no tenant (first in import order); every other part is a tenant id. */
export const GLOBAL_PART = 'global';
/** Tenant parts read per round trip at a start: each is imported and dropped before the next page. */
const PARTS_PAGE = 200;
/** Carried parts copied per statement when a snapshot is written. */
const PARTS_PER_INSERT = 500;
/**
 * A bytea written by COPY (a snapshot's part, a tenant's stored state) is streamed in views of at most this many
 * bytes of its pieces, and calls run after each `COPY_TURN_BYTES` (D-178).
 */
const COPY_PIECE_BYTES = 64 * 1024;
const COPY_TURN_BYTES = 256 * 1024;
/**
 * Smaller bytes than this (a row's field count, a field's length, a text, a short piece of a bytea) are gathered and
 * sent together: each write to the COPY is a message of its own and a write to the socket.
 */
const COPY_GATHER_BYTES = 16 * 1024;

/** One part of a snapshot, compressed, as it is written. */
export interface EncodedPart {
  part: string;
  /** Its place in the snapshot (the global part 0, then the tenants in their order). */
  ord: number;
  /** Its compressed bytes: these pieces in order (never joined, D-178). */
  pieces: Buffer[];
  /** Their length. */
  bytes: number;
  rawBytes: number;
}

/**
 * A tenant's part a snapshot copies from a stored state (D-152): the tenant did not change since step `since`, whose
 * state, or a later one at or before the snapshot's step, is stored (a snapshot's part or a row).
 */
export interface CarriedPart {
  part: string;
  ord: number;
  since: number;
}

/**
 * Runs `fn` on a connection of its own in a transaction begun by `begin` (a BEGIN, and what goes with it), committed
 * when `fn` resolves and rolled back when it throws; a connection that cannot even roll back is closed, not put back
 * in the pool.
 */
async function inTransaction<T>(db: Db, begin: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.connect();
  let broken = false;
  try {
    await client.query(begin);
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * A tenant's newest stored state, as a LATERAL subquery: its row in `sandbox_tenant_states` or its part of a
 * (committed) snapshot, whichever is newer, at or before step `upTo` and, when `since` is given, at or after it
 * (D-150, D-152). `tenant`, `upTo` and `since` are SQL expressions; the columns are seq, data, raw_bytes,
 * snapshot_format and code_version (seq alone with `seqOnly`). Each side is read through its `(tenant, seq)` key,
 * newest first.
 */
export function newestStoredState(tenant: string, upTo: string, since?: string, seqOnly = false): string {
  const from = (col: string) => (since === undefined ? '' : ` AND ${col} >= ${since}`);
  const rest = (cols: string) => (seqOnly ? '' : `, ${cols}`);
  return `(SELECT c.seq${rest('c.data, c.raw_bytes, c.snapshot_format, c.code_version')} FROM (
       (SELECT seq${rest('data, raw_bytes, snapshot_format, code_version')} FROM sandbox_tenant_states
         WHERE tenant_id = ${tenant} AND seq <= ${upTo}${from('seq')} ORDER BY seq DESC LIMIT 1)
       UNION ALL
       (SELECT p.seq${rest('p.data, p.raw_bytes, s.snapshot_format, s.code_version')}
          FROM sandbox_snapshot_parts p JOIN sandbox_snapshots s ON s.seq = p.seq
         WHERE p.part = ${tenant} AND p.seq <= ${upTo}${from('p.seq')} ORDER BY p.seq DESC LIMIT 1)
     ) c ORDER BY c.seq DESC LIMIT 1)`;
}

/**
 * The step of each tenant's ($1) newest stored state at or before step $2, as `newestStoredState` finds it, without
 * reading its data; null for a tenant with none (D-172).
 */
export const NEWEST_STORED_SEQ_SQL = `SELECT t.id, n.seq FROM unnest($1::text[]) AS t(id)
  LEFT JOIN LATERAL ${newestStoredState('t.id', '$2', undefined, true)} n ON true`;

/**
 * Copies the carried parts into the snapshot of step $1: for each, its newest stored state between its `since` and
 * the snapshot's step, when it is of the snapshot format written now ($5); answers how many were found and their
 * sizes.
 */
const CARRY_SQL = `WITH src AS (
    SELECT c.part, c.ord, n.data, n.raw_bytes
      FROM unnest($2::text[], $3::int[], $4::bigint[]) AS c(part, ord, since)
      CROSS JOIN LATERAL ${newestStoredState('c.part', '$1', 'c.since')} n
     WHERE n.snapshot_format = $5
  ), put AS (
    INSERT INTO sandbox_snapshot_parts (part, seq, ord, data, raw_bytes)
    SELECT part, $1, ord, data, raw_bytes FROM src
    ON CONFLICT (part, seq) DO NOTHING
  )
  SELECT count(*)::int AS found, coalesce(sum(octet_length(data)), 0)::bigint AS bytes,
         coalesce(sum(raw_bytes), 0)::bigint AS raw FROM src`;

/** How many snapshots are kept: the newest, and one before it in case the newest cannot be read. */
export const SNAPSHOTS_KEPT = 2;

/** A snapshot's description, without its state. */
export interface SnapshotInfo extends Writer {
  seq: number;
  snapshotFormat: number;
  bytes: number;
  rawBytes: number;
  createdAt: Date;
  /** How many parts it is stored as (the global one included); null: one whole row (written before parts). */
  parts: number | null;
}

interface InfoRow {
  seq: number;
  log_format: number;
  snapshot_format: number;
  code_version: string;
  bytes: number;
  raw_bytes: number;
  created_at: Date;
  parts: number | null;
}

const info = (r: InfoRow): SnapshotInfo => ({
  seq: Number(r.seq),
  logFormat: r.log_format,
  snapshotFormat: r.snapshot_format,
  codeVersion: r.code_version,
  bytes: Number(r.bytes),
  rawBytes: Number(r.raw_bytes),
  createdAt: r.created_at,
  parts: r.parts,
});

/** Every snapshot kept, newest first. */
export async function listSnapshots(db: Db): Promise<SnapshotInfo[]> {
  const { rows } = await db.query<InfoRow>(
    `SELECT seq, log_format, snapshot_format, code_version, coalesce(bytes, octet_length(state)) AS bytes, raw_bytes,
            created_at, parts
       FROM sandbox_snapshots ORDER BY seq DESC`,
  );
  return rows.map(info);
}

/** The payload of a snapshot stored whole (written before parts), parsed. */
export async function readWholeSnapshot(db: Db, seq: number): Promise<unknown> {
  const { rows } = await db.query<{ state: Buffer | null }>(`SELECT state FROM sandbox_snapshots WHERE seq = $1`, [
    seq,
  ]);
  if (!rows.length) throw new Error(`snapshot ${seq} was pruned while it was being read`);
  if (!rows[0].state) throw new Error(`snapshot ${seq} is stored by part, not whole`);
  return JSON.parse((await unzip(rows[0].state)).toString('utf8')) as unknown;
}

/**
 * A snapshot chosen at a start that other instances pruned before it was read (they wrote two newer ones): nothing
 * of it was read, and the start chooses again.
 */
export class SnapshotGone extends Error {}

/** What a part holds, parsed (its compressed text is dropped as soon as it is parsed). */
const parsePart = (data: Buffer): unknown => JSON.parse(gunzipSync(data).toString('utf8')) as unknown;

/**
 * Reads a snapshot stored by part, one page of parts at a time, in one repeatable-read transaction (a
 * snapshot pruned meanwhile is still read whole): `global` gets the global part, then `tenant` each tenant's
 * part in the order they were written; only one page of compressed parts is in memory at a time.
 */
export async function readParts(
  db: Db,
  seq: number,
  /** Hears the global part; may answer the tenants whose parts are wanted (none returned: every part). */
  global: (data: unknown) => readonly string[] | void,
  tenant: (tenantId: string, data: unknown) => void,
): Promise<{ parts: number }> {
  return inTransaction(db, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', async (client) => {
    const head = await client.query<{ parts: number | null }>(`SELECT parts FROM sandbox_snapshots WHERE seq = $1`, [
      seq,
    ]);
    if (!head.rows.length) throw new SnapshotGone(`snapshot ${seq} was pruned before it was read`);
    const expected = head.rows[0].parts;
    if (expected === null) throw new Error(`snapshot ${seq} is stored whole, not by part`);
    const first = await client.query<{ part: string; data: Buffer }>(
      `SELECT part, data FROM sandbox_snapshot_parts WHERE seq = $1 AND ord = 0`,
      [seq],
    );
    if (first.rows[0]?.part !== GLOBAL_PART) throw new Error(`snapshot ${seq} has no global part`);
    const only = global(parsePart(first.rows[0].data)) ?? null;
    let read = 1;
    for (let after = 0; ;) {
      const page = await client.query<{ part: string; ord: number; data: Buffer }>(
        `SELECT part, ord, data FROM sandbox_snapshot_parts WHERE seq = $1 AND ord > $2${only ? ' AND part = ANY($3)' : ''} ORDER BY ord LIMIT ${PARTS_PAGE}`,
        only ? [seq, after, only] : [seq, after],
      );
      for (const row of page.rows) {
        tenant(row.part, parsePart(row.data));
        read++;
      }
      if (page.rows.length < PARTS_PAGE) break;
      after = page.rows[page.rows.length - 1].ord;
    }
    if (only ? read !== only.length + 1 : read !== expected)
      throw new Error(`snapshot ${seq} lists ${expected} parts and ${read} were found`);
    return { parts: read };
  });
}

/**
 * The payload of any snapshot as one value, `{ replica, state: { …global state, tenants } }` (a snapshot stored
 * by part assembled in memory): for tests and tools; a start reads parts one at a time (`readParts`).
 */
export async function readSnapshot(db: Db, seq: number): Promise<unknown> {
  const { rows } = await db.query<{ parts: number | null }>(`SELECT parts FROM sandbox_snapshots WHERE seq = $1`, [
    seq,
  ]);
  if (!rows.length) throw new Error(`snapshot ${seq} was pruned while it was being read`);
  if (rows[0].parts === null) return readWholeSnapshot(db, seq);
  let whole: { replica: unknown; state: Record<string, unknown> } | null = null;
  const tenants: Record<string, unknown> = {};
  await readParts(
    db,
    seq,
    (g) => {
      whole = g as { replica: unknown; state: Record<string, unknown> };
    },
    (id, data) => (tenants[id] = data),
  );
  const g = whole as unknown as { replica: unknown; state: Record<string, unknown> };
  return { replica: g.replica, state: { ...g.state, tenants } };
}

/**
 * Writes a snapshot's parts (compressed, the global one first, then the tenants in their order; the `carried` ones
 * copied from their stored states, D-152) and its header, in one transaction, and prunes what it makes useless;
 * returns its compressed and raw sizes. A carried part whose stored state is not found (pruned meanwhile) fails the
 * whole snapshot. Null: another instance wrote the snapshot of this step (D-174); the tenants' parts exported here
 * are stored as their states as of the step instead.
 */
export async function writeSnapshot(
  db: Db,
  seq: number,
  parts: readonly EncodedPart[],
  writer: Writer,
  snapshotFormat: number,
  /** The writing instance, which has applied every step up to `seq`. */
  self: string,
  carried: readonly CarriedPart[] = [],
  /** The first step before `seq` a start from it reads (the steps its instance skipped, D-172); null: none. */
  logFrom: number | null = null,
): Promise<{ bytes: number; rawBytes: number } | null> {
  if (parts[0]?.part !== GLOBAL_PART) throw new Error('a snapshot starts with its global part');
  let bytes = 0;
  let rawBytes = 0;
  for (const p of parts) {
    bytes += p.bytes;
    rawBytes += p.rawBytes;
  }
  const written = await inTransaction(db, 'BEGIN', async (client) => {
    // the header first, so that one instance alone writes the snapshot of a step: another instance's snapshot of the
    // same step (two instances stopping at once) holds other tenants and another list of the tenants behind, and the
    // two mixed would be neither (its INSERT waits for this transaction, then inserts nothing); the header is seen
    // with every part or not at all, at the commit
    const header = await client.query(
      `INSERT INTO sandbox_snapshots (seq, log_format, snapshot_format, code_version, state, raw_bytes, parts, bytes, log_from)
       VALUES ($1, $2, $3, $4, NULL, $5, $6, $7, $8) ON CONFLICT (seq) DO NOTHING RETURNING seq`,
      [
        seq,
        writer.logFormat,
        snapshotFormat,
        writer.codeVersion,
        rawBytes,
        parts.length + carried.length,
        bytes,
        logFrom,
      ],
    );
    if (!header.rows.length) {
      // written by another instance: the tenants exported here are kept as their stored states as of the step
      const states = parts.slice(1).map((p) => ({ ...p, tenantId: p.part }));
      await insertTenantStates(client, seq, states, snapshotFormat, writer.codeVersion);
      return false;
    }
    // the header is this transaction's: no other instance writes parts of this step
    await copyRows(
      client,
      'sandbox_snapshot_parts',
      ['part', 'seq', 'ord', 'data', 'raw_bytes'],
      parts.map((p) => [p.part, { int8: seq }, { int4: p.ord }, p, { int8: p.rawBytes }]),
    );
    for (let at = 0; at < carried.length; at += PARTS_PER_INSERT) {
      const page = carried.slice(at, at + PARTS_PER_INSERT);
      const { rows } = await client.query<{ found: number; bytes: string; raw: string }>(CARRY_SQL, [
        seq,
        page.map((c) => c.part),
        page.map((c) => c.ord),
        page.map((c) => c.since),
        snapshotFormat,
      ]);
      if (rows[0].found !== page.length)
        throw new Error(
          `${page.length - rows[0].found} of the tenants it copies have no stored state since they last changed (pruned meanwhile)`,
        );
      bytes += Number(rows[0].bytes);
      rawBytes += Number(rows[0].raw);
    }
    if (carried.length)
      await client.query(`UPDATE sandbox_snapshots SET bytes = $2, raw_bytes = $3 WHERE seq = $1`, [
        seq,
        bytes,
        rawBytes,
      ]);
    return true;
  });
  if (!written) return null;
  await prune(db, self);
  return { bytes, rawBytes };
}

/** The start of COPY's binary format: its signature, no flags, no header extension. */
const COPY_SIGNATURE = Buffer.concat([Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(8)]);

/** A field of a row written by COPY: text, a bigint, an integer, or bytea given as its pieces in order. */
type CopyField = string | { int8: number } | { int4: number } | { pieces: readonly Buffer[]; bytes: number };

/** A field's length and value in COPY's binary format (bytea: its length alone, its pieces written after it). */
function fieldHead(field: CopyField): Buffer {
  if (typeof field === 'string') {
    const text = Buffer.from(field, 'utf8');
    const out = Buffer.alloc(4 + text.length);
    out.writeInt32BE(text.length, 0);
    text.copy(out, 4);
    return out;
  }
  if ('pieces' in field) {
    const out = Buffer.alloc(4);
    out.writeInt32BE(field.bytes, 0);
    return out;
  }
  const out = Buffer.alloc('int8' in field ? 12 : 8);
  if ('int8' in field) out.writeBigInt64BE(BigInt(field.int8), out.writeInt32BE(8, 0));
  else out.writeInt32BE(field.int4, out.writeInt32BE(4, 0));
  return out;
}

/**
 * Writes `rows` into `columns` of `table` (COPY, binary): a bytea's pieces are streamed to the database as views of
 * them, with turns for calls in between, where an INSERT made one new buffer of the whole value for its parameter
 * (about 18 ms of the event loop per 5 MB, D-164; a busy tenant's part held calls up for 212 ms in the bench's
 * burst, D-178).
 */
async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  rows: Iterable<readonly CopyField[]>,
): Promise<void> {
  const stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN (FORMAT binary)`));
  const finished = once(stream, 'finish');
  // heard below; an error meanwhile rejects the write waiting for room as well
  finished.catch(() => undefined);
  let sinceTurn = 0;
  const send = async (bytes: Buffer) => {
    if (!stream.write(bytes)) await once(stream, 'drain');
    sinceTurn += bytes.length;
    if (sinceTurn >= COPY_TURN_BYTES) {
      sinceTurn = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  // small bytes wait here until a large view or the end is sent, or until they are large enough themselves
  const gathered: Buffer[] = [];
  let gatheredBytes = 0;
  const sendGathered = async () => {
    if (!gathered.length) return;
    const bytes = gathered.length === 1 ? gathered[0] : Buffer.concat(gathered, gatheredBytes);
    gathered.length = gatheredBytes = 0;
    await send(bytes);
  };
  const write = async (bytes: Buffer) => {
    if (bytes.length >= COPY_GATHER_BYTES) {
      await sendGathered();
      return send(bytes);
    }
    gathered.push(bytes);
    gatheredBytes += bytes.length;
    if (gatheredBytes >= COPY_PIECE_BYTES) await sendGathered();
  };
  try {
    await write(COPY_SIGNATURE);
    const count = Buffer.alloc(2);
    count.writeInt16BE(columns.length, 0);
    for (const row of rows) {
      if (row.length !== columns.length) throw new Error(`a row of ${row.length} fields for ${columns.length} columns`);
      await write(count);
      for (const field of row) {
        await write(fieldHead(field));
        if (typeof field === 'object' && 'pieces' in field)
          for (const piece of field.pieces)
            for (let from = 0; from < piece.length; from += COPY_PIECE_BYTES)
              await write(piece.subarray(from, from + COPY_PIECE_BYTES));
      }
    }
    // the end of the rows
    await write(Buffer.from([0xff, 0xff]));
    await sendGathered();
    stream.end();
    await finished;
  } catch (err) {
    // a failure of ours ends the COPY (its rows are not written; the transaction is rolled back); one of the
    // database's ended it already
    if (!stream.errored) stream.destroy(err as Error);
    throw err;
  }
}

/** A tenant's state as stored: its compressed JSON (with lines, D-160) and the size of that JSON. */
export interface TenantStateRow {
  tenantId: string;
  /** Its compressed bytes: these pieces in order (never joined, D-178). */
  pieces: readonly Buffer[];
  /** Their length. */
  bytes: number;
  rawBytes: number;
}

/**
 * Stores tenants' states as of step `seq` (a state already stored for that step stays): a tenant dropped from memory
 * (residency.ts), or a tenant of a snapshot another instance wrote first (D-174). Streamed by COPY (D-178) into a
 * table of the connection's own, then moved into `sandbox_tenant_states` in one statement (COPY has no conflict
 * clause); in `db`'s transaction when it is a client, else in one of its own.
 */
export async function insertTenantStates(
  db: Db | pg.PoolClient,
  seq: number,
  states: readonly TenantStateRow[],
  snapshotFormat: number,
  codeVersion: string,
): Promise<void> {
  if (!states.length) return;
  const insert = async (client: pg.PoolClient) => {
    await client.query(
      'CREATE TEMP TABLE IF NOT EXISTS sandbox_tenant_states_in (tenant_id text NOT NULL, data bytea NOT NULL, raw_bytes bigint NOT NULL)',
    );
    await copyRows(
      client,
      'sandbox_tenant_states_in',
      ['tenant_id', 'data', 'raw_bytes'],
      states.map((st) => [st.tenantId, st, { int8: st.rawBytes }]),
    );
    await client.query(
      `WITH moved AS (DELETE FROM sandbox_tenant_states_in RETURNING tenant_id, data, raw_bytes)
       INSERT INTO sandbox_tenant_states (tenant_id, seq, data, raw_bytes, snapshot_format, code_version)
       SELECT tenant_id, $1, data, raw_bytes, $2, $3 FROM moved ON CONFLICT (tenant_id, seq) DO NOTHING`,
      [Math.floor(seq), snapshotFormat, codeVersion],
    );
  };
  await ('release' in db ? insert(db) : inTransaction(db, 'BEGIN', insert));
}

/** An instance not heard of for this long is taken for gone: pruning no longer waits for it. */
export const INSTANCE_GONE_AFTER_S = 30;

/**
 * The advisory lock a prune holds for its whole transaction and a start takes to register itself (D-181): a prune
 * either ended before the start registered (what it deleted is seen by the start's reads) or sees the start.
 */
const PRUNE_LOCK = 0x5a4e_1068;

/**
 * Registers a starting instance before it reads its snapshot, as having applied nothing: no prune from now on
 * deletes a step it may still read (its reports raise that floor as it applies the log), and none under way
 * straddles its start (D-181).
 */
export async function registerStart(db: Db, instance: string): Promise<void> {
  await db.query(
    `WITH l AS (SELECT pg_advisory_xact_lock(${PRUNE_LOCK}))
     INSERT INTO sandbox_instances (instance, applied_seq, seen_at) SELECT $1, 0, now() FROM l
     ON CONFLICT (instance) DO UPDATE SET applied_seq = 0, seen_at = now()`,
    [instance],
  );
}

/**
 * Deletes the snapshots older than the kept ones and the steps the older kept one covers, but no step a live
 * instance has still to apply (each reports how far it applied the log, `sandbox_instances`, from before its start
 * reads anything). One transaction, under the prune's lock (D-181).
 */
export async function prune(pool: Db, self: string): Promise<void> {
  await inTransaction(pool, `BEGIN; SELECT pg_advisory_xact_lock(${PRUNE_LOCK})`, (db) => pruneIn(db, self));
}

async function pruneIn(db: pg.PoolClient, self: string): Promise<void> {
  const { rows } = await db.query<{ seq: number; log_from: string | null }>(
    `SELECT seq, log_from FROM sandbox_snapshots ORDER BY seq DESC LIMIT ${SNAPSHOTS_KEPT}`,
  );
  if (rows.length < SNAPSHOTS_KEPT) return;
  const floor = Number(rows[rows.length - 1].seq);
  // the steps a start from a kept snapshot applies when it loads a tenant whose steps its instance skipped (D-172)
  const skippedFrom = Math.min(...rows.map((r) => (r.log_from === null ? Infinity : Number(r.log_from))));
  const live = await db.query<{ applied: string | null }>(
    `SELECT min(applied_seq) AS applied FROM sandbox_instances
     WHERE instance <> $1 AND seen_at > now() - interval '${INSTANCE_GONE_AFTER_S} seconds'`,
    [self],
  );
  const behind = live.rows[0]?.applied;
  const steps = Math.min(
    behind === null || behind === undefined ? floor : Math.min(floor, Number(behind)),
    skippedFrom - 1,
  );
  // a tenant's part that no newer state supersedes is its stored state (tenants resident on demand, D-150)
  await keepUnsupersededParts(db, floor, steps);
  await db.query(`DELETE FROM sandbox_snapshots WHERE seq < $1`, [floor]);
  await db.query(`DELETE FROM sandbox_snapshot_parts WHERE seq < $1`, [floor]);
  await pruneTenantStates(db, steps);
  await db.query(`DELETE FROM sandbox_log WHERE seq <= $1`, [steps]);
  await db.query(
    `DELETE FROM sandbox_instances WHERE seen_at < now() - interval '${INSTANCE_GONE_AFTER_S * 10} seconds'`,
  );
}

/**
 * Before the parts of the snapshots older than `floor` are deleted: each one that is its tenant's newest state at or
 * before `horizon` (the step every live instance has applied) is kept as a stored state, unless a newer one at or
 * before `horizon` supersedes it (a row, or a part of a snapshot that stays).
 */
async function keepUnsupersededParts(db: pg.PoolClient, floor: number, horizon: number): Promise<void> {
  await db.query(
    `INSERT INTO sandbox_tenant_states (tenant_id, seq, data, raw_bytes, snapshot_format, code_version)
     SELECT p.part, p.seq, p.data, p.raw_bytes, s.snapshot_format, s.code_version
       FROM sandbox_snapshot_parts p JOIN sandbox_snapshots s ON s.seq = p.seq
      WHERE p.seq < $1 AND p.part <> $3
        AND NOT EXISTS (SELECT 1 FROM sandbox_tenant_states n WHERE n.tenant_id = p.part AND n.seq > p.seq AND n.seq <= $2)
        AND NOT EXISTS (SELECT 1 FROM sandbox_snapshot_parts q WHERE q.part = p.part AND q.seq > p.seq AND q.seq <= $2)
     ON CONFLICT (tenant_id, seq) DO NOTHING`,
    [floor, horizon, GLOBAL_PART],
  );
}

/** Deletes the stored states a newer one of the same tenant at or before step `horizon` makes useless. */
async function pruneTenantStates(db: pg.PoolClient, horizon: number): Promise<void> {
  await db.query(
    `DELETE FROM sandbox_tenant_states s WHERE EXISTS (
       SELECT 1 FROM sandbox_tenant_states n WHERE n.tenant_id = s.tenant_id AND n.seq > s.seq AND n.seq <= $1)`,
    [horizon],
  );
}

/** The log's steps after `seq`: the first one's number, and who wrote them (what a start checks before it replays). */
export async function tailAfter(db: Db, seq: number): Promise<{ first: number | null; writers: (Writer | null)[] }> {
  // through the index on seq: a log just filled in bulk has no statistics yet, and a plan without them reads the
  // whole table for a tail that is at most a snapshot interval long; one pass gives both (one row per writer)
  return inTransaction(db, 'BEGIN READ ONLY; SET LOCAL enable_seqscan = off', async (client) => {
    const { rows } = await client.query<{ log_format: number | null; code_version: string | null; first: number }>(
      `SELECT log_format, code_version, min(seq) AS first FROM sandbox_log WHERE seq > $1 GROUP BY log_format, code_version`,
      [seq],
    );
    return {
      first: rows.length ? Math.min(...rows.map((r) => Number(r.first))) : null,
      writers: rows.map((r) =>
        r.log_format === null || r.code_version === null
          ? null
          : { logFormat: r.log_format, codeVersion: r.code_version },
      ),
    };
  });
}

/** The newest step's number (0 when the log is empty). */
export async function lastSeq(db: Db): Promise<number> {
  const { rows } = await db.query<{ seq: number | null }>(`SELECT max(seq) AS seq FROM sandbox_log`);
  return rows[0].seq === null ? 0 : Number(rows[0].seq);
}
