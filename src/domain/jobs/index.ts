// The jobs domain: a deterministic corpus, its search index, apply with credits, /me, market data and
// the per-key rate limit. REST (src/http/jobs.ts) and the MCP tools call the same functions, so an
// apply over either spends the same wallet and a call over either counts against the same window.
// Requirements: JOB-SEARCH-1, JOB-SEARCH-2, JOB-SEARCH-3, JOB-SEARCH-4, JOB-SEARCH-5, JOB-SEARCH-6, JOB-SEARCH-7,
// JOB-SEARCH-8, JOB-SEARCH-9, JOB-GET-1, JOB-GET-2, JOB-APPLY-1, JOB-APPLY-2, JOB-APPLY-3, JOB-APPLY-4,
// JOB-APPLY-5, JOB-APPLY-6, JOB-ME-1, JOB-ME-2, JOB-MKT-1, JOB-MKT-2, JOB-MKT-3, JOB-MKT-4, JOB-MKT-5, JOB-MKT-6,
// JOB-MKT-7, MCP-KEYED-5 (through the modules it wires).

import type { CoreContext } from '../context.js';
import { notFound } from '../../errors/errors.js';
import { limits, upgradeUrlOf } from '../plans.js';
import { ApplyDesk } from './apply.js';
import { CORPUS_EPOCH_MS, generateCorpus } from './corpus.js';
import { Describer } from './description.js';
import { Market } from './market.js';
import { meOf } from './me.js';
import { parseLocale, parseSearchParams, parseSkillsLimit } from './params.js';
import { SearchIndex } from './search-index.js';
import { JobSearch } from './search.js';
import type { StoredJob } from './types.js';
import type { JobsService } from './service.js';
import { jobViewBytes, toJobView } from './view.js';
import { vocabulary } from './vocab.js';

export { RateLimitExceeded, type RateDecision } from '../ratelimit/rules.js';
export type * from './types.js';

export function createJobs(ctx: CoreContext): JobsService {
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

  // each member is described where JobsService declares it (service.ts)
  return {
    stats,
    search: (tier, params = {}) => finder.search(tier, params),
    searchBody: (tier, params = {}) => finder.searchBody(tier, params),
    count: (params = {}) => finder.match(parseSearchParams({ ...params, limit: undefined, offset: undefined })).length,
    get: (id) => toJobView(activeJob(id), false),
    getBody: (id) => jobViewBytes(activeJob(id), false),
    record(id) {
      const job = corpus.byId.get(id);
      if (!job) return undefined;
      const { descParts: _parts, ...rest } = job;
      return { ...rest, skills: [...job.skills], description: describer.render(job) };
    },
    apply: (principal, jobId, body, channel) => desk.apply(principal, jobId, body, channel),
    me: (principal) => meOf(principal, principal.tenant.clock.now()),
    takeRate: rate.takeRate,
    countAnonymous: rate.countAnonymous,
    tierOf: rate.tierOf,
    market: {
      salary: () => market.salary(),
      roles: (locale) => market.roles(parseLocale({ locale })),
      role: (slug, locale) => market.role(slug, parseLocale({ locale })),
      skills: (limit) => market.skills(parseSkillsLimit({ limit })),
    },
    applications: (tenantId) => ctx.store.applications.list(tenantId),
    orderedApplications: () => ctx.store.applications.ordered(),
    application: (applicationId) => ctx.store.applications.get(applicationId),
    reset: () => ctx.store.applications.reset(),
  };
}

export type { CorpusStats, JobsService, MarketData } from './service.js';
