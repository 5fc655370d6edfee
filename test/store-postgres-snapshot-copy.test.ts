// A snapshot's parts and tenants' stored states are streamed to PostgreSQL (COPY, binary) from their compressed
// pieces, never joined into one buffer (D-178): what is written is read back as it was, byte for byte and value for
// value, for a part of megabytes in many pieces as for small ones and an empty one; a second snapshot of the same
// step writes nothing, and a state already stored for a step stays, in a transaction of its own or the caller's.

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertTenantStates, readParts, writeSnapshot, type EncodedPart } from '../src/replication/snapshots.js';
import { slicedGzip } from '../src/replication/slicedJson.js';
import { migrate } from '../src/store/postgres/migrate.js';
import { openPool, type Db } from '../src/store/postgres/pool.js';
import { postgresUnavailable, startTestDatabase, type TestDatabase } from './support/postgres.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const WRITER = { logFormat: 3, codeVersion: 'copy-test' };

describe.skipIf(why !== null)("a snapshot's parts written by COPY", () => {
  let database: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    database = await startTestDatabase();
    db = openPool(database.url, 4);
    await migrate(db);
  });
  afterAll(async () => {
    await db?.end();
    await database?.stop();
  });

  const encode = async (part: string, ord: number, value: unknown): Promise<EncodedPart> => ({
    part,
    ord,
    ...(await slicedGzip(value, 0, true)),
  });

  it('reads back every part as written: a part of megabytes in many pieces, small ones, one of no rows', async () => {
    // random text compresses little: the big part is megabytes of compressed bytes, in many pieces
    const big = { rows: Array.from({ length: 40_000 }, (_, i) => ({ i, text: randomBytes(48).toString('hex') })) };
    const values: [string, unknown][] = [
      ['global', { replica: { lastNow: 0 }, state: { note: 'global' } }],
      ['ten_big', big],
      ['ten_small', { rows: [{ name: 'Zoë', emoji: '🙂' }] }],
      ['ten_empty', { rows: [] }],
    ];
    const parts = await Promise.all(values.map(([part, value], ord) => encode(part, ord, value)));
    expect(parts[1].bytes).toBeGreaterThan(2 * 1024 * 1024);
    expect(parts[1].pieces.length).toBeGreaterThan(8);
    const written = await writeSnapshot(db, 42, parts, WRITER, 1, 'copy-test');
    expect(written).toEqual({
      bytes: parts.reduce((n, p) => n + p.bytes, 0),
      rawBytes: parts.reduce((n, p) => n + p.rawBytes, 0),
    });
    // byte for byte, with its step, place and size
    const { rows } = await db.query<{ part: string; seq: string; ord: number; data: Buffer; raw_bytes: string }>(
      'SELECT part, seq, ord, data, raw_bytes FROM sandbox_snapshot_parts WHERE seq = 42 ORDER BY ord',
    );
    expect(rows.map((r) => [r.part, Number(r.seq), r.ord, Number(r.raw_bytes)])).toEqual(
      parts.map((p) => [p.part, 42, p.ord, p.rawBytes]),
    );
    rows.forEach((r, i) => expect(r.data.equals(Buffer.concat(parts[i].pieces)), r.part).toBe(true));
    // and value for value, as a start reads it
    const read: [string, unknown][] = [];
    await readParts(
      db,
      42,
      (g) => void read.push(['global', g]),
      (id, v) => void read.push([id, v]),
    );
    expect(read).toEqual(values);
  }, 60_000);

  it('writes nothing for a step whose snapshot is written already', async () => {
    const first = [await encode('global', 0, { replica: { lastNow: 1 }, state: {} })];
    expect(await writeSnapshot(db, 50, first, WRITER, 1, 'copy-test')).not.toBeNull();
    const again = [await encode('global', 0, { replica: { lastNow: 2 }, state: { other: true } })];
    expect(await writeSnapshot(db, 50, again, WRITER, 1, 'copy-test')).toBeNull();
    const read: unknown[] = [];
    await readParts(
      db,
      50,
      (g) => void read.push(g),
      () => undefined,
    );
    expect(read).toEqual([{ replica: { lastNow: 1 }, state: {} }]);
  });

  it("stores tenants' states, keeping a state already stored for the step, alone or in the caller's transaction", async () => {
    const state = async (tenantId: string, value: unknown) => ({
      tenantId,
      ...(await slicedGzip(value, 0, true)),
    });
    const big = { rows: Array.from({ length: 20_000 }, (_, i) => ({ i, text: randomBytes(48).toString('hex') })) };
    const first = [await state('ten_a', big), await state('ten_b', { rows: [1] })];
    await insertTenantStates(db, 9, first, 1, 'copy-test');
    // again for the same step (another value: the stored one stays), with a new tenant, in one transaction of the
    // caller's, twice
    const again = [await state('ten_a', { rows: [] }), await state('ten_c', { rows: [3] })];
    const client = await db.connect();
    try {
      await client.query('BEGIN');
      await insertTenantStates(client, 9, again, 1, 'copy-test');
      await insertTenantStates(client, 9, again, 1, 'copy-test');
      await client.query('COMMIT');
      // later, on the same connection: only the tenants given are stored
      await client.query('BEGIN');
      await insertTenantStates(client, 10, [await state('ten_d', { rows: [4] })], 1, 'copy-test');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const { rows } = await db.query<{ tenant_id: string; seq: string; data: Buffer; raw_bytes: string }>(
      'SELECT tenant_id, seq, data, raw_bytes FROM sandbox_tenant_states WHERE seq = 9 ORDER BY tenant_id',
    );
    expect(await db.query('SELECT tenant_id FROM sandbox_tenant_states WHERE seq = 10')).toMatchObject({
      rows: [{ tenant_id: 'ten_d' }],
    });
    const expected = [first[0], first[1], again[1]];
    expect(rows.map((r) => [r.tenant_id, Number(r.seq), Number(r.raw_bytes)])).toEqual(
      expected.map((st) => [st.tenantId, 9, st.rawBytes]),
    );
    rows.forEach((r, i) => expect(r.data.equals(Buffer.concat(expected[i].pieces)), r.tenant_id).toBe(true));
  }, 60_000);
});
