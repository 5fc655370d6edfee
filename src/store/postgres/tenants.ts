// Tenants, API keys and both wallets in PostgreSQL. A wallet is two columns and a reset time on the
// tenant's row; it is only changed under that row's lock (SELECT … FOR UPDATE), and a CHECK keeps
// `remaining` from ever going below zero, whatever an instance computes.

import { jobsLimitsOf, limits, type PlanTier } from '../../domain/plans.js';
import { secureToken } from '../../domain/rng.js';
import { hashKey, KEY_PREFIX, SCOPES, type Scope, type Tenant } from '../../domain/tenants.js';
import { Wallet } from '../../domain/wallet.js';
import { inTx, type Db, type Tx } from './pool.js';

/** A tenant's row: the domain's tenant fields this store reads, and the last ledger sequence number. */
export type TenantRow = Pick<Tenant, 'id' | 'name' | 'planTier' | 'disabled' | 'webhookUrl' | 'webhookSecret' | 'screeningWallet' | 'applyWallet' | 'createdAt'> & { ledgerSeq: number };

function walletOf(cap: number, remaining: number, resetAt: number | null): Wallet {
  const w = new Wallet(cap, false, 0);
  w.remaining = remaining;
  w.resetAt = resetAt;
  return w;
}

export function tenantOf(r: Record<string, any>): TenantRow {
  return {
    id: r.id,
    name: r.name,
    planTier: r.plan_tier,
    disabled: r.disabled,
    webhookUrl: r.webhook_url,
    webhookSecret: r.webhook_secret,
    ledgerSeq: r.ledger_seq,
    screeningWallet: walletOf(r.screening_cap, r.screening_remaining, r.screening_reset_at),
    applyWallet: walletOf(r.apply_cap, r.apply_remaining, r.apply_reset_at),
    createdAt: r.created_at,
  };
}

export interface NewTenant {
  planTier: PlanTier;
  name?: string;
  scopes?: Scope[];
  webhookUrl?: string | null;
  apiKey?: string;
  id?: string;
}

/** Ids drawn at random: unique across instances, unlike a per-process seeded sequence. */
export const freshId = (prefix: string) => `${prefix}_${secureToken(20)}`;

export async function createTenant(db: Db | Tx, input: NewTenant, now: number): Promise<{ tenantId: string; apiKey: string }> {
  const scr = limits.policy.screening[input.planTier];
  const screening = new Wallet(scr.creditsCap, scr.resets === 'monthly', now);
  const jobs = jobsLimitsOf(input.planTier);
  const apply = new Wallet(jobs.applyCreditsPerMonth, jobs.applyCreditsPerMonth > 0, now);
  const id = input.id ?? freshId('ten');
  await db.query(
    `INSERT INTO tenants (id, name, plan_tier, webhook_url, webhook_secret, created_at, screening_cap, screening_remaining, screening_reset_at, apply_cap, apply_remaining, apply_reset_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9, $9, $10)`,
    [id, input.name ?? `${input.planTier} tenant`, input.planTier, input.webhookUrl ?? null, `whsec_${secureToken(32)}`, now, screening.cap, screening.resetAt, apply.cap, apply.resetAt],
  );
  const apiKey = input.apiKey ?? `${KEY_PREFIX}${secureToken(32)}`;
  await db.query(`INSERT INTO api_keys (id, tenant_id, hash, hint, scopes, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    freshId('key'),
    id,
    hashKey(apiKey),
    `${apiKey.slice(0, KEY_PREFIX.length + 4)}…`,
    [...new Set(input.scopes ?? SCOPES)],
    now,
  ]);
  return { tenantId: id, apiKey };
}

/** The tenant and scopes of a bearer key, read from the database on every call (no cache that lags). */
export async function keyOwner(db: Db | Tx, apiKey: string): Promise<{ tenant: TenantRow; scopes: Scope[] } | null> {
  const { rows } = await db.query(`SELECT t.*, k.scopes FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.hash = $1`, [hashKey(apiKey)]);
  return rows.length ? { tenant: tenantOf(rows[0]), scopes: rows[0].scopes } : null;
}

/** Locks the tenant's row for the rest of the transaction and reads it. */
export async function lockTenant(tx: Tx, tenantId: string): Promise<TenantRow | null> {
  const { rows } = await tx.query(`SELECT * FROM tenants WHERE id = $1 FOR UPDATE`, [tenantId]);
  return rows.length ? tenantOf(rows[0]) : null;
}

export type AppliedOutcome = { kind: 'submitted'; applicationId: string; creditsRemaining: number } | { kind: 'no_credits' } | { kind: 'no_tenant' };

/**
 * Spends one apply credit and queues the application in one transaction, under the tenant's row lock:
 * concurrent applies on any instances never spend more than the wallet holds.
 */
export async function applyWithCredit(db: Db, tenantId: string, record: object, now: number): Promise<AppliedOutcome> {
  return inTx(db, async (tx) => {
    const tenant = await lockTenant(tx, tenantId);
    if (!tenant) return { kind: 'no_tenant' } as const;
    const wallet = tenant.applyWallet;
    if (!wallet.tryCharge(limits.spec.creditsPerApply, now)) return { kind: 'no_credits' } as const;
    const applicationId = freshId('app');
    await tx.query(
      `WITH t AS (UPDATE tenants SET apply_remaining = $3, apply_reset_at = $4 WHERE id = $1)
       INSERT INTO applications (id, tenant_id, record, created_at) VALUES ($2, $1, $5, $6)`,
      [tenantId, applicationId, wallet.remaining, wallet.resetAt, { ...record, applicationId }, now],
    );
    return { kind: 'submitted', applicationId, creditsRemaining: wallet.remaining } as const;
  });
}
