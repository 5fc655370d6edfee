// Connections: one pool per instance.

import pg from 'pg';

// bigint columns come back as numbers: every value stored is a millisecond time or a count far below 2^53
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = pg.Pool;
export type Tx = pg.PoolClient;

export function openPool(url: string, max = 10): Db {
  return new pg.Pool({ connectionString: url, max });
}

/**
 * `VALUES (…), (…)` with a parameter for every value of every row (bytes included: the driver sends a parameter's
 * bytes as they are, where an array of bytea becomes one hex string on the event loop), and the parameters in order.
 */
export function valuesOf(rows: readonly (readonly unknown[])[]): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const tuples = rows.map((row) => `(${row.map((v) => `$${values.push(v)}`).join(', ')})`);
  return { sql: `VALUES ${tuples.join(', ')}`, values };
}
