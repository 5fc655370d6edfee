// Rate limits of the jobs API: each tier's limit as X-RateLimit-Limit reports it, X-RateLimit-Remaining
// falling by one per call within a window, 429 `rate_limited` with Retry-After past the limit, and
// recovery once the window has passed (advancing the key's tenant clock 61 s when it can, else waiting for
// the reset when that is short). Runs late: it spends a whole window of a fresh key. A walk during which
// another client moved the clock is taken again (D-122).

import type { Check } from '../check.js';
import { skip, violation, Violation } from '../failure.js';
import { retryAfterMs } from '../target/rate-governor.js';
import { headerOf, type Exchange } from '../target/http.js';
import { watchClock, movedBy } from './clock-watch.js';
import { expectStatus, JOBS, jobsApi, sleep } from './support.js';
import type { Answer } from '../json.js';

const LIMITS = { free: 60, starter: 120, pro: 300 } as const;

const int = (ex: Exchange, name: string): number | null => {
  const v = headerOf(ex, name);
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v) : null;
};

const perTier: Check = {
  id: 'jobs.rate.tier-limits',
  title:
    'X-RateLimit-Limit reports 60 (free), 120 (starter) and 300 (pro) calls per minute on every kind of call: /me, a search, market data and a refusal',
  requirements: ['JOB-RATE-2'],
  appliesTo: { surface: 'jobs' },
  async run(ctx) {
    for (const tier of ['free', 'starter', 'pro'] as const) {
      await ctx.failures.step(async () => {
        const t = await ctx.tenants.get(tier);
        const api = jobsApi(ctx);
        // the key's limit, whatever the endpoint and whether the call succeeds
        const calls: [string, Promise<Exchange>][] = [
          ['GET /me', api.me(t.apiKey)],
          ['GET /jobs', api.search(t.apiKey, { limit: 1 })],
          ['GET /market/skills', api.call({ path: `${JOBS}/market/skills`, key: t.apiKey, query: { limit: 1 } })],
          ['GET /jobs/{unknown id} (404)', api.get(t.apiKey, 'zz-rate-limit-probe')],
        ];
        for (const [what, pending] of calls) {
          const ex = await pending;
          const limit = int(ex, 'x-ratelimit-limit');
          if (limit !== LIMITS[tier])
            throw violation(
              'JOB-RATE-2',
              `a ${tier} key's ${what} reports X-RateLimit-Limit ${headerOf(ex, 'x-ratelimit-limit') ?? '(missing)'}, not ${LIMITS[tier]}`,
              ex,
            );
        }
      });
    }
  },
};

/**
 * Calls until the first 429, checking that X-RateLimit-Remaining falls by one per call (one rollover allowed). A
 * rollover shows as a rise, or as the first call of a window (limit - 1) again: the window may end after the walk's
 * first call, whose own answer already read limit - 1.
 */
export async function walkWindow(me: () => Promise<Exchange>): Promise<{ prev: Exchange | null; refused: Exchange }> {
  let prev: Exchange | null = null;
  let restarts = 0;
  for (let i = 0; i < LIMITS.free * 2 + 5; i++) {
    const ex = await me();
    if (ex.response?.status === 429) {
      if (prev && int(prev, 'x-ratelimit-remaining') !== 0)
        throw violation(
          'JOB-RATE-4',
          `the call before the 429 reported X-RateLimit-Remaining ${headerOf(prev, 'x-ratelimit-remaining')}, not 0`,
          prev,
          ex,
        );
      return { prev, refused: ex };
    }
    expectStatus(ex, 200, 'JOB-RATE-4', `call ${i + 1} of a fresh free key`);
    const rem = int(ex, 'x-ratelimit-remaining');
    if (rem === null)
      throw violation(
        'JOB-RATE-4',
        `X-RateLimit-Remaining is ${headerOf(ex, 'x-ratelimit-remaining') ?? 'missing'} on call ${i + 1}`,
        ex,
      );
    if (prev) {
      const before = int(prev, 'x-ratelimit-remaining')!;
      if ((rem > before || rem === LIMITS.free - 1) && restarts === 0) {
        restarts++; // the fixed window rolled over between two calls: count again from here
      } else if (rem !== before - 1) {
        throw violation(
          'JOB-RATE-4',
          `X-RateLimit-Remaining went ${before} → ${rem} between two consecutive calls (expected ${before - 1})`,
          prev,
          ex,
        );
      }
    }
    prev = ex;
  }
  throw violation(
    'JOB-RATE-3',
    `${LIMITS.free * 2 + 5} calls of a free key (limit ${LIMITS.free} per minute) were never refused with 429`,
    prev ?? undefined,
  );
}

