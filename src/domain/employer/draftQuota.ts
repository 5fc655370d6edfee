// The monthly AI quota of draft_application, per tenant (one saved resume per account) and per jobs
// tier (limits.policy.draftApplicationPerMonth), reset at the start of each calendar month UTC.
// Exhausted: the free tier gets payment_required with the upgrade link, paid tiers rate_limited with
// the seconds until the quota resets.
// Requirements: MCP-TOOL-4, POL-MCP-5, POL-MCP-14; decisions D-31.

import { paymentRequired, rateLimited } from '../../errors/errors.js';
import { jobsTierOf, limits, nextMonthStart } from '../plans.js';
import type { Tenant } from '../tenants.js';

export interface QuotaState {
  used: number;
  limit: number;
  remaining: number;
  resetAt: string;
}

export class DraftQuota {
  private used = new Map<string, { month: number; count: number }>();

  private monthOf(now: number): number {
    const d = new Date(now);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }

  state(tenant: Tenant, now: number): QuotaState {
    const limit = limits.policy.draftApplicationPerMonth[jobsTierOf(tenant.planTier)];
    const entry = this.used.get(tenant.id);
    const used = entry && entry.month === this.monthOf(now) ? entry.count : 0;
    return { used, limit, remaining: Math.max(0, limit - used), resetAt: new Date(nextMonthStart(now)).toISOString() };
  }

  /** Throws when the month's drafts are used up. */
  assertAvailable(tenant: Tenant, now: number, upgradeUrl: string): void {
    const s = this.state(tenant, now);
    if (s.remaining > 0) return;
    const tier = jobsTierOf(tenant.planTier);
    const msg = `the ${tier} tier's monthly quota of ${s.limit} draft_application calls is used up; it resets at ${s.resetAt}`;
    if (tier === 'free') throw paymentRequired(`${msg}. Upgrade for a larger quota.`, { upgradeUrl });
    throw rateLimited(msg, Math.max(1, Math.ceil((nextMonthStart(now) - now) / 1000)));
  }

  /** Counts one successful draft. */
  consume(tenant: Tenant, now: number): QuotaState {
    const month = this.monthOf(now);
    const entry = this.used.get(tenant.id);
    this.used.set(tenant.id, { month, count: entry && entry.month === month ? entry.count + 1 : 1 });
    return this.state(tenant, now);
  }

  clear(): void {
    this.used.clear();
  }

  /** A tenant's count this month, or null (D-136). */
  exportTenant(tenantId: string): { month: number; count: number } | null {
    const e = this.used.get(tenantId);
    return e ? { ...e } : null;
  }

  importTenant(tenantId: string, state: { month: number; count: number } | null): void {
    if (state) this.used.set(tenantId, { ...state });
    else this.used.delete(tenantId);
  }

  forgetTenant(tenantId: string): void {
    this.used.delete(tenantId);
  }
}
