// Applies the integrator's chaos rules (src/domain/faults.ts) to API calls: added latency, then a
// forced 429 / 500 / 503 in the error envelope. Control API, console and docs are never affected.

import type { MiddlewareHandler } from 'hono';
import type { Faults } from '../domain/faults.js';
import type { TenantService } from '../domain/tenants.js';
import { DomainError } from '../errors/errors.js';
import { bearerToken } from './auth.js';
import type { AppEnv } from './env.js';

const CODE_OF = { 429: 'rate_limited', 500: 'internal', 503: 'service_disabled' } as const;

/** What a shared sandbox (D-113) tells the chaos step: a replay adds no latency; a recorded call has its answer held back. */
export interface ChaosEnv {
  replaying?: boolean;
  delayAnswer?: (ms: number) => void;
}

/**
 * Takes the rules that fire for this call: undefined when none delays it (the common case, no promise),
 * otherwise a promise of the added latency. A forced status is thrown as its DomainError, after the latency.
 */
export function applyChaos(
  faults: Faults,
  method: string,
  path: string,
  shared?: ChaosEnv,
  tenantOf?: () => string | null,
): Promise<void> | undefined {
  if (!faults.armed) return undefined;
  // a rule of one tenant matches that tenant's calls only, and a share-of-calls rule draws from the caller's
  // tenant's stream: the caller's key tells whose (D-121, D-143)
  const fired = faults.take(method, path, faults.needsTenant && tenantOf ? tenantOf() : null);
  if (fired.length === 0) return undefined;
  const latency: number[] = [];
  for (const r of fired) {
    if (r.mode !== 'latency' || r.latencyMs <= 0 || shared?.replaying) continue;
    // a shared sandbox holds the answer back after the call is recorded, and does not wait on replays
    if (shared?.delayAnswer) shared.delayAnswer(r.latencyMs);
    else latency.push(r.latencyMs);
  }
  const forced = fired.find((r) => r.mode === 'status' && r.status);
  const force = () => {
    if (!forced?.status) return;
    const code = CODE_OF[forced.status];
    throw new DomainError(
      code,
      `injected fault ${forced.id}: this call was made to fail with ${forced.status} by a sandbox chaos rule`,
      forced.status === 429 ? { retryAfter: 1 } : {},
    );
  };
  if (latency.length === 0) {
    force();
    return undefined;
  }
  return latency
    .reduce((p, ms) => p.then(() => new Promise<void>((res) => setTimeout(res, ms))), Promise.resolve())
    .then(force);
}

/** The tenant whose key a call carries (null: none or unknown); the call itself is authenticated later. */
export function callerTenant(tenants: TenantService, authorization: string | undefined): string | null {
  return tenants.tenantIdOfKey(bearerToken(authorization));
}

export const chaos: MiddlewareHandler<AppEnv> = async (c, next) => {
  const core = c.get('core');
  const delay = applyChaos(core.faults, c.req.method, c.req.path, c.env as ChaosEnv | undefined, () =>
    callerTenant(core.tenants, c.req.header('authorization')),
  );
  if (delay) await delay;
  await next();
};
