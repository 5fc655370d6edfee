// contracts/limits.yaml, read once and checked against its schema here: the plan tiers and numeric limits
// (`spec:` stated by the documents, `policy:` this sandbox's choices). The types are inferred from the
// schema, so a field the file lacks, mistypes or adds is refused at start-up with its path, never cast.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { CONTRACTS_DIR } from './load.js';

const count = z.number().int().nonnegative();
const range = z.object({ min: count, max: count, default: count.optional() }).strict();
const planTier = z.enum(['free', 'starter', 'pro', 'scale']);
const jobsTier = z.enum(['free', 'starter', 'pro']);
const perJobsTier = <T extends z.ZodTypeAny>(v: T) => z.object({ free: v, starter: v, pro: v }).strict();
const perPlanTier = <T extends z.ZodTypeAny>(v: T) => z.object({ free: v, starter: v, pro: v, scale: v }).strict();

const jobsTierLimits = z
  .object({
    priceUsdPerMonth: z.number().nonnegative(),
    rateLimitPerMinute: count,
    maxPages: count,
    applyEnabled: z.boolean(),
    applyCreditsPerMonth: count,
    adFree: z.boolean(),
  })
  .strict();

const LimitsSchema = z
  .object({
    spec: z
      .object({
        screeningTiers: z.array(planTier),
        jobsTiers: z.array(jobsTier),
        creditsPerScreen: count,
        creditsPerApply: count,
        nearLimitRatio: z.number().min(0).max(1),
        auditLimit: range,
        searchLimit: range,
        skillsLimit: range,
        applyMessageLength: range,
        talentSearchPerDay: count,
        talentSearchMaxCards: count,
        hireMinStrongMatches: count,
        anonMcpCallsPerDayPerIp: count,
        jobs: perJobsTier(jobsTierLimits),
      })
      .strict(),
    policy: z
      .object({
        jobsTierOf: perPlanTier(jobsTier),
        screening: perPlanTier(z.object({ creditsCap: count, resets: z.enum(['never', 'monthly']) }).strict()),
        draftApplicationPerMonth: perJobsTier(count),
        hireStrongMatchScore: z.number().min(0).max(100),
        reviewWindowHours: z.number().positive(),
        bodyMaxBytes: count,
        stringMaxLength: count,
        arrayMaxItems: count,
        objectMaxProperties: count,
        jsonMaxDepth: count,
        jsonMaxValues: count,
        validationMaxMessages: count,
        headerMaxBytes: count,
        consoleLoginFailuresPerMinute: count,
        sponsoredEvery: count,
        dashboard: z
          .object({
            scalePriceUsdPerMonth: z.number().nonnegative(),
            idrPerUsd: z.number().positive(),
            testCards: z
              .object({ succeeds: z.string().regex(/^\d{12,19}$/), declined: z.string().regex(/^\d{12,19}$/) })
              .strict(),
            signInFailuresPerMinute: count,
            signUpAttemptsPerMinute: count,
            accountsPerAddressPerDay: count,
            sessionHours: z.number().positive(),
            sessionsPerAccount: count,
          })
          .strict(),
        webhook: z.object({ timeoutMs: count, retryScheduleSeconds: z.array(count) }).strict(),
      })
      .strict(),
  })
  .strict();

export type Limits = z.infer<typeof LimitsSchema>;
export type PlanTier = z.infer<typeof planTier>;
export type JobsTier = z.infer<typeof jobsTier>;
export type JobsTierLimits = z.infer<typeof jobsTierLimits>;

export const LIMITS_PATH = `${CONTRACTS_DIR}limits.yaml`;

/** The limits in `text` (YAML), checked; a mismatch is an error naming each path. */
export function parseLimits(text: string, source = LIMITS_PATH): Readonly<Limits> {
  const checked = LimitsSchema.safeParse(parse(text));
  if (!checked.success) {
    const problems = checked.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new Error(`${source} does not match its schema: ${problems.join('; ')}`);
  }
  return Object.freeze(checked.data);
}

export const limits: Readonly<Limits> = parseLimits(readFileSync(LIMITS_PATH, 'utf8'));
