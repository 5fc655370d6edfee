// The credit wallet as GET /usage reports it: the caller's own tenant and tier, integer balances, a
// usagePercent in [0, 1], nearLimit exactly at 80% used, freeScreenCap only on the free tier.

import fc from 'fast-check';
import type { Check } from '../check.js';
import { violation } from '../failure.js';
import { jsonOf } from '../target/http.js';
import { expectStatus, readUsage, screening } from './support.js';
import type { Answer } from '../json.js';

const TIERS = ['free', 'starter', 'pro', 'scale'] as const;
const POLICY_CAPS: Record<(typeof TIERS)[number], number> = { free: 10, starter: 100, pro: 500, scale: 2000 };

function startOfNextMonthUtc(iso: string): boolean {
  const d = new Date(iso);
  return (
    d.getUTCDate() === 1 &&
    d.getUTCHours() === 0 &&
    d.getUTCMinutes() === 0 &&
    d.getUTCSeconds() === 0 &&
    d.getUTCMilliseconds() === 0
  );
}

const shape: Check = {
  id: 'screening.usage.tiers',
  title: "GET /usage reports the caller's own tenant and tier with the documented fields, on every tier",
  requirements: [
    'SCR-USAGE-1',
    'SCR-USAGE-2',
    'SCR-USAGE-3',
    'SCR-USAGE-4',
    'SCR-USAGE-5',
    'SCR-USAGE-6',
    'SCR-AUTH-4',
    'POL-USAGE-1',
    'POL-USAGE-2',
    'POL-CREDIT-1',
    'POL-LIMIT-1',
  ],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    for (const tier of TIERS) {
      await ctx.failures.step(async () => {
        const t = await ctx.tenants.get(tier);
        const ex = await screening(ctx).usage(t.apiKey);
        expectStatus(ex, 200, 'SCR-USAGE-1', `GET /usage for a ${tier} key`);
        const u = ex.response!.json as Answer;
        if (t.tenantId && u?.tenantId !== t.tenantId)
          throw violation(
            'SCR-AUTH-4',
            `GET /usage for tenant ${t.tenantId} reports tenantId ${JSON.stringify(u?.tenantId)}`,
            ex,
          );
        if (u?.planTier !== tier)
          throw violation(
            t.tenantId ? 'SCR-AUTH-4' : 'SCR-USAGE-2',
            `GET /usage for a ${tier} key reports planTier ${JSON.stringify(u?.planTier)}`,
            ex,
          );
        if (!Number.isInteger(u.creditsRemaining) || !Number.isInteger(u.creditsCap))
          throw violation('SCR-USAGE-2', 'creditsRemaining and creditsCap must be integers', ex);
        if (typeof u.usagePercent !== 'number' || u.usagePercent < 0 || u.usagePercent > 1)
          throw violation(
            'SCR-USAGE-3',
            `usagePercent ${JSON.stringify(u.usagePercent)} is not a number from 0 to 1`,
            ex,
          );
        const used = u.creditsCap - u.creditsRemaining;
        if (u.creditsCap > 0 && u.nearLimit !== used >= 0.8 * u.creditsCap)
          throw violation(
            'SCR-USAGE-4',
            `nearLimit is ${u.nearLimit} with ${used} of ${u.creditsCap} credits used`,
            ex,
          );
        if ((tier === 'free') !== 'freeScreenCap' in u)
          throw violation(
            'SCR-USAGE-5',
            `freeScreenCap is ${'freeScreenCap' in u ? 'present' : 'absent'} on the ${tier} tier`,
            ex,
          );
        if (
          !('resetAt' in u) ||
          (u.resetAt !== null && (typeof u.resetAt !== 'string' || Number.isNaN(Date.parse(u.resetAt))))
        )
          throw violation('SCR-USAGE-6', `resetAt is ${JSON.stringify(u.resetAt)}, neither a date-time nor null`, ex);
        // policy
        if (u.creditsCap > 0 && Math.abs(u.usagePercent - used / u.creditsCap) > 1e-9)
          ctx.failures.add(
            'POL-USAGE-1',
            `usagePercent ${u.usagePercent} is not (cap − remaining) / cap = ${used / u.creditsCap}`,
            ex,
          );
        if (tier === 'free' ? u.resetAt !== null : !(typeof u.resetAt === 'string' && startOfNextMonthUtc(u.resetAt)))
          ctx.failures.add(
            'POL-USAGE-2',
            `resetAt ${JSON.stringify(u.resetAt)} on the ${tier} tier (expected ${tier === 'free' ? 'null' : 'the start of a calendar month UTC'})`,
            ex,
          );
        if (ex.response!.headers['x-ratelimit-limit'] !== undefined)
          ctx.failures.add(
            'POL-LIMIT-1',
            'a screening response carries rate-limit headers; the screening endpoints are not rate-limited',
            ex,
          );
        if (t.fresh && u.creditsCap !== POLICY_CAPS[tier])
          ctx.failures.add('POL-CREDIT-1', `the ${tier} cap is ${u.creditsCap}, not ${POLICY_CAPS[tier]}`, ex);
      });
    }
    // a spent wallet (the profile's screeningSpent key) is where the 0..1 scale and nearLimit show most
    const spent = ctx.tenants.slot('screeningSpent');
    if (spent) {
      const ex = await screening(ctx).usage(spent);
      expectStatus(ex, 200, 'SCR-USAGE-1', 'GET /usage for the spent key');
      const u = jsonOf(ex);
      if (typeof u?.usagePercent !== 'number' || u.usagePercent < 0 || u.usagePercent > 1)
        throw violation(
          'SCR-USAGE-3',
          `usagePercent ${JSON.stringify(u?.usagePercent)} of the spent key is not a number from 0 to 1`,
          ex,
        );
      if (u.creditsCap > 0 && u.nearLimit !== u.creditsCap - u.creditsRemaining >= 0.8 * u.creditsCap)
        throw violation(
          'SCR-USAGE-4',
          `nearLimit is ${u.nearLimit} with ${u.creditsCap - u.creditsRemaining} of ${u.creditsCap} credits used`,
          ex,
        );
    }
  },
};

