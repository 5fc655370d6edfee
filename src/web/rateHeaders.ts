// X-RateLimit-Limit, -Remaining and -Reset from one window decision, written the same way by REST and
// both MCP servers (JOB-RATE-1, JOB-RATE-4, POL-RATE-1; D-22).

import type { Context } from 'hono';
import type { RateDecision } from '../domain/ratelimit/limiter.js';

type SetHeader = (name: string, value: string) => void;

function write(set: SetHeader, d: RateDecision, omitRemaining: boolean): void {
  set('X-RateLimit-Limit', String(d.limit));
  if (!omitRemaining) set('X-RateLimit-Remaining', String(d.remaining));
  set('X-RateLimit-Reset', String(d.resetSeconds));
}

/** On a finished response's headers. */
export function setRateHeaders(headers: Headers, d: RateDecision): void {
  write((n, v) => headers.set(n, v), d, false);
}

/** On the context, before the answer is built; `omitRemaining` serves a planted bug. */
export function setContextRateHeaders(c: Context, d: RateDecision, omitRemaining = false): void {
  write((n, v) => c.header(n, v), d, omitRemaining);
}
