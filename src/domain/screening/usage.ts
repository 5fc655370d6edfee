// The caller's screening wallet as the usage endpoint reports it, and the 402 a submit gets when
// the wallet is empty (always with a next step: the upgrade URL, and the free cap on the free tier).
// Requirements: SCR-USAGE-1, SCR-USAGE-2, SCR-USAGE-3, SCR-USAGE-4, SCR-USAGE-5, SCR-USAGE-6, SCR-USAGE-7,
// SCR-CREDIT-3, SCR-CREDIT-4, SCR-CREDIT-5, POL-USAGE-1, POL-USAGE-2, POL-CREDIT-2; decisions D-05, D-16, D-126.

import type { ScreeningUsage } from '../../contract/types.js';
import type { CoreContext } from '../context.js';
import { type DomainError, paymentRequired } from '../../errors/errors.js';
import { limits, upgradeUrlOf } from '../plans.js';
import type { Tenant } from '../tenants.js';

export type { ScreeningUsage };

const freeCap = () => limits.policy.screening.free.creditsCap;

export function usageOf(ctx: CoreContext, tenant: Tenant): ScreeningUsage {
  const source = ctx.faults.planted.usageSource(tenant, () => ctx.tenants.list());
  const now = source.clock.now();
  // as of now, without changing the wallet (a read is no step, D-162)
  const w = source.screeningWallet.at(now);
  const usage: ScreeningUsage = {
    tenantId: tenant.id,
    planTier: tenant.planTier,
    creditsRemaining: w.remaining,
    creditsCap: w.cap,
    usagePercent: w.usageRatio,
    nearLimit: w.cap > 0 && w.used >= limits.spec.nearLimitRatio * w.cap,
    resetAt: w.resetAt === null ? null : ctx.clock.iso(w.resetAt),
  };
  if (tenant.planTier === 'free') usage.freeScreenCap = freeCap();
  return usage;
}

export function walletExhausted(ctx: CoreContext, tenant: Tenant): DomainError {
  const upgradeUrl = upgradeUrlOf(ctx.config);
  const w = tenant.screeningWallet;
  if (tenant.planTier === 'free') {
    return paymentRequired(
      `the free tier's screen cap of ${freeCap()} screens is used up; upgrade to a paid plan at ${upgradeUrl} to screen more candidates`,
      { upgradeUrl, freeScreenCap: freeCap() },
    );
  }
  const reset = w.resetAt === null ? '' : `; they refill on ${ctx.clock.iso(w.resetAt)}`;
  return paymentRequired(
    `the ${tenant.planTier} plan's ${w.cap} screening credits for this month are used up${reset}; upgrade at ${upgradeUrl} for a larger monthly cap`,
    { upgradeUrl },
  );
}
