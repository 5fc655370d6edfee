// Every rate limit of the sandbox, in one place: a key's windows on its tenant's clock, a client IP's on the
// sandbox clock (D-120):
// - the jobs API's per-key minute, shared by REST and the keyed MCP server, sized by the jobs tier; calls
//   without a usable key count against a per-client-IP window of the free tier's size, which only feeds
//   the headers (JOB-RATE-1, JOB-RATE-2, JOB-RATE-3, JOB-RATE-4, POL-RATE-1, POL-RATE-2, POL-RATE-3; D-22);
// - the anonymous MCP server's day per client IP, reset at 00:00 UTC (MCP-ANON-5, POL-MCP-3, POL-MCP-11;
//   D-33);
// - talent_search's day per key (MCP-TOOL-10; D-48).
// With limits lifted (--no-rate-limits) every call proceeds, but the decisions still tell the limit.
// The screening endpoints are not rate-limited (POL-LIMIT-1; D-11).

import { DomainError, rateLimited } from '../../errors/errors.js';
import type { Clock } from '../clock.js';
import { jobsLimitsOf, jobsTierOf, limits } from '../plans.js';
import type { Principal } from '../tenants.js';
import { FixedWindowLimiter, type RateDecision } from './limiter.js';

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

const resetIso = (d: RateDecision) => new Date(d.resetAt).toISOString();

const ipBucket = (ip: string) => `ip:${ip}`;
const anonBucket = (ip: string) => `anon:${ip}`;

/** The buckets of client addresses, counted on the sandbox clock: their old windows are swept (D-193). */
export const isAddressBucket = (bucket: string): boolean => bucket.startsWith('ip:') || bucket.startsWith('anon:');

/** The windows come from the store (D-110): per minute per key or IP, per UTC day per IP or key. */
export function createRateLimits(
  clock: Clock,
  noRateLimits: boolean,
  { perMinute, perDay }: { perMinute: FixedWindowLimiter; perDay: FixedWindowLimiter },
) {
  const lifted = (d: RateDecision): RateDecision => (noRateLimits ? { ...d, allowed: true } : d);
  const keyLimit = (principal: Principal) => jobsLimitsOf(principal.tenant.planTier).rateLimitPerMinute;
  const anonLimit = limits.spec.anonMcpCallsPerDayPerIp;

  return {
    /** Counts one jobs call of this key; throws RateLimitExceeded (rate_limited) past the tier's limit. */
    takeRate: (principal: Principal): RateDecision => {
      const decision = lifted(perMinute.hit(principal.key.id, keyLimit(principal), principal.tenant.clock.now()));
      if (!decision.allowed) throw new RateLimitExceeded(decision);
      return decision;
    },
    /** The key's minute without counting a call (for answers that are not counted, such as 405). */
    peekRate: (principal: Principal): RateDecision =>
      perMinute.peek(principal.key.id, keyLimit(principal), principal.tenant.clock.now()),
    /**
     * Counts a call that carried no usable key (answered 401/403) against a per-client-IP window of the
     * free tier's size. It never refuses: the authentication error is the answer; this only feeds the
     * headers every response carries.
     */
    countAnonymous: (ip: string): RateDecision =>
      lifted(perMinute.hit(ipBucket(ip), limits.spec.jobs.free.rateLimitPerMinute, clock.now())),
    tierOf: (principal: Principal) => jobsTierOf(principal.tenant.planTier),

    /** Counts one anonymous MCP tools/call of this client IP; throws rate_limited past the day's limit. */
    takeAnonCall(ip: string): RateDecision {
      const d = perDay.hit(anonBucket(ip), anonLimit, clock.now());
      if (!d.allowed && !noRateLimits) {
        throw rateLimited(
          `the anonymous server allows ${anonLimit} tool calls per day per client IP; the limit resets at ${resetIso(d)} (00:00 UTC)`,
          d.resetSeconds,
        );
      }
      return d;
    },
    peekAnonCall: (ip: string): RateDecision => perDay.peek(anonBucket(ip), anonLimit, clock.now()),

    /** Counts one talent_search call of this key; throws rate_limited past the day's limit. */
    takeTalentSearch(principal: Principal): RateDecision {
      const perKey = limits.spec.talentSearchPerDay;
      const d = perDay.hit(`talent:${principal.key.id}`, perKey, principal.tenant.clock.now());
      if (!d.allowed && !noRateLimits) {
        throw rateLimited(
          `talent_search is limited to ${perKey} calls a day per key; the limit resets at ${resetIso(d)}`,
          d.resetSeconds,
        );
      }
      return d;
    },

    reset(): void {
      perMinute.reset();
      perDay.reset();
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
