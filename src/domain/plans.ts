// Plan tiers and limits, read once from contracts/limits.yaml (spec values and sandbox policy).
// Requirements: SCR-LIMIT-1, JOB-RATE-2, JOB-TIER-1, JOB-TIER-2, JOB-TIER-3, POL-CREDIT-1, POL-TIER-2; decisions
// D-05, D-14, D-18, D-20.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export type PlanTier = 'free' | 'starter' | 'pro' | 'scale';
export type JobsTier = 'free' | 'starter' | 'pro';

interface Range {
  min: number;
  max: number;
  default?: number;
}

export interface JobsTierLimits {
  priceUsdPerMonth: number;
  rateLimitPerMinute: number;
  maxPages: number;
  applyEnabled: boolean;
  applyCreditsPerMonth: number;
  adFree: boolean;
}

export interface Limits {
  spec: {
    screeningTiers: PlanTier[];
    jobsTiers: JobsTier[];
    creditsPerScreen: number;
    creditsPerApply: number;
    nearLimitRatio: number;
    auditLimit: Range;
    searchLimit: Range;
    skillsLimit: Range;
    applyMessageLength: Range;
    talentSearchPerDay: number;
    talentSearchMaxCards: number;
    hireMinStrongMatches: number;
    anonMcpCallsPerDayPerIp: number;
    jobs: Record<JobsTier, JobsTierLimits>;
  };
  policy: {
    jobsTierOf: Record<PlanTier, JobsTier>;
    screening: Record<PlanTier, { creditsCap: number; resets: 'never' | 'monthly' }>;
    draftApplicationPerMonth: Record<JobsTier, number>;
    hireStrongMatchScore: number;
    reviewWindowHours: number;
    bodyMaxBytes: number;
    stringMaxLength: number;
    arrayMaxItems: number;
    objectMaxProperties: number;
    jsonMaxDepth: number;
    jsonMaxValues: number;
    validationMaxMessages: number;
    headerMaxBytes: number;
    consoleLoginFailuresPerMinute: number;
    sponsoredEvery: number;
    webhook: { timeoutMs: number; retryScheduleSeconds: number[] };
    upgradeUrl: string;
  };
}

export const LIMITS_PATH = fileURLToPath(new URL('../../contracts/limits.yaml', import.meta.url));

export const limits: Readonly<Limits> = Object.freeze(parse(readFileSync(LIMITS_PATH, 'utf8')) as Limits);

export const PLAN_TIERS = limits.spec.screeningTiers;

export const isPlanTier = (v: unknown): v is PlanTier => typeof v === 'string' && (PLAN_TIERS as string[]).includes(v);

export const jobsTierOf = (tier: PlanTier): JobsTier => limits.policy.jobsTierOf[tier];

export const jobsLimitsOf = (tier: PlanTier): JobsTierLimits => limits.spec.jobs[jobsTierOf(tier)];

/** Start of the next calendar month, UTC, after `now` (ms). */
export function nextMonthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
