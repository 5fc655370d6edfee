// The jobs domain: a deterministic corpus, its search index, apply with credits, /me, market data and
// the per-key rate limit. REST (src/http/jobs.ts) and the MCP tools call the same functions, so an
// apply over either spends the same wallet and a call over either counts against the same window.
// Requirements: JOB-SEARCH-1, JOB-SEARCH-2, JOB-SEARCH-3, JOB-SEARCH-4, JOB-SEARCH-5, JOB-SEARCH-6, JOB-SEARCH-7,
// JOB-SEARCH-8, JOB-SEARCH-9, JOB-GET-1, JOB-GET-2, JOB-APPLY-1, JOB-APPLY-2, JOB-APPLY-3, JOB-APPLY-4,
// JOB-APPLY-5, JOB-APPLY-6, JOB-ME-1, JOB-ME-2, JOB-MKT-1, JOB-MKT-2, JOB-MKT-3, JOB-MKT-4, JOB-MKT-5, JOB-MKT-6,
// JOB-MKT-7, MCP-KEYED-5 (through the modules it wires).

import type { CoreContext } from '../context.js';
import { notFound } from '../../errors/errors.js';
import { limits, upgradeUrlOf, type JobsTier } from '../plans.js';
import type { Principal } from '../tenants.js';
import { ApplyDesk } from './apply.js';
import { CORPUS_EPOCH_MS, generateCorpus } from './corpus.js';
import { Describer } from './description.js';
import { Market } from './market.js';
import { meOf } from './me.js';
import { parseLocale, parseSearchParams, parseSkillsLimit, type RawParams } from './params.js';
import { SearchIndex } from './search-index.js';
import { JobSearch } from './search.js';
import type {
  Application,
  ApplyBody,
  ApplyResult,
  Channel,
  JobRecord,
  JobView,
  Me,
  SearchResponse,
  StoredJob,
} from './types.js';
import { jobViewBytes, toJobView } from './view.js';
import { vocabulary } from './vocab.js';

export { RateLimitExceeded, type RateDecision } from '../ratelimit/rules.js';
export type * from './types.js';

export function createJobs(ctx: CoreContext) {
  const t0 = performance.now();
  const vocab = vocabulary();
  const corpus = generateCorpus(vocab, ctx.config.seed, ctx.config.corpusSize, 1 / limits.policy.sponsoredEvery);
  const t1 = performance.now();
  const describer = new Describer(vocab);
  const index = SearchIndex.build(corpus.active, (job, fn) => describer.visitTerms(job, fn));
  const t2 = performance.now();
  const market = new Market(vocab.families, corpus.active, new Date(CORPUS_EPOCH_MS).toISOString());
  const finder = new JobSearch(
    corpus.active,
    index,
    ctx.faults,
    limits.policy.sponsoredEvery,
    upgradeUrlOf(ctx.config),
  );
  const desk = new ApplyDesk(ctx, corpus.byId, ctx.store.applications);
  const rate = ctx.rateLimits;
  const stats = Object.freeze({
    activeJobs: corpus.active.length,
    inactiveJobs: corpus.all.length - corpus.active.length,
    terms: index.termCount,
    generateMs: Math.round(t1 - t0),
    indexMs: Math.round(t2 - t1),
    marketMs: Math.round(performance.now() - t2),
  });

  const activeJob = (id: string): StoredJob => {
    const job = corpus.byId.get(id);
    if (!job || !job.active) throw notFound(`job '${id}' does not exist or is no longer active`);
    return job;
  };

  return {
    stats,
    /** Searches active jobs for a jobs tier; params as in GET /api/v1/jobs (strings or typed values). */
    search(tier: JobsTier, params: RawParams = {}): SearchResponse {
      return finder.search(tier, params);
    },
    /** The same answer as search(), serialized: the UTF-8 bytes of JSON.stringify(search(tier, params)). */
    searchBody(tier: JobsTier, params: RawParams = {}): Buffer<ArrayBuffer> {
      return finder.searchBody(tier, params);
    },
    /** How many active jobs match the search filters (limit and offset are ignored). */
    count(params: RawParams = {}): number {
      return finder.match(parseSearchParams({ ...params, limit: undefined, offset: undefined })).length;
    },
    /** One active job as the public Job (never sponsored); not_found when unknown or inactive. */
    get(id: string): JobView {
      return toJobView(activeJob(id), false);
    },
    /** The same answer as get(), serialized: the UTF-8 bytes of JSON.stringify(get(id)). */
    getBody(id: string): Buffer<ArrayBuffer> {
      return jobViewBytes(activeJob(id), false);
    },
    /** The internal record of any job, active or not (description, skills, contact…), or undefined. */
    record(id: string): JobRecord | undefined {
      const job = corpus.byId.get(id);
      if (!job) return undefined;
      const { descParts: _parts, ...rest } = job;
      return { ...rest, skills: [...job.skills], description: describer.render(job) };
    },
    /** `body` must have passed the contract's ApplyRequest validation. */
    apply(principal: Principal, jobId: string, body: ApplyBody, channel: Channel): ApplyResult {
      return desk.apply(principal, jobId, body, channel);
    },
    me(principal: Principal): Me {
      return meOf(principal, principal.tenant.clock.now());
    },
    takeRate: rate.takeRate,
    countAnonymous: rate.countAnonymous,
    tierOf: rate.tierOf,
    market: {
      salary: () => market.salary(),
      roles: (locale?: unknown) => market.roles(parseLocale({ locale })),
      role: (slug: string, locale?: unknown) => market.role(slug, parseLocale({ locale })),
      skills: (limit?: unknown) => market.skills(parseSkillsLimit({ limit })),
    },
    /** The curation queue of submitted applications, optionally for one tenant. */
    applications(tenantId?: string): Application[] {
      return ctx.store.applications.list(tenantId);
    },
    /** Every application, oldest first, read only (the control API pages through it). */
    orderedApplications(): readonly Application[] {
      return ctx.store.applications.ordered();
    },
    application(applicationId: string): Application | undefined {
      return ctx.store.applications.get(applicationId);
    },
    /** Empties the applications; the corpus is static and is kept. */
    reset(): void {
      ctx.store.applications.reset();
    },
  };
}

export type JobsService = Awaited<ReturnType<typeof createJobs>>;
