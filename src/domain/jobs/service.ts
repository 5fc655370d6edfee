// What the jobs domain offers REST, the MCP tools and the control API: search, get and apply over the
// seeded corpus, /me, market data, the per-key rate window, and the curation queue of applications.
// REST and MCP call the same functions, so an apply over either spends the same wallet and a call over
// either counts against the same window. Built by createJobs (index.ts).
// Requirements: JOB-SEARCH-1, JOB-GET-1, JOB-APPLY-1, JOB-ME-1, JOB-MKT-1, JOB-RATE-1, MCP-KEYED-5 (through the
// modules it names).

import type { Resettable } from '../context.js';
import type { JobsTier } from '../plans.js';
import type { RateDecision } from '../ratelimit/rules.js';
import type { Principal } from '../tenants.js';
import type { RawParams } from './params.js';
import type {
  Application,
  ApplyBody,
  ApplyResult,
  Channel,
  JobRecord,
  JobView,
  Me,
  RoleList,
  RoleReport,
  SalaryBenchmarks,
  SearchResponse,
  SkillList,
} from './types.js';

/** The corpus as built at start: its size and how long each step took. */
export interface CorpusStats {
  readonly activeJobs: number;
  readonly inactiveJobs: number;
  readonly terms: number;
  readonly generateMs: number;
  readonly indexMs: number;
  readonly marketMs: number;
}

/** Market data; arguments as the query strings of the REST routes give them, checked here. */
export interface MarketData {
  salary(): SalaryBenchmarks;
  roles(locale?: unknown): RoleList;
  role(slug: string, locale?: unknown): RoleReport;
  skills(limit?: unknown): SkillList;
}

export interface JobsService extends Resettable {
  readonly stats: CorpusStats;
  /** Searches active jobs for a jobs tier; params as in GET /api/v1/jobs (strings or typed values). */
  search(tier: JobsTier, params?: RawParams): SearchResponse;
  /** The same answer as search(), serialized: the UTF-8 bytes of JSON.stringify(search(tier, params)). */
  searchBody(tier: JobsTier, params?: RawParams): Buffer<ArrayBuffer>;
  /** How many active jobs match the search filters (limit and offset are ignored). */
  count(params?: RawParams): number;
  /** One active job as the public Job (never sponsored); not_found when unknown or inactive. */
  get(id: string): JobView;
  /** The same answer as get(), serialized: the UTF-8 bytes of JSON.stringify(get(id)). */
  getBody(id: string): Buffer<ArrayBuffer>;
  /** The internal record of any job, active or not (description, skills, contact…), or undefined. */
  record(id: string): JobRecord | undefined;
  /** `body` must have passed the contract's ApplyRequest validation. */
  apply(principal: Principal, jobId: string, body: ApplyBody, channel: Channel): ApplyResult;
  me(principal: Principal): Me;
  /** Counts one jobs call of this key; throws RateLimitExceeded (rate_limited) past the tier's limit. */
  takeRate(principal: Principal): RateDecision;
  /** Counts a call that carried no usable key against a per-client-IP window (never refuses; feeds the headers). */
  countAnonymous(ip: string): RateDecision;
  /** The jobs tier of the key's plan. */
  tierOf(principal: Principal): JobsTier;
  readonly market: MarketData;
  /** The curation queue of submitted applications, optionally for one tenant. */
  applications(tenantId?: string): Application[];
  /** Every application, oldest first, read only (the control API pages through it). */
  orderedApplications(): readonly Application[];
  application(applicationId: string): Application | undefined;
  /** Empties the applications; the corpus is static and is kept. */
  reset(): void;
}
