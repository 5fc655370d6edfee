// Connections and transactions: one pool per instance, and a helper that runs a function inside
// BEGIN/COMMIT on one connection, rolling back on any error.

import pg from 'pg';

// bigint columns come back as numbers: every value stored is a millisecond time or a count far below 2^53
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = pg.Pool;
export type Tx = pg.PoolClient;

export function openPool(url: string, max = 10): Db {
  return new pg.Pool({ connectionString: url, max });
}

export async function inTx<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const tx = await db.connect();
  try {
    await tx.query('BEGIN');
    const out = await fn(tx);
    await tx.query('COMMIT');
    return out;
  } catch (err) {
    await tx.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    tx.release();
  }
}
