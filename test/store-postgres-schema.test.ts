// The shared sandbox's schema is ready to be distributed by tenant (README "On a distributed PostgreSQL (Citus)"):
// on a real PostgreSQL migrated by every migration, every table is either distributed by its tenant (its primary
// key starts with the column that holds the tenant, or the partition of a log step, and every unique index holds
// that column) or one of the small global tables; and the README's block of Citus statements names exactly these
// tables with these columns.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/store/postgres/migrate.js';
import { openPool, type Db } from '../src/store/postgres/pool.js';
import { postgresUnavailable, startTestDatabase, type TestDatabase } from './support/postgres.js';

const why = postgresUnavailable();
if (why) console.warn(why);

/** The tables that grow with the tenants, and the column each is distributed by. */
const DISTRIBUTED: Record<string, string> = {
  sandbox_log: 'partition',
  sandbox_snapshot_parts: 'part',
  sandbox_tenant_states: 'tenant_id',
};

/** The small global tables (reference tables), and why each stays small. */
const GLOBAL: Record<string, string> = {
  sandbox_meta: 'a handful of values shared by every instance',
  sandbox_snapshots: 'the headers of the two snapshots kept',
  sandbox_directory:
    'the routing directory: a few rows per tenant (its id, keys, e-mail, sessions), read whole at a start',
  sandbox_instances: 'one row per running instance',
  sandbox_listener_leases: 'one row per connected webhook listener',
  console_sign_outs: 'console sign-outs until their session would have expired',
  schema_migrations: 'one row per migration',
};

interface Table {
  name: string;
  primaryKey: string[];
  unique: string[][];
}

async function tables(db: Db): Promise<Table[]> {
  const { rows } = await db.query<{ table: string; primary: boolean; columns: string[] }>(
    `SELECT c.relname AS table, i.indisprimary AS primary,
            array_agg(a.attname::text ORDER BY k.ord) AS columns
       FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
       JOIN pg_index i ON i.indrelid = c.oid AND i.indisunique
       CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE c.relkind = 'r'
      GROUP BY c.relname, i.indexrelid, i.indisprimary`,
  );
  const all = await db.query<{ table: string }>(
    `SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
      WHERE c.relkind = 'r' ORDER BY 1`,
  );
  return all.rows.map(({ table }) => ({
    name: table,
    primaryKey: rows.find((r) => r.table === table && r.primary)?.columns ?? [],
    unique: rows.filter((r) => r.table === table).map((r) => r.columns),
  }));
}

/** The README's Citus statements: each table with its distribution column, or `null` for a reference table. */
function readmeStatements(): Map<string, string | null> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const at = readme.indexOf('### On a distributed PostgreSQL (Citus)');
  expect(at, 'the README has its Citus section').toBeGreaterThan(0);
  const block = /```sql\n([\s\S]*?)```/.exec(readme.slice(at))![1];
  const out = new Map<string, string | null>();
  for (const m of block.matchAll(/create_distributed_table\('(\w+)', '(\w+)'/g)) out.set(m[1], m[2]);
  for (const m of block.matchAll(/create_reference_table\('(\w+)'\)/g)) out.set(m[1], null);
  return out;
}

describe.skipIf(why !== null)('the schema, ready to be distributed by tenant', () => {
  let pgdb: TestDatabase;
  let db: Db;
  beforeAll(async () => {
    pgdb = await startTestDatabase();
    db = openPool(pgdb.url);
    await migrate(db);
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await pgdb?.stop();
  });

  it('keys every table that grows with the tenants by its tenant first; every other table is small and global', async () => {
    const found = await tables(db);
    expect(found.length).toBeGreaterThan(5);
    for (const t of found) {
      const column = DISTRIBUTED[t.name];
      if (column === undefined) {
        expect(
          GLOBAL[t.name],
          `table ${t.name} is neither distributed by tenant nor a small global table`,
        ).toBeDefined();
        continue;
      }
      expect(t.primaryKey[0], `${t.name}'s primary key starts with ${column}`).toBe(column);
      for (const u of t.unique) expect(u, `a unique index of ${t.name} holds ${column}`).toContain(column);
    }
    // every table the lists name exists (a renamed table is not silently left out)
    for (const name of [...Object.keys(DISTRIBUTED), ...Object.keys(GLOBAL)])
      expect(found.map((t) => t.name)).toContain(name);
  });

  it("the README's Citus statements are these lists", () => {
    const expected = new Map<string, string | null>([
      ...Object.entries(DISTRIBUTED),
      ...Object.keys(GLOBAL).map((name) => [name, null] as [string, null]),
    ]);
    expect(readmeStatements()).toEqual(expected);
  });
});
