// Market data: open on every tier, read-only and free of charge; every listed role slug has a report,
// an unknown one is 404; skills come most-mentioned first within `limit` (1..100); locale is id or en.

import fc from 'fast-check';
import type { Check } from '../check.js';
import { arbitraryFor } from '../arbitraries/schema.js';
import { violation } from '../failure.js';
import { jsonOf, type Exchange } from '../target/http.js';
import { leaves, mainList, stringLeavesOf } from './open-shape.js';
import { expectNoCharge, readWallet } from './wallet.js';
import { expectCode, expectStatus, JOBS, jobsApi } from './support.js';
import type { Answer } from '../json.js';

const ENDPOINTS = ['/market/salary', '/market/roles', '/market/skills', '/market/roles?locale=id'];

const everyTier: Check = {
  id: 'jobs.market.every-tier',
  title: 'The market endpoints answer on every tier, free included, and spend no apply or screening credits',
  requirements: ['JOB-MKT-1', 'JOB-MKT-6', 'JOB-MKT-7', 'JOB-SEARCH-9'],
  appliesTo: { surface: 'jobs' },
  async run(ctx) {
    const api = jobsApi(ctx);
    for (const tier of ['free', 'starter', 'pro'] as const) {
      await ctx.failures.step(async () => {
        const t = await ctx.tenants.get(tier);
        const before = await readWallet(ctx, t.apiKey);
        const usageBefore = await ctx.target.call('screening', { path: '/api/screening/v1/usage', key: t.apiKey });
        let salary: Exchange | undefined;
        for (const p of ENDPOINTS) {
          const [path, query] = p.split('?');
          const ex = await api.call({ path: `${JOBS}${path}`, key: t.apiKey, query: query ?? '' });
          // a refusal of a valid key is the tier being shut out (open on every tier); anything else breaks the endpoint's own rule
          const refused = [401, 402, 403].includes(ex.response?.status ?? 0);
          expectStatus(
            ex,
            200,
            refused ? 'JOB-MKT-7' : path === '/market/salary' ? 'JOB-MKT-1' : 'JOB-MKT-7',
            `GET ${p} on the ${tier} tier`,
          );
          if (path === '/market/salary') salary = ex;
        }
        await expectNoCharge(ctx, t.apiKey, before, 'JOB-MKT-6', 'reading market data');
        const usageAfter = await ctx.target.call('screening', { path: '/api/screening/v1/usage', key: t.apiKey });
        if (
          usageBefore.response?.status === 200 &&
          jsonOf(usageBefore)?.creditsRemaining !== jsonOf(usageAfter)?.creditsRemaining
        )
          throw violation('JOB-MKT-6', 'reading market data changed the screening credits', usageBefore, usageAfter);
        // searching, on its own (a charge must be told apart from one for market data)
        const beforeSearch = await readWallet(ctx, t.apiKey);
        const search = await api.search(t.apiKey, { limit: 5 });
        expectStatus(search, 200, 'JOB-SEARCH-1', `a search on the ${tier} tier`);
        await expectNoCharge(ctx, t.apiKey, beforeSearch, 'JOB-SEARCH-9', 'a search', search);
        // the grid is over the active corpus: once a search shows a paid listing, it holds figures
        const paid = (jsonOf(search)?.jobs ?? []).some(
          (j: Answer) => typeof j?.payMin === 'number' || typeof j?.payMax === 'number',
        );
        if (salary && paid) salaryHasFigures(salary);
      });
    }
  },
};

/**
 * The salary grid's shape is not shown, but a grid of median and IQR pay over an active corpus with paid
 * listings holds figures: at least a median and an IQR (two numbers, wherever they sit).
 */
function salaryHasFigures(ex: Exchange): void {
  const numbers = leaves(jsonOf(ex)).filter(
    (l) => typeof l.value === 'number' || (typeof l.value === 'string' && /\d/.test(l.value)),
  );
  if (numbers.length < 2)
    throw violation(
      'JOB-MKT-1',
      `GET /market/salary holds ${numbers.length} figure(s): a grid of median and IQR pay across the active corpus holds at least a median and an IQR`,
      ex,
    );
}

