// Tenants (accounts) and their API keys. A tenant has one plan tier across both APIs, two credit
// wallets (screening and jobs apply), webhook settings and a disabled flag. Keys are shown once at
// creation and stored only as a SHA-256 hash; each key carries its own scopes.
// Requirements: SCR-AUTH-1, SCR-AUTH-2, SCR-AUTH-3, SCR-AUTH-4, JOB-AUTH-1, JOB-AUTH-2, JOB-AUTH-3, JOB-AUTH-4,
// MCP-KEYED-2, POL-AUTH-1, POL-AUTH-3, POL-TIER-2, POL-CREDIT-3; decisions D-06, D-17, D-18, D-30, D-128.

import { hash } from 'node:crypto';
import { DomainError, forbidden, notFound, unauthorized } from '../errors/errors.js';
import type { TenantClock } from './clock.js';
import { copyData } from './copy.js';
import type { IdFactory } from './rng.js';
import { type PlanTier, jobsLimitsOf, limits } from './plans.js';
import { Wallet, type WalletState } from './wallet.js';
import type { AutoReview } from './screening/autoReview.js';

export const SCOPES = ['screening', 'jobs', 'apply', 'market', 'mcp', 'employer'] as const;
export type Scope = (typeof SCOPES)[number];

export const KEY_PREFIX = 'rjk_live_';

export interface Tenant {
  id: string;
  name: string;
  planTier: PlanTier;
  disabled: boolean;
  webhookUrl: string | null;
  webhookSecret: string;
  /** The secret before the last rotation, still signing deliveries until previousSecretExpiresAt (D-101). */
  previousWebhookSecret: string | null;
  previousSecretExpiresAt: number | null;
  screeningWallet: Wallet;
  applyWallet: Wallet;
  createdAt: number;
  /** The tenant's own clock: the sandbox clock plus this tenant's offset, with its timers (D-120). */
  clock: TenantClock;
  /** The automatic reviewer's setting; null: off (the default), D-134. */
  autoReview: AutoReview | null;
}

export interface ApiKey {
  id: string;
  tenantId: string;
  hash: string;
  /** First characters of the key, safe to show again (e.g. rjk_live_ab12…). */
  hint: string;
  scopes: Scope[];
  createdAt: number;
}

/** Who is calling: resolved from a bearer key on every request. */
export interface Principal {
  tenant: Tenant;
  key: ApiKey;
}

export interface CreateTenantInput {
  planTier: PlanTier;
  name?: string;
  scopes?: Scope[];
  webhookUrl?: string | null;
  webhookSecret?: string;
  /** Fixed key material for deterministic demo fixtures; random otherwise. */
  apiKey?: string;
  /** A fixed tenant id, for the demo tenants (derived from the seed); a fresh id otherwise. */
  id?: string;
}

// one-shot digest: no Hash object per call (every keyed request hashes its key)
export const hashKey = (key: string) => hash('sha256', key, 'hex');

// The digests of the keys seen last: a key's digest never changes, and a client sends its key on every
// call. Bounded: cleared whole when full, so unknown keys sent in bulk cost one digest each, as before.
const recentDigests = new Map<string, string>();
const RECENT_DIGESTS = 1024;

/** A key's digest, kept for the keys seen last (the partition router asks it for every keyed call too). */
export function digestOf(key: string): string {
  let digest = recentDigests.get(key);
  if (digest === undefined) {
    digest = hashKey(key);
    if (recentDigests.size >= RECENT_DIGESTS) recentDigests.clear();
    recentDigests.set(key, digest);
  }
  return digest;
}

/** A tenant as a snapshot keeps it: its record with both wallets, its live keys, its place in the tenant list (D-137). */
export interface TenantState {
  tenant: Omit<Tenant, 'clock' | 'screeningWallet' | 'applyWallet'> & {
    screeningWallet: WalletState;
    applyWallet: WalletState;
  };
  keys: ApiKey[];
  position: number;
}

export class TenantService {
  private tenants = new Map<string, Tenant>();
  private keysByHash = new Map<string, ApiKey>();
  /** Each tenant's live keys in the order they were issued (a tenant's keys without a walk over everyone's). */
  private keysByTenant = new Map<string, ApiKey[]>();
  private order: Tenant[] = [];
  /**
   * Each tenant's place in the creation order (drawn from the id factory's global counters), so a tenant that
   * is forgotten and imported again (a shared sandbox keeps only the tenants in use in memory) takes its place back.
   */
  private ordinals = new Map<string, number>();

