// Pay normalization for market data: every listing's pay becomes IDR per month at fixed, documented
// rates, so benchmarks are comparable and reproducible (a live exchange rate would make them drift).
// Requirements: POL-MKT-1; decisions D-25.

import type { Currency, PayPeriod } from './types.js';

export const IDR_PER_USD = 16_000;

/** Working hours and days in a month used to scale hourly and daily pay. */
export const MONTHLY_FACTOR: Record<PayPeriod, number> = { hour: 173, day: 21.7, month: 1, year: 1 / 12 };

/** One amount in the listing's currency and period, as IDR per month (rounded to the rupiah). */
export function toIdrMonthly(amount: number, currency: Currency, period: PayPeriod): number {
  const idr = currency === 'USD' ? amount * IDR_PER_USD : amount;
  return Math.round(idr * MONTHLY_FACTOR[period]);
}

/** Midpoint of a pay range as IDR per month, or null when the listing shows no pay. */
export function midpointIdrMonthly(
  min: number | null,
  max: number | null,
  currency: Currency,
  period: PayPeriod,
): number | null {
  if (min === null && max === null) return null;
  const lo = min ?? max!;
  const hi = max ?? min!;
  return toIdrMonthly((lo + hi) / 2, currency, period);
}

/** Percentile by linear interpolation between closest ranks (the common "R-7" definition). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (h - lo);
}
