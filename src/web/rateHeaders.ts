// The rate step: X-RateLimit-Limit, -Remaining and -Reset from one window decision (JOB-RATE-1,
// JOB-RATE-2, JOB-RATE-4, POL-RATE-1; D-22), and what an error answer adds to them: the per-client-IP
// window of a call that never reached its key's window, and Retry-After on a 429 (JOB-RATE-3). Written
// once, here, for REST (the routed app through jobs.ts, the fast path through fastPath.ts) and both MCP
// servers; the planted bugs of this step apply here and nowhere else (listed in src/domain/bugs.ts).

import type { Context } from 'hono';
import type { Core } from '../domain/core.js';
import type { RateDecision } from '../domain/ratelimit/limiter.js';

/** Sets (or, with undefined, removes) a header before the answer is built; names in lower case. */
export type SetHeader = (name: string, value: string | undefined) => void;

/** The call's own window decision; `bugs` (a core's planted bugs) is given on REST answers only. */
export function writeRateHeaders(set: SetHeader, d: RateDecision, bugs?: Core['faults']): void {
  set('x-ratelimit-limit', String(d.limit));
  if (!bugs || bugs.planted.writesRemaining()) set('x-ratelimit-remaining', String(d.remaining));
  set('x-ratelimit-reset', String(d.resetSeconds));
}

/**
 * While an /api/v1 error answer is built, before it is: a call that never reached its key's window (no
 * usable key, no route, an injected fault) counts against its client IP's window instead; a 429 keeps
 * the Retry-After the envelope step set.
 */
export function rateHeadersOnError(set: SetHeader, core: Core, counted: boolean, ip: string, status: number): void {
  if (!counted) writeRateHeaders(set, core.rateLimits.countAnonymous(ip), core.faults);
  if (!core.faults.planted.keepsRetryAfter(status)) set('retry-after', undefined);
}

/** On a finished response's headers (the MCP servers). */
export function setRateHeaders(headers: Headers, d: RateDecision): void {
  writeRateHeaders((n, v) => (v === undefined ? headers.delete(n) : headers.set(n, v)), d);
}

/** The context's header setter, as the step functions take it. */
export const contextSetter =
  (c: Context): SetHeader =>
  (n, v) =>
    c.header(n, v);