  constructor(
    private readonly ids: IdFactory,
    /** A tenant's clock (D-120). */
    private readonly clockOf: (tenantId: string) => TenantClock,
  ) {}

  private now(tenantId: string): number {
    return this.get(tenantId).clock.now();
  }

  create(input: CreateTenantInput): { tenant: Tenant; apiKey: string; key: ApiKey } {
    const id = input.id ?? this.ids.next('ten');
    const clock = this.clockOf(id);
    const now = clock.now();
    const tenant: Tenant = {
      id,
      name: input.name ?? `${input.planTier} tenant`,
      planTier: input.planTier,
      disabled: false,
      webhookUrl: input.webhookUrl ?? null,
      webhookSecret: input.webhookSecret ?? `whsec_${this.ids.secret(32)}`,
      previousWebhookSecret: null,
      previousSecretExpiresAt: null,
      screeningWallet: new Wallet(0, false, now),
      applyWallet: new Wallet(0, false, now),
      createdAt: now,
      clock,
      autoReview: null,
    };
    this.applyPlan(tenant, input.planTier);
    this.tenants.set(tenant.id, tenant);
    this.ordinals.set(tenant.id, this.ids.ordinal('tenant'));
    this.order.push(tenant);
    const { apiKey, key } = this.issueKey(tenant.id, input.scopes ?? [...SCOPES], input.apiKey);
    return { tenant, apiKey, key };
  }

  issueKey(tenantId: string, scopes: Scope[], fixed?: string): { apiKey: string; key: ApiKey } {
    this.get(tenantId);
    const apiKey = fixed ?? `${KEY_PREFIX}${this.ids.secret(32)}`;
    const key: ApiKey = {
      id: this.ids.nextOf(tenantId, 'key'),
      tenantId,
      hash: hashKey(apiKey),
      hint: `${apiKey.slice(0, KEY_PREFIX.length + 4)}…`,
      scopes: [...new Set(scopes)],
      createdAt: this.now(tenantId),
    };
    this.keysByHash.set(key.hash, key);
    const mine = this.keysByTenant.get(tenantId);
    if (mine) mine.push(key);
    else this.keysByTenant.set(tenantId, [key]);
    return { apiKey, key };
  }

  /** Revokes a key of this tenant: it answers 401 from the next call on (D-128). Another tenant's key id is absent. */
  revokeKey(tenantId: string, keyId: string): ApiKey {
    const key = this.keysOf(tenantId).find((k) => k.id === keyId);
    if (!key) throw notFound(`key ${keyId} does not exist`);
    this.keysByHash.delete(key.hash);
    this.keysByTenant.set(
      tenantId,
      this.keysOf(tenantId).filter((k) => k !== key),
    );
    return key;
  }

  /** Sets the tier and re-plans both wallets (full refill at the new caps). */
  applyPlan(tenant: Tenant, tier: PlanTier): void {
    const now = tenant.clock.now();
    const scr = limits.policy.screening[tier];
    tenant.planTier = tier;
    tenant.screeningWallet.replan(scr.creditsCap, scr.resets === 'monthly', now);
    const jobs = jobsLimitsOf(tier);
    tenant.applyWallet.replan(jobs.applyCreditsPerMonth, jobs.applyCreditsPerMonth > 0, now);
  }

  get(tenantId: string): Tenant {
    const t = this.tenants.get(tenantId);
    if (!t) throw notFound(`tenant ${tenantId} does not exist`);
    return t;
  }

  list(): Tenant[] {
    return [...this.tenants.values()];
  }

  /** Whether the tenant is held here (a shared sandbox holds only the tenants in use, D-150). */
  has(tenantId: string): boolean {
    return this.tenants.has(tenantId);
  }

  /**
   * A new webhook secret; the old one keeps signing (a second signature header) for `overlapSeconds`
   * of sandbox time, so receivers can switch without dropping a delivery.
   */
  rotateWebhookSecret(tenant: Tenant, overlapSeconds: number, next?: string): void {
    tenant.previousWebhookSecret = tenant.webhookSecret;
    tenant.previousSecretExpiresAt = tenant.clock.now() + overlapSeconds * 1000;
    tenant.webhookSecret = next ?? `whsec_${this.ids.secret(32)}`;
  }

  /** The pre-rotation secret while its overlap window is open, else null. */
  previousSecretOf(tenant: Tenant): string | null {
    const until = tenant.previousSecretExpiresAt;
    return tenant.previousWebhookSecret !== null && until !== null && tenant.clock.now() < until
      ? tenant.previousWebhookSecret
      : null;
  }

