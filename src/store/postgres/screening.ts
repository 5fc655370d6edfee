// Screening intake, transitions and the audit ledger in PostgreSQL, correct with several instances on
// one database:
// - idempotency by the unique (tenant_id, idempotency_key) constraint: of concurrent same-key submits
//   one creates the request and is charged, the others find it and answer as a replay;
// - the charge, the request, its intake ledger row and its queued pipeline job commit together, so a
//   201 is only answered for a submit that is durable;
// - each tenant's ledger sequence is allocated under the tenant row's lock in the inserting
//   transaction, so rows commit in sequence order and a keyset page (seq > cursor) never skips a row
//   that commits later with a smaller number, nor repeats one.

import { limits } from '../../domain/plans.js';
import type { Actor, LedgerPayload } from '../../domain/screening/ledger.js';
import type { ScreeningState, Submission } from '../../domain/screening/types.js';
import { inTx, type Db, type Tx } from './pool.js';
import { freshId, lockTenant } from './tenants.js';

export type Admission =
  | { kind: 'created'; requestId: string; state: ScreeningState }
  | { kind: 'replayed'; requestId: string; state: ScreeningState }
  | { kind: 'exhausted' }
  | { kind: 'no_tenant' };

async function existing(db: Db | Tx, tenantId: string, key: string): Promise<Admission | null> {
  const { rows } = await db.query(`SELECT id, state FROM screening_requests WHERE tenant_id = $1 AND idempotency_key = $2`, [tenantId, key]);
  return rows.length ? { kind: 'replayed', requestId: rows[0].id, state: rows[0].state } : null;
}

/** Appends one ledger row; the caller holds the tenant's row lock (lockTenant) in `tx`. */
export async function appendRow(tx: Tx, tenantId: string, requestId: string, from: ScreeningState | null, to: ScreeningState, actor: Actor, payload: LedgerPayload | null, at: number): Promise<number> {
  const { rows } = await tx.query(`UPDATE tenants SET ledger_seq = ledger_seq + 1 WHERE id = $1 RETURNING ledger_seq`, [tenantId]);
  const seq = rows[0].ledger_seq as number;
  await tx.query(
    `INSERT INTO ledger (tenant_id, seq, event_id, request_id, from_state, to_state, actor, payload, created_at)
     VALUES ($1, $2, 'evt_' || to_hex(nextval('ledger_event_seq')), $3, $4, $5, $6, $7, $8)`,
    [tenantId, seq, requestId, from, to, actor, payload, at],
  );
  return seq;
}

export async function admit(db: Db, tenantId: string, submission: Submission, now: number): Promise<Admission> {
  // a replay needs no lock
  const replay = await existing(db, tenantId, submission.idempotencyKey);
  if (replay) return replay;
  return inTx(db, (tx) => admitLocked(tx, tenantId, submission, now)).catch(async (err) => {
    // the unique constraint is the last word: a same-key insert that lost the race is a replay
    const replayed = (err as { code?: string }).code === UNIQUE_VIOLATION ? await existing(db, tenantId, submission.idempotencyKey) : null;
    if (replayed) return replayed;
    throw err;
  });
}

const UNIQUE_VIOLATION = '23505';

