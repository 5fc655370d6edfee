// GET /me and the get_me tool: the caller's jobs tier, scopes, apply-credit balance and limits.
// Requirements: JOB-ME-1, JOB-ME-2, MCP-TOOL-7, POL-ME-1; decisions D-24.

import { jobsLimitsOf, jobsTierOf, limits } from '../plans.js';
import type { Principal } from '../tenants.js';
import type { Me } from './types.js';

export function meOf(principal: Principal, now: number): Me {
  const { tenant, key } = principal;
  const tier = jobsTierOf(tenant.planTier);
  const tierLimits = jobsLimitsOf(tenant.planTier);
  // as of now, without changing the wallet (a read is no step, D-162)
  const wallet = tenant.applyWallet.at(now);
  return {
    tier,
    scopes: [...key.scopes],
    applyCredits: {
      remaining: wallet.remaining,
      perMonth: tierLimits.applyCreditsPerMonth,
      resetAt: wallet.resetAt === null ? null : new Date(wallet.resetAt).toISOString(),
    },
    limits: {
      rateLimitPerMinute: tierLimits.rateLimitPerMinute,
      maxPages: tierLimits.maxPages,
      applyEnabled: tierLimits.applyEnabled,
      adFree: tierLimits.adFree,
      talentSearchPerDay: limits.spec.talentSearchPerDay,
      draftApplicationPerMonth: limits.policy.draftApplicationPerMonth[tier],
    },
  };
}
