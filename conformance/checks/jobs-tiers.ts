// What the tiers change: paid tiers are ad-free (never `sponsored: true`), free pages carry promoted
// listings (policy), each tier's page cap holds, and /me reports the tier table's limits.

import type { Check } from '../check.js';
import { violation } from '../failure.js';
import { jsonOf } from '../target/http.js';
import { MAX_PAGES } from './jobs-search.js';
import { mentionsNumber, namesTier } from './open-shape.js';
import { expectStatus, jobsApi } from './support.js';
import type { Answer } from '../json.js';

/** The tier table of the jobs document (section 8). */
const TABLE = {
  free: { rateLimitPerMinute: 60, maxPages: 5, applyEnabled: false, applyCreditsPerMonth: 0 },
  starter: { rateLimitPerMinute: 120, maxPages: 20, applyEnabled: true, applyCreditsPerMonth: 100 },
  pro: { rateLimitPerMinute: 300, maxPages: 50, applyEnabled: true, applyCreditsPerMonth: 500 },
} as const;

const QUERIES = [{}, { q: 'engineer' }, { remote_type: 'worldwide' }, { job_type: 'contract', limit: 50 }];

const sponsored: Check = {
  id: 'jobs.tier.ad-free',
  title:
    'Paid tiers never see `sponsored: true` and read their own tier in every search; free-tier pages carry promoted listings (policy: about one in ten)',
  requirements: ['JOB-SEARCH-7', 'JOB-TIER-1', 'POL-SEARCH-1'],
  appliesTo: { surface: 'jobs' },
  async run(ctx) {
    const api = jobsApi(ctx);
    for (const tier of ['starter', 'pro', 'scale'] as const) {
      await ctx.failures.step(async () => {
        const t = await ctx.tenants.get(tier);
        for (const query of QUERIES) {
          for (const offset of [0, 50]) {
            const ex = await api.search(t.apiKey, { limit: 50, ...query, offset });
            // the jobs document knows free, Starter and Pro only: a deployment may refuse a scale key there
            if (tier === 'scale' && [401, 403].includes(ex.response?.status ?? 0)) return;
            expectStatus(ex, 200, 'JOB-SEARCH-1', `a ${tier} search`);
            // the response's tier is the caller's (the document writes Starter and Pro: any letter case); scale is policy
            const named = jsonOf(ex)?.tier;
            if (tier !== 'scale' && (typeof named !== 'string' || named.toLowerCase() !== tier))
              throw violation('JOB-TIER-1', `a ${tier} key's search reports tier ${JSON.stringify(named)}`, ex);
            const ad = (jsonOf(ex)?.jobs ?? []).find((j: Answer) => j.sponsored === true);
            if (ad)
              throw violation(
                'JOB-SEARCH-7',
                `a ${tier}-tier search returned sponsored job ${ad.id}: paid tiers are ad-free`,
                ex,
              );
          }
        }
      });
    }
    const free = await ctx.tenants.get('free');
    const ex = await api.search(free.apiKey, { limit: 50 });
    const jobs: Answer[] = jsonOf(ex)?.jobs ?? [];
    const ads = jobs.filter((j) => j.sponsored === true).length;
    if (ex.response?.status === 200 && jobs.length >= 20 && (ads === 0 || ads > jobs.length / 4)) {
      ctx.failures.add(
        'POL-SEARCH-1',
        `a free-tier page of ${jobs.length} jobs carries ${ads} promoted listings, not about one in ten`,
        ex,
      );
    }
  },
};