const roles: Check = {
  id: 'jobs.market.roles',
  title:
    'Every role slug GET /market/roles lists has a report at /market/roles/{role}; an unknown slug is 404; locale accepts only id and en',
  requirements: ['JOB-MKT-2', 'JOB-MKT-3', 'JOB-MKT-5'],
  appliesTo: { surface: 'jobs' },
  async run(ctx) {
    // every listed slug is fetched: on the tier with the widest rate window (every tier is checked in every-tier)
    const t = await ctx.tenants.get('pro');
    const api = jobsApi(ctx);
    let servedSlug: string | null = null;
    // where in an entry the first served slug sat: tried first for the other entries
    let servedPath: string | null = null;
    for (const locale of ['en', 'id']) {
      const list = await api.call({ path: `${JOBS}/market/roles`, key: t.apiKey, query: { locale } });
      expectStatus(list, 200, 'JOB-MKT-2', `GET /market/roles?locale=${locale}`);
      // the body shape is "not shown": the list is the body's main list (its longest list not nested in
      // another's items), and each entry's slug is whichever of its strings GET /market/roles/{role}
      // serves (the entry's own fields before nested ones, slug-like strings first)
      const roles = mainList(jsonOf(list));
      if (!roles?.length) throw violation('JOB-MKT-2', 'GET /market/roles lists no role family', list);
      for (const role of roles) {
        let served = false;
        const tried: string[] = [];
        const strings = stringLeavesOf(role);
        const ordered = [
          ...strings.filter((l) => l.path === servedPath),
          ...strings.filter((l) => l.path !== servedPath).slice(0, 4),
        ];
        for (const { path, value } of ordered) {
          const candidate = String(value);
          tried.push(candidate);
          const r = await api.call({
            path: `${JOBS}/market/roles/${encodeURIComponent(candidate)}`,
            key: t.apiKey,
            query: { locale },
          });
          if (r.response?.status === 200) {
            served = true;
            servedSlug ??= candidate;
            servedPath ??= path;
            break;
          }
        }
        if (!served)
          throw violation(
            'JOB-MKT-2',
            `role family ${JSON.stringify(role).slice(0, 120)} listed by GET /market/roles has no report: none of ${tried.map((x) => `/market/roles/${x}`).join(', ')} answered 200`,
            list,
          );
      }
    }
    // unknown slugs that are still well-formed for the contract (policy may refuse malformed ones with 400)
    const slugSchema = ctx.contract.operation('getRoleReport').pathParams.find((p) => p.name === 'role')?.schema ?? {
      type: 'string',
    };
    await ctx.property({
      name: 'unknown slugs',
      arbitrary: arbitraryFor({ ...slugSchema, maxLength: 40 }).map((s) => `zz-${String(s)}`),
      runs: ctx.runs(0.25),
      predicate: async (slug) => {
        const ex = await api.call({ path: `${JOBS}/market/roles/${slug}`, key: t.apiKey });
        expectStatus(ex, 404, 'JOB-MKT-3', `GET /market/roles/${slug}`);
        expectCode(ex, 'not_found', 'JOB-MKT-3', `GET /market/roles/${slug}`);
      },
    });
    if (!ctx.capabilities.negativeInput) return;
    for (const path of [
      '/market/roles',
      ...(servedSlug ? [`/market/roles/${encodeURIComponent(servedSlug)}`] : []),
      '/jobs',
    ]) {
      for (const locale of ['fr', 'EN', '']) {
        await ctx.failures.step(async () => {
          const ex = await api.call({ path: `${JOBS}${path}`, key: t.apiKey, query: { locale } });
          expectStatus(ex, 400, path === '/jobs' ? 'JOB-SEARCH-4' : 'JOB-MKT-5', `GET ${path}?locale=${locale}`);
        });
      }
    }
  },
};

const skills: Check = {
  id: 'jobs.market.skills',
  title:
    'GET /market/skills returns at most `limit` (1..100, default 25) skills, most mentioned first; other limits are refused with 400',
  requirements: ['JOB-MKT-4'],
  appliesTo: { surface: 'jobs' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    const api = jobsApi(ctx);
    await ctx.property({
      name: 'limits',
      arbitrary: fc.option(fc.integer({ min: 1, max: 100 }), { nil: undefined }),
      examples: [undefined, 1, 100],
      runs: ctx.runs(0.5),
      predicate: async (limit) => {
        const ex = await api.call({ path: `${JOBS}/market/skills`, key: t.apiKey, query: { limit } });
        expectStatus(ex, 200, 'JOB-MKT-4', `GET /market/skills?limit=${limit ?? '(default)'}`);
        // the body shape is "not shown": the skills are the body's main list (never a list inside its entries)
        const list = mainList(jsonOf(ex));
        if (!list) throw violation('JOB-MKT-4', 'GET /market/skills answered no list of skills', ex);
        if (list.length > (limit ?? 25))
          throw violation('JOB-MKT-4', `limit ${limit ?? '(default 25)'} returned ${list.length} skills`, ex);
        const disorder = mentionOrderProblem(list);
        if (disorder) throw violation('JOB-MKT-4', disorder, ex);
      },
    });
    if (!ctx.capabilities.negativeInput) return;
    for (const bad of ['0', '101', '-5', '2.5', 'ten']) {
      await ctx.failures.step(async () => {
        const ex = await api.call({ path: `${JOBS}/market/skills`, key: t.apiKey, query: { limit: bad } });
        expectStatus(ex, 400, 'JOB-MKT-4', `GET /market/skills?limit=${bad}`);
      });
    }
  },
};

/** The numbers of an entry by their path inside it (not those inside a list the entry carries). */
function numbersByPath(o: unknown, path = ''): Map<string, number> {
  const out = new Map<string, number>();
  if (o && typeof o === 'object' && !Array.isArray(o)) {
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'number') out.set(`${path}/${k}`, v);
      else for (const [p, n] of numbersByPath(v, `${path}/${k}`)) out.set(p, n);
    }
  }
  return out;
}

/**
 * "Most mentioned first", without knowing which field holds the count or how deep it sits: when the
 * entries carry numbers that vary (at the same place in each), at least one of them must be non-increasing
 * down the list; a list whose every number goes up somewhere is not ordered by any count it shows. Entries
 * without numbers say nothing.
 */
export function mentionOrderProblem(list: unknown[]): string | null {
  const objs = list.filter(
    (x): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x),
  );
  if (objs.length < 2 || objs.length !== list.length) return null;
  const maps = objs.map((o) => numbersByPath(o));
  const at = (i: number, k: string) => maps[i].get(k)!;
  // a number the same in every entry orders nothing (and a constant count allows any order)
  const numeric = [...maps[0].keys()].filter(
    (k) => maps.every((m) => m.has(k)) && maps.some((_, i) => at(i, k) !== at(0, k)),
  );
  if (numeric.length === 0) return null;
  const ordered = numeric.filter((k) => maps.every((_, i) => i === 0 || at(i, k) <= at(i - 1, k)));
  if (ordered.length) return null;
  const k = numeric[0];
  const i = maps.findIndex((_, j) => j > 0 && at(j, k) > at(j - 1, k));
  return `skills are not most-mentioned first by any count they carry (${numeric.join(', ')}): e.g. ${JSON.stringify(objs[i - 1])} before ${JSON.stringify(objs[i])}`;
}

export const marketChecks = [everyTier, roles, skills];
