// The rate step: X-RateLimit-Limit, -Remaining and -Reset from one window decision (JOB-RATE-1,
// JOB-RATE-2, JOB-RATE-4, POL-RATE-1; D-22), and what an error answer adds to them: for a call that never
// reached its key's window, that window as it stands (a key of any tenant, D-155) or else the client IP's,
// and Retry-After on a 429 (JOB-RATE-3). Written
// once, here, for REST (the routed app through jobs.ts, the fast path through fastPath.ts) and both MCP
// servers; the planted bugs of this step apply here and nowhere else (listed in src/domain/bugs.ts).

import type { Context } from 'hono';
import { bearerToken } from './auth.js';
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
 * The window shown by a call that never reached its key's window (no usable key, no route, an injected fault):
 * its bearer key's, read and not counted, when the key is any tenant's (even refused, 403); otherwise its client
 * IP's, counted (D-22). A call with a tenant's key thus changes no window but its tenant's (D-155).
 */
export function uncountedWindow(core: Core, authorization: string | undefined, ip: string): RateDecision {
  const holder = core.tenants.holderOfKey(bearerToken(authorization));
  return holder ? core.rateLimits.peekRate(holder) : core.rateLimits.countAnonymous(ip);
}

/**
 * While an /api/v1 error answer is built, before it is: a call that never reached its key's window shows
 * `uncountedWindow`; a 429 keeps the Retry-After the envelope step set.
 */
export function rateHeadersOnError(
  set: SetHeader,
  core: Core,
  counted: boolean,
  call: { authorization: string | undefined; ip: string },
  status: number,
): void {
  if (!counted) writeRateHeaders(set, uncountedWindow(core, call.authorization, call.ip), core.faults);
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
