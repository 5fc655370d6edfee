// Work that any instance may pick up: queued pipeline jobs and due webhook deliveries. Rows are claimed
// with FOR UPDATE SKIP LOCKED and leased to the claiming instance for a while, so each attempt is made
// by exactly one instance; work of an instance that dies is claimed again once its lease runs out.

import { limits } from '../../domain/plans.js';
import type { Attempt } from '../../domain/webhooks/delivery.js';
import type { Db } from './pool.js';
import { freshId } from './tenants.js';

/** How long a claim holds (real ms): past the webhook timeout, so a live attempt is never taken over. */
export const LEASE_MS = 4 * limits.policy.webhook.timeoutMs;

/** Claims up to `n` queued pipeline jobs for `instance`; returns their request ids. */
export async function claimPipelineJobs(db: Db, instance: string, n: number, realNow = Date.now()): Promise<string[]> {
  const { rows } = await db.query(
    `UPDATE pipeline_jobs p SET lease_owner = $1, lease_until = $2
     FROM (SELECT request_id FROM pipeline_jobs WHERE lease_until IS NULL OR lease_until < $3 ORDER BY request_id FOR UPDATE SKIP LOCKED LIMIT $4) due
     WHERE p.request_id = due.request_id RETURNING p.request_id`,
    [instance, realNow + LEASE_MS, realNow, n],
  );
  return rows.map((r) => r.request_id);
}

/** The job is done: only the instance holding the lease may say so. */
export async function finishPipelineJob(db: Db, instance: string, requestId: string): Promise<boolean> {
  const { rowCount } = await db.query(`DELETE FROM pipeline_jobs WHERE request_id = $1 AND lease_owner = $2`, [requestId, instance]);
  return rowCount === 1;
}

export async function enqueueDelivery(db: Db, d: { tenantId: string; requestId: string; event: string; result: object }, now: number): Promise<string> {
  const id = freshId('dlv');
  await db.query(`INSERT INTO deliveries (id, tenant_id, request_id, event, result, status, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6)`, [
    id,
    d.tenantId,
    d.requestId,
    d.event,
    d.result,
    now,
  ]);
  return id;
}

export interface ClaimedDelivery {
  id: string;
  tenantId: string;
  requestId: string;
  event: string;
  result: object;
  failures: number;
}

/** Claims up to `n` deliveries due on the sandbox clock at `now`. */
export async function claimDueDeliveries(db: Db, instance: string, now: number, n: number, realNow = Date.now()): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query(
    `UPDATE deliveries d SET lease_owner = $1, lease_until = $2
     FROM (SELECT id FROM deliveries WHERE status IN ('pending', 'retrying') AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until < $4)
           ORDER BY next_attempt_at FOR UPDATE SKIP LOCKED LIMIT $5) due
     WHERE d.id = due.id RETURNING d.id, d.tenant_id, d.request_id, d.event, d.result, d.failures`,
    [instance, realNow + LEASE_MS, now, realNow, n],
  );
  return rows.map((r) => ({ id: r.id, tenantId: r.tenant_id, requestId: r.request_id, event: r.event, result: r.result, failures: r.failures }));
}

/**
 * Records an attempt made under this instance's lease and plans what follows: delivered on a 2xx,
 * otherwise the next retry of the schedule (D-09) or exhausted after the last. False when the lease
 * was lost (the attempt is then not recorded twice).
 */
export async function recordAttempt(db: Db, instance: string, deliveryId: string, attempt: Attempt, now: number): Promise<'delivered' | 'retrying' | 'exhausted' | 'lost'> {
  const ok = attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
  const schedule = limits.policy.webhook.retryScheduleSeconds;
  const { rows } = await db.query(
    `WITH cur AS (SELECT failures FROM deliveries WHERE id = $1 AND lease_owner = $2 FOR UPDATE)
     UPDATE deliveries d SET
       failures = CASE WHEN $3 THEN d.failures ELSE d.failures + 1 END,
       status = CASE WHEN $3 THEN 'delivered' WHEN d.failures + 1 > $4 THEN 'exhausted' ELSE 'retrying' END,
       next_attempt_at = CASE WHEN $3 OR d.failures + 1 > $4 THEN NULL ELSE $5 + ($6::bigint[])[d.failures + 1] * 1000 END,
       lease_owner = NULL, lease_until = NULL
     FROM cur WHERE d.id = $1 RETURNING d.status, d.failures`,
    [deliveryId, instance, ok, schedule.length, now, schedule],
  );
  if (!rows.length) return 'lost';
  const number = ok ? rows[0].failures + 1 : rows[0].failures;
  await db.query(`INSERT INTO delivery_attempts (delivery_id, attempt, instance, record) VALUES ($1, $2, $3, $4)`, [deliveryId, number, instance, attempt]);
  return rows[0].status;
}
