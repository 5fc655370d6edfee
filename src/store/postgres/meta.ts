// The values one sandbox shares across all its instances: the sandbox clock's offset (one clock for
// every instance, read on every call, never cached), the audit cursors' secret (D-21) and the mark
// that the demo tenants were seeded, so they are seeded once per database, not once per instance.

import { randomBytes } from 'node:crypto';
import type { Db, Tx } from './pool.js';

/** The offset of the sandbox clock from real time (ms). */
export async function clockOffset(db: Db | Tx): Promise<number> {
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM sandbox_meta WHERE key = 'clock_offset_ms'`);
  return rows.length ? Number(rows[0].value) : 0;
}

/** The sandbox clock now: real time plus the shared offset. */
export async function sandboxNow(db: Db | Tx): Promise<number> {
  return Date.now() + (await clockOffset(db));
}

/** Moves the shared clock forward; returns the new offset. Concurrent advances add up. */
export async function advanceClock(db: Db | Tx, ms: number): Promise<number> {
  const { rows } = await db.query<{ value: string }>(
    `INSERT INTO sandbox_meta (key, value) VALUES ('clock_offset_ms', $1::bigint::text)
     ON CONFLICT (key) DO UPDATE SET value = (sandbox_meta.value::bigint + $1::bigint)::text RETURNING value`,
    [Math.round(ms)],
  );
  return Number(rows[0].value);
}

/** The cursor secret of this database, created by whichever instance asks first. */
export async function cursorSecret(db: Db | Tx): Promise<Buffer> {
  await db.query(`INSERT INTO sandbox_meta (key, value) VALUES ('cursor_secret', $1) ON CONFLICT (key) DO NOTHING`, [randomBytes(32).toString('base64')]);
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM sandbox_meta WHERE key = 'cursor_secret'`);
  return Buffer.from(rows[0].value, 'base64');
}

/** True for exactly one caller per database: the one that should seed the demo tenants. */
export async function claimSeed(db: Db | Tx, seed: number): Promise<boolean> {
  const { rowCount } = await db.query(`INSERT INTO sandbox_meta (key, value) VALUES ('demo_seeded', $1) ON CONFLICT (key) DO NOTHING`, [String(seed)]);
  return rowCount === 1;
}