async function admitLocked(tx: Tx, tenantId: string, submission: Submission, now: number): Promise<Admission> {
  const tenant = await lockTenant(tx, tenantId);
  if (!tenant) return { kind: 'no_tenant' } as const;
  // a same-key submit that held the lock before us has committed by now: it is seen here
  const raced = await existing(tx, tenantId, submission.idempotencyKey);
  if (raced) return raced;
  const wallet = tenant.screeningWallet;
  if (!wallet.tryCharge(limits.spec.creditsPerScreen, now)) return { kind: 'exhausted' } as const;
  const requestId = freshId('scr');
  const payload = { creditsCharged: limits.spec.creditsPerScreen, candidateKind: submission.candidate.kind };
  // the charge, the request, its intake row and its queued job in one statement: one round trip
  await tx.query(
    `WITH t AS (UPDATE tenants SET screening_remaining = $3, screening_reset_at = $4, ledger_seq = ledger_seq + 1 WHERE id = $1 RETURNING ledger_seq),
          r AS (INSERT INTO screening_requests (id, tenant_id, idempotency_key, state, submission, created_at) VALUES ($2, $1, $5, 'received', $6, $7)),
          j AS (INSERT INTO pipeline_jobs (request_id) VALUES ($2))
     INSERT INTO ledger (tenant_id, seq, event_id, request_id, from_state, to_state, actor, payload, created_at)
     SELECT $1, t.ledger_seq, 'evt_' || to_hex(nextval('ledger_event_seq')), $2, NULL, 'received', 'system', $8, $7 FROM t`,
    [tenantId, requestId, wallet.remaining, wallet.resetAt, submission.idempotencyKey, submission, now, payload],
  );
  return { kind: 'created', requestId, state: 'received' } as const;
}

/**
 * Moves a request from `from` to `to` with its ledger row, in one transaction; false (and nothing
 * written) when the request is no longer in `from` — another instance got there first.
 */
export async function transition(db: Db, requestId: string, from: ScreeningState, to: ScreeningState, actor: Actor, payload: LedgerPayload | null, now: number, extra: { reviewExpiresAt?: number | null } = {}): Promise<boolean> {
  return inTx(db, async (tx) => {
    const { rows } = await tx.query(`SELECT tenant_id FROM screening_requests WHERE id = $1`, [requestId]);
    if (!rows.length) return false;
    await lockTenant(tx, rows[0].tenant_id);
    const moved = await tx.query(`UPDATE screening_requests SET state = $3, review_expires_at = COALESCE($4, review_expires_at) WHERE id = $1 AND state = $2`, [requestId, from, to, extra.reviewExpiresAt ?? null]);
    if (moved.rowCount !== 1) return false;
    await appendRow(tx, rows[0].tenant_id, requestId, from, to, actor, payload, now);
    return true;
  });
}

/** Expires every request whose review window has closed by `now`; each exactly once, whichever instance sweeps. */
export async function expireDue(db: Db, now: number): Promise<string[]> {
  const { rows } = await db.query(`SELECT id FROM screening_requests WHERE state = 'pending_review' AND review_expires_at <= $1`, [now]);
  const expired: string[] = [];
  for (const r of rows) {
    const payload = { reason: 'review window elapsed', reviewWindowHours: limits.policy.reviewWindowHours };
    if (await transition(db, r.id, 'pending_review', 'expired', 'system', payload, now)) expired.push(r.id);
  }
  return expired;
}

export interface LedgerPageRow {
  seq: number;
  id: string;
  requestId: string;
  fromState: ScreeningState | null;
  toState: ScreeningState;
  actor: string;
  createdAt: number;
}

/** One keyset page of a tenant's ledger: rows after `afterSeq`, oldest first. */
export async function ledgerPage(db: Db, tenantId: string, afterSeq: number, limit: number): Promise<{ rows: LedgerPageRow[]; more: boolean }> {
  const { rows } = await db.query(
    `SELECT seq, event_id, request_id, from_state, to_state, actor, created_at FROM ledger WHERE tenant_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [tenantId, afterSeq, limit + 1],
  );
  const page = rows.slice(0, limit).map((r) => ({ seq: r.seq, id: r.event_id, requestId: r.request_id, fromState: r.from_state, toState: r.to_state, actor: r.actor, createdAt: r.created_at }));
  return { rows: page, more: rows.length > limit };
}

/** The tenant's screening wallet as stored now. */
export async function screeningCredits(db: Db, tenantId: string): Promise<{ remaining: number; cap: number } | null> {
  const { rows } = await db.query(`SELECT screening_remaining, screening_cap FROM tenants WHERE id = $1`, [tenantId]);
  return rows.length ? { remaining: rows[0].screening_remaining, cap: rows[0].screening_cap } : null;
}