  /** Tenants in creation order, read only (the control API pages through it). */
  ordered(): readonly Tenant[] {
    return this.order;
  }

  keysOf(tenantId: string): ApiKey[] {
    return [...(this.keysByTenant.get(tenantId) ?? [])];
  }

  /**
   * Resolves a bearer key. Unknown or malformed: 401. Known key of a disabled tenant, or a key
   * without the required scope: 403.
   */
  authenticate(apiKey: string | undefined, scope?: Scope): Principal {
    if (!apiKey) throw unauthorized('missing bearer API key: send Authorization: Bearer <API_KEY>');
    const key = this.keysByHash.get(digestOf(apiKey));
    if (!key) throw unauthorized('the API key is not valid');
    const tenant = this.get(key.tenantId);
    if (tenant.disabled) throw forbidden(`tenant ${tenant.id} is disabled`);
    if (scope && !key.scopes.includes(scope)) {
      throw forbidden(`this API key lacks the '${scope}' scope`);
    }
    return { tenant, key };
  }

  /**
   * The tenant a bearer key belongs to, without deciding anything (no 401/403): null for a missing or unknown
   * key. Tenant-scoped chaos rules use it before the call is authenticated (D-121).
   */
  tenantIdOfKey(apiKey: string | undefined): string | null {
    return apiKey ? (this.keysByHash.get(digestOf(apiKey))?.tenantId ?? null) : null;
  }

  /**
   * The key and its tenant, without deciding anything (no 401/403; a disabled tenant's key too): null for a missing
   * or unknown key. A call that never reached its key's window shows that window in its headers (D-155).
   */
  holderOfKey(apiKey: string | undefined): Principal | null {
    const key = apiKey ? this.keysByHash.get(digestOf(apiKey)) : undefined;
    return key ? { tenant: this.get(key.tenantId), key } : null;
  }

  /** For adapters that must check a scope after resolving the principal. */
  requireScope(p: Principal, scope: Scope): void {
    if (!p.key.scopes.includes(scope)) throw new DomainError('forbidden', `this API key lacks the '${scope}' scope`);
  }

  /** One tenant's record, keys and place in the creation order, JSON-safe (D-137). */
  exportTenant(tenantId: string): TenantState {
    const position = this.ordinals.get(tenantId) ?? this.order.findIndex((t) => t.id === tenantId);
    const { clock: _clock, screeningWallet, applyWallet, ...rest } = this.get(tenantId);
    return {
      tenant: copyData({
        ...rest,
        screeningWallet: screeningWallet.exportState(),
        applyWallet: applyWallet.exportState(),
      }),
      keys: copyData(this.keysOf(tenantId)),
      position,
    };
  }

  /** Puts an exported tenant back (its clock is the one the clock holder restored). */
  importTenant(state: TenantState): void {
    const s = structuredClone(state);
    const tenant: Tenant = {
      ...s.tenant,
      screeningWallet: Wallet.fromState(s.tenant.screeningWallet),
      applyWallet: Wallet.fromState(s.tenant.applyWallet),
      clock: this.clockOf(s.tenant.id),
    };
    this.forgetTenant(tenant.id);
    this.tenants.set(tenant.id, tenant);
    // its place among the tenants in memory: before the first one created after it
    let lo = 0;
    for (let hi = this.order.length; lo < hi;) {
      const mid = (lo + hi) >> 1;
      if ((this.ordinals.get(this.order[mid].id) ?? 0) < s.position) lo = mid + 1;
      else hi = mid;
    }
    this.order.splice(lo, 0, tenant);
    this.ordinals.set(tenant.id, s.position);
    this.ids.ordinalAtLeast('tenant', s.position + 1);
    for (const key of s.keys) this.keysByHash.set(key.hash, key);
    this.keysByTenant.set(tenant.id, s.keys);
  }

  /** Drops a tenant and its keys. */
  forgetTenant(tenantId: string): void {
    if (!this.tenants.delete(tenantId)) return;
    this.ordinals.delete(tenantId);
    this.order = this.order.filter((t) => t.id !== tenantId);
    for (const key of this.keysOf(tenantId)) this.keysByHash.delete(key.hash);
    this.keysByTenant.delete(tenantId);
  }

  clear(): void {
    this.tenants.clear();
    this.keysByHash.clear();
    this.keysByTenant.clear();
    this.order = [];
    this.ordinals.clear();
  }
}
