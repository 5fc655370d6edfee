// Plan tiers and limits (contracts/limits.yaml, read and checked by the contract layer): the tier lookups.
// Requirements: SCR-LIMIT-1, JOB-RATE-2, JOB-TIER-1, JOB-TIER-2, JOB-TIER-3, POL-CREDIT-1, POL-TIER-2; decisions
// D-05, D-14, D-18, D-20, D-126.

import { limits, type JobsTier, type PlanTier } from '../contract/limits.js';

export { limits, LIMITS_PATH } from '../contract/limits.js';
export type { JobsTier, JobsTierLimits, Limits, PlanTier } from '../contract/limits.js';

export const PLAN_TIERS = limits.spec.screeningTiers;

export const isPlanTier = (v: unknown): v is PlanTier => typeof v === 'string' && (PLAN_TIERS as string[]).includes(v);

export const jobsTierOf = (tier: PlanTier): JobsTier => limits.policy.jobsTierOf[tier];

export const jobsLimitsOf = (tier: PlanTier) => limits.spec.jobs[jobsTierOf(tier)];

/** The 402 upsell's next step: the billing page of the dashboard of the sandbox that answers (D-126). */
export const upgradeUrlOf = (config: { readonly appUrl: string }): string => `${config.appUrl}/billing`;

/** Start of the next calendar month, UTC, after `now` (ms). */
export function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
