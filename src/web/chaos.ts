// Applies the integrator's chaos rules (src/domain/faults.ts) to API calls: added latency, then a
// forced 429 / 500 / 503 in the error envelope. Control API, console and docs are never affected.

import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../errors/errors.js';
import type { AppEnv } from './env.js';

const CODE_OF = { 429: 'rate_limited', 500: 'internal', 503: 'service_disabled' } as const;

export const chaos: MiddlewareHandler<AppEnv> = async (c, next) => {
  const fired = c.get('core').faults.take(c.req.method, c.req.path);
  // a shared sandbox (D-113) holds the answer back after the call is recorded, and does not wait on replays
  const shared = c.env as { replaying?: boolean; delayAnswer?: (ms: number) => void } | undefined;
  for (const r of fired) {
    if (r.mode !== 'latency' || r.latencyMs <= 0 || shared?.replaying) continue;
    if (shared?.delayAnswer) shared.delayAnswer(r.latencyMs);
    else await new Promise((res) => setTimeout(res, r.latencyMs));
  }
  const forced = fired.find((r) => r.mode === 'status' && r.status);
  if (forced?.status) {
    const code = CODE_OF[forced.status];
    throw new DomainError(code, `injected fault ${forced.id}: this call was made to fail with ${forced.status} by a sandbox chaos rule`, forced.status === 429 ? { retryAfter: 1 } : {});
  }
  await next();
};
