// Connections: one pool per instance.

import pg from 'pg';

// bigint columns come back as numbers: every value stored is a millisecond time or a count far below 2^53
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = pg.Pool;
export type Tx = pg.PoolClient;

export function openPool(url: string, max = 10): Db {
  return new pg.Pool({ connectionString: url, max });
}
