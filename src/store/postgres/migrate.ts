// Brings a database to the newest schema at start-up. Several instances may start on one database at
// the same moment: a session-level advisory lock lets one migrate while the others wait, and each
// migration runs in its own transaction, recorded in schema_migrations, so a crash leaves no half.

import type pg from 'pg';
import { MIGRATIONS, type Migration } from './migrations.js';

/** The advisory lock key of the sandbox's migrations (any constant; it only has to be the same everywhere). */
export const MIGRATION_LOCK = 0x5a4e_d0c5;

/** Applies every migration not yet recorded; returns the versions it applied. Runs `then` under the same lock. */
export async function migrate(
  pool: pg.Pool,
  then?: (client: pg.PoolClient) => Promise<void>,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done = new Set(rows.map((r) => r.version));
      for (const m of migrations) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(m.version);
      }
      if (then) await then(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return applied;
}