const pageCap: Check = {
  id: 'jobs.tier.page-cap',
  title:
    "Each tier's search is capped (free 5, starter 20, pro 50 pages): the last allowed page is served, the next never returns jobs (policy: 402)",
  requirements: ['JOB-TIER-2', 'POL-TIER-1'],
  appliesTo: { surface: 'jobs' },
  async run(ctx) {
    const api = jobsApi(ctx);
    for (const tier of ['free', 'starter', 'pro'] as const) {
      await ctx.failures.step(async () => {
        const t = await ctx.tenants.get(tier);
        const limit = 1;
        const cap = MAX_PAGES[tier];
        const lastAllowed = await api.search(t.apiKey, { limit, offset: (cap - 1) * limit });
        expectStatus(lastAllowed, 200, 'JOB-TIER-2', `page ${cap - 1} (the last of ${cap}) for the ${tier} tier`);
        const beyond = await api.search(t.apiKey, { limit, offset: cap * limit }, { policyProbe: true });
        const jobs = jsonOf(beyond)?.jobs;
        if (beyond.response?.status === 200 && Array.isArray(jobs) && jobs.length > 0)
          throw violation(
            'JOB-TIER-2',
            `page ${cap} of a ${tier} search returned ${jobs.length} job(s): the tier is capped at ${cap} pages`,
            beyond,
          );
        if (beyond.response?.status !== 402 || jsonOf(beyond)?.error?.code !== 'payment_required') {
          ctx.failures.add(
            'POL-TIER-1',
            `page ${cap} of a ${tier} search answered ${beyond.response?.status}, not 402 payment_required`,
            beyond,
          );
        } else if (!String(jsonOf(beyond).error.message).includes(String(cap))) {
          ctx.failures.add('POL-TIER-1', `the page-cap 402 message does not name the cap (${cap})`, beyond);
        }
      });
    }
  },
};

const me: Check = {
  id: 'jobs.me',
  title: "GET /me reports the key's tier, scopes, apply credits and the tier table's limits, on every tier",
  requirements: ['JOB-ME-1', 'JOB-ME-2', 'JOB-TIER-3', 'POL-ME-1', 'POL-TIER-2'],
  appliesTo: { surface: 'jobs' },
  async run(ctx) {
    const api = jobsApi(ctx);
    for (const tier of ['free', 'starter', 'pro', 'scale'] as const) {
      await ctx.failures.step(async () => {
        const t = await ctx.tenants.get(tier);
        const ex = await api.me(t.apiKey);
        if (tier === 'scale') {
          // the jobs document knows three tiers; what a scale account reads there is policy (D-18)
          if (ex.response?.status !== 200 || !namesTier(jsonOf(ex), 'pro'))
            ctx.failures.add(
              'POL-TIER-2',
              `a scale account's GET /me answered ${ex.response?.status} without naming tier pro`,
              ex,
            );
          return;
        }
        expectStatus(ex, 200, 'JOB-ME-1', `GET /me for a ${tier} key`);
        const b = jsonOf(ex);
        // the body shape is "not shown": the documented values are looked for wherever they sit
        if (!namesTier(b, tier))
          throw violation(
            'JOB-ME-1',
            `GET /me for a ${tier} key does not name its tier (${tier}, any letter case) anywhere: ${JSON.stringify(b).slice(0, 200)}`,
            ex,
          );
        const want = TABLE[tier];
        for (const [what, n] of [
          ['rate limit per minute', want.rateLimitPerMinute],
          ['maximum pages', want.maxPages],
        ] as const) {
          if (!mentionsNumber(b, n))
            throw violation(
              'JOB-ME-2',
              `GET /me for a ${tier} key reports its limits without the tier table's ${what} (${n}) anywhere`,
              ex,
            );
        }
        if (!mentionsNumber(b, want.applyCreditsPerMonth))
          throw violation(
            'JOB-TIER-3',
            `GET /me for a ${tier} key never mentions ${want.applyCreditsPerMonth}, the tier table's apply credits a month`,
            ex,
          );
        const limits = b?.limits;
        const credits = b?.applyCredits;
        if (
          limits &&
          typeof limits === 'object' &&
          credits &&
          typeof credits === 'object' &&
          t.fresh &&
          'remaining' in credits &&
          credits.remaining !== want.applyCreditsPerMonth
        ) {
          throw violation(
            'JOB-TIER-3',
            `a fresh ${tier} account has ${credits.remaining} apply credits; the tier table says ${want.applyCreditsPerMonth} a month`,
            ex,
          );
        }
      });
    }
  },
};

export const tierChecks = [sponsored, pageCap, me];