const nearLimit: Check = {
  id: 'screening.usage.near-limit',
  title:
    'nearLimit is true exactly when 80% or more of creditsCap is used, and usagePercent stays within 0..1, for any balance',
  requirements: ['SCR-USAGE-3', 'SCR-USAGE-4', 'POL-USAGE-1'],
  appliesTo: { surface: 'screening', needs: ['freshTenants', 'creditControl'] },
  async run(ctx) {
    const t = await ctx.tenants.fresh('starter');
    const cap = (await readUsage(ctx, t.apiKey)).creditsCap;
    const boundary = cap - Math.ceil(0.8 * cap);
    await ctx.property({
      name: 'balances',
      arbitrary: fc.integer({ min: 0, max: cap }),
      examples: [boundary, boundary + 1, 0, cap],
      predicate: async (remaining) => {
        await ctx.tenants.patch(t, { screeningCredits: remaining });
        const u = await readUsage(ctx, t.apiKey);
        if (u.creditsRemaining !== remaining)
          throw violation(
            'SCR-USAGE-7',
            `after setting the balance to ${remaining}, usage reports ${u.creditsRemaining}`,
            u.exchange,
          );
        const used = u.creditsCap - remaining;
        if (u.body.nearLimit !== used >= 0.8 * u.creditsCap)
          throw violation(
            'SCR-USAGE-4',
            `nearLimit is ${u.body.nearLimit} with ${used} of ${u.creditsCap} credits used (${((100 * used) / u.creditsCap).toFixed(1)}%)`,
            u.exchange,
          );
        const p = u.body.usagePercent;
        if (typeof p !== 'number' || p < 0 || p > 1)
          throw violation('SCR-USAGE-3', `usagePercent ${p} is outside 0..1`, u.exchange);
      },
    });
  },
};

export const usageChecks = [shape, nearLimit];