const window: Check = {
  id: 'jobs.rate.window',
  keysOnly: "spending a key's rate window (off with --no-rate-windows)",
  title:
    'Within a window X-RateLimit-Remaining falls by one per call; past the limit the answer is 429 with Retry-After; after the window calls succeed again',
  requirements: ['JOB-RATE-3', 'JOB-RATE-4', 'POL-RATE-1'],
  appliesTo: { surface: 'jobs' },
  late: true,
  async run(ctx) {
    if (!ctx.tenants.canProvision && !ctx.config.rateWindows)
      throw skip("--no-rate-windows: a fixed key's rate window is not spent");
    const t = await ctx.tenants.get('free');
    const api = jobsApi(ctx);
    // these calls spend the window on purpose: not paced, not retried
    const me = () => api.call({ path: `${JOBS}/me`, key: t.apiKey, rateProbe: true });
    const control = ctx.capabilities.clock && ctx.control ? ctx.control : null;
    // another client moving the target clock mid-walk resets the window: that walk proves nothing (D-122)
    let walked: { prev: Exchange | null; refused: Exchange } | null = null;
    for (let attempt = 1; walked === null; attempt++) {
      const watch = control && t.tenantId ? await watchClock(control, t.tenantId) : null;
      try {
        walked = await walkWindow(me);
      } catch (err) {
        const foreign = err instanceof Violation && watch ? await watch.foreignMs() : 0;
        if (foreign === 0) throw err;
        if (attempt === 3) {
          for (const id of ['JOB-RATE-3', 'JOB-RATE-4', 'POL-RATE-1'])
            ctx.unobserved(
              id,
              `${movedBy(foreign)}, in each of 3 walks of the window: the window cannot be judged while another client moves the clock`,
            );
          return;
        }
        // a fresh window for the next walk
        await control!.advanceTenantClock(t.tenantId!, 61);
      }
    }
    const { refused } = walked;
    const retryAfter = headerOf(refused, 'retry-after');
    if (retryAfter === undefined) throw violation('JOB-RATE-3', 'the 429 carries no Retry-After header', refused);
    if ((refused.response?.json as Answer)?.error?.code !== 'rate_limited')
      throw violation(
        'JOB-RATE-3',
        `the 429 carries code ${JSON.stringify((refused.response?.json as Answer)?.error?.code)}, not rate_limited`,
        refused,
      );
    // the documents fix no form: seconds or an HTTP-date are both a Retry-After (RFC 9110)
    const waitMs = retryAfterMs(retryAfter);
    if (waitMs === null)
      throw violation(
        'JOB-RATE-3',
        `the 429's Retry-After '${retryAfter}' is neither seconds nor an HTTP-date`,
        refused,
      );
    const seconds = /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : null;
    const reset = int(refused, 'x-ratelimit-reset');
    if (seconds === null || seconds > 60 || reset === null || reset > 60)
      ctx.failures.add(
        'POL-RATE-1',
        `Retry-After '${retryAfter}' and X-RateLimit-Reset '${headerOf(refused, 'x-ratelimit-reset')}' are not integer seconds within the one-minute window`,
        refused,
      );
    // recovery
    if (control && t.tenantId) await control.advanceTenantClock(t.tenantId, 61);
    else if (control) await control.advanceClock(61);
    else if (waitMs <= 65_000) await sleep(waitMs + 1000);
    else {
      ctx.failures.add(
        'POL-RATE-1',
        `recovery after the window was not checked: no clock capability and Retry-After asks for ${Math.round(waitMs / 1000)} s`,
      );
      return;
    }
    const again = await me();
    expectStatus(again, 200, 'JOB-RATE-3', 'a call after the window has passed');
    const rem = int(again, 'x-ratelimit-remaining');
    if (rem !== LIMITS.free - 1)
      ctx.failures.add(
        'POL-RATE-1',
        `the first call of a new window reports X-RateLimit-Remaining ${rem}, not ${LIMITS.free - 1}`,
        again,
      );
  },
};

export const rateChecks = [perTier, window];
