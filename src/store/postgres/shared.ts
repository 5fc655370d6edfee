// Counters every instance shares: fixed rate windows (per minute per key, per UTC day per client IP
// or key) and chaos rules with their remaining counts. Each take is one atomic statement, so two
// instances never both spend the last unit.

import type { Db } from './pool.js';

/** Counts one call in the window; returns the count including it. */
export async function takeWindow(db: Db, scope: string, key: string, windowStart: number): Promise<number> {
  const { rows } = await db.query(
    `INSERT INTO rate_windows (scope, key, window_start, count) VALUES ($1, $2, $3, 1)
     ON CONFLICT (scope, key, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
    [scope, key, windowStart],
  );
  return rows[0].count;
}

export async function addChaosRule(db: Db, id: string, rule: object, times: number | null, now: number): Promise<void> {
  await db.query(`INSERT INTO chaos_rules (id, rule, remaining, created_at) VALUES ($1, $2, $3, $4)`, [id, rule, times, now]);
}

/** Spends one use of a rule; false when it has none left (an unlimited rule always fires). */
export async function fireChaosRule(db: Db, id: string): Promise<boolean> {
  const { rowCount } = await db.query(`UPDATE chaos_rules SET remaining = remaining - 1 WHERE id = $1 AND (remaining IS NULL OR remaining > 0)`, [id]);
  return rowCount === 1;
}

export async function setBug(db: Db, name: string, on: boolean): Promise<void> {
  if (on) await db.query(`INSERT INTO planted_bugs (name) VALUES ($1) ON CONFLICT DO NOTHING`, [name]);
  else await db.query(`DELETE FROM planted_bugs WHERE name = $1`, [name]);
}

export async function bugs(db: Db): Promise<string[]> {
  const { rows } = await db.query(`SELECT name FROM planted_bugs ORDER BY name`);
  return rows.map((r) => r.name);
}

/** Takes one draft from the tenant's monthly quota if any is left; returns the count used, or null when none is left. */
export async function takeDraft(db: Db, tenantId: string, month: number, limit: number): Promise<number | null> {
  const { rows } = await db.query(
    `INSERT INTO draft_quota (tenant_id, month, used) SELECT $1, $2, 1 WHERE $3 > 0
     ON CONFLICT (tenant_id, month) DO UPDATE SET used = draft_quota.used + 1 WHERE draft_quota.used < $3 RETURNING used`,
    [tenantId, month, limit],
  );
  return rows.length ? rows[0].used : null;
}
