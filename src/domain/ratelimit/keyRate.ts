// Per-key rate limits of the jobs API on the sandbox clock. One fixed per-minute window per API key,
// shared by the REST API and the keyed MCP server (both call takeRate), sized by the jobs tier.

import type { CoreContext } from '../context.js';
import { DomainError } from '../../errors/errors.js';
import { jobsLimitsOf, jobsTierOf, limits } from '../plans.js';
import type { RateDecision } from './limiter.js';
import type { Principal } from '../tenants.js';

export type { RateDecision };

/** rate_limited, carrying the decision so adapters can still send the X-RateLimit-* headers. */
export class RateLimitExceeded extends DomainError {
  constructor(readonly decision: RateDecision) {
    super(
      'rate_limited',
      `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`,
      { retryAfter: decision.resetSeconds },
    );
  }
}

export function createRate(ctx: Pick<CoreContext, 'config' | 'clock' | 'perMinute'>) {
  const count = (bucket: string, limit: number): RateDecision => {
    const d = ctx.perMinute.hit(bucket, limit, ctx.clock.now());
    // with limits lifted the call always proceeds, but the headers still tell the tier's limit
    return ctx.config.noRateLimits ? { ...d, allowed: true } : d;
  };
  return {
    /** Counts one call of this key; throws RateLimitExceeded (rate_limited) past the tier's limit. */
    takeRate(principal: Principal): RateDecision {
      const decision = count(principal.key.id, jobsLimitsOf(principal.tenant.planTier).rateLimitPerMinute);
      if (!decision.allowed) throw new RateLimitExceeded(decision);
      return decision;
    },
    /**
     * Counts a call that carried no usable key (answered 401/403) against a per-client-IP window of the
     * free tier's size. It never refuses: the authentication error is the answer; this only feeds the
     * headers every response carries.
     */
    countAnonymous(ip: string): RateDecision {
      return count(`ip:${ip}`, limits.spec.jobs.free.rateLimitPerMinute);
    },
    tierOf: (principal: Principal) => jobsTierOf(principal.tenant.planTier),
  };
}
