// Job search, lookup and apply over the corpus, shared by the REST API and both MCP servers.
import { randomUUID } from 'node:crypto';
import { JOB_TYPES, OPPORTUNITY_TYPES, REMOTE_TYPES, type CorpusJob } from './corpus.js';
import { fail } from './http.js';
import { APPLY_CREDITS, type Plan, type Tenant } from './tenants.js';
import type { Switches } from './violations.js';

export type Tier = 'Free' | 'Starter' | 'Pro';
export const TIER_OF: Record<Exclude<Plan, 'scale'>, Tier> = { free: 'Free', starter: 'Starter', pro: 'Pro' };
export const TIER_LIMITS: Record<
  Tier,
  { perMinute: number; maxPages: number; apply: boolean; creditsPerMonth: number }
> = {
  Free: { perMinute: 60, maxPages: 5, apply: false, creditsPerMonth: APPLY_CREDITS.free },
  Starter: { perMinute: 120, maxPages: 20, apply: true, creditsPerMonth: APPLY_CREDITS.starter },
  Pro: { perMinute: 300, maxPages: 50, apply: true, creditsPerMonth: APPLY_CREDITS.pro },
};

export interface SearchInput {
  q?: string;
  location?: string;
  remote_type?: string;
  job_type?: string;
  opportunity_type?: string;
  limit?: number;
  offset?: number;
  locale?: string;
}

export function tierOf(t: Tenant): Tier {
  if (t.plan === 'scale')
    throw fail(403, 'the jobs API serves the Free, Starter and Pro plans; this key belongs to a scale account');
  return TIER_OF[t.plan];
}

const oneOf = (name: string, value: string | undefined, allowed: readonly string[]) => {
  if (value !== undefined && !allowed.includes(value))
    throw fail(400, `${name}: must be one of ${allowed.join(', ')}; got "${value}"`);
};

export function checkSearch(
  p: SearchInput,
  v: Switches,
): Required<Pick<SearchInput, 'limit' | 'offset'>> & SearchInput {
  const maxLimit = v.on('search-limit-51') ? 100 : 50;
  const limit = p.limit ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit)
    throw fail(400, `limit: must be an integer from 1 to 50; got ${p.limit}`);
  const offset = p.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0)
    throw fail(400, `offset: must be a non-negative integer; got ${p.offset}`);
  oneOf('remote_type', p.remote_type, REMOTE_TYPES);
  oneOf('job_type', p.job_type, JOB_TYPES);
  if (!v.on('opportunity-type-unchecked')) oneOf('opportunity_type', p.opportunity_type, OPPORTUNITY_TYPES);
  oneOf('locale', p.locale, ['id', 'en']);
  return { ...p, limit, offset };
}

export function publicJob(j: CorpusJob, tier: Tier | 'anonymous', v: Switches) {
  const sponsored = j.promoted && (tier === 'Free' || tier === 'anonymous' || v.on('sponsored-on-paid'));
  const {
    id,
    title,
    company,
    location,
    payMin,
    payMax,
    payCurrency,
    payPeriod,
    remoteType,
    jobType,
    postedAt,
    url,
    applyUrl,
  } = j;
  const posted = v.on('posted-at-date-only') ? postedAt.slice(0, 10) : postedAt;
  return {
    id,
    title,
    company,
    location,
    payMin,
    payMax,
    payCurrency,
    payPeriod,
    remoteType,
    jobType,
    postedAt: posted,
    url,
    applyUrl,
    sponsored,
  };
}

/** Any query term may match (title, company, location or a skill); results keep corpus order. */
function matches(j: CorpusJob, p: SearchInput, v: Switches): boolean {
  if (!j.active && !v.on('search-lists-inactive')) return false;
  if (p.remote_type && !v.on('remote-filter-ignored') && j.remoteType !== p.remote_type) return false;
  if (p.job_type && j.jobType !== p.job_type) return false;
  if (p.opportunity_type && j.opportunityType !== p.opportunity_type) return false;
  if (p.location && !j.location.toLowerCase().includes(p.location.toLowerCase())) return false;
  const terms = (p.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  if (!terms.length) return true;
  const hay = [j.title, j.company, j.location, ...j.skills].join(' ').toLowerCase();
  return terms.some((t) => hay.includes(t));
}

export function search(corpus: CorpusJob[], tier: Tier | 'anonymous', input: SearchInput, v: Switches) {
  const p = checkSearch(input, v);
  const page = Math.floor(p.offset / p.limit);
  const cap =
    tier === 'anonymous' ? 5 : tier === 'Free' && v.on('free-no-page-cap') ? Infinity : TIER_LIMITS[tier].maxPages;
  if (page >= cap) throw fail(403, `offset: page ${page} is past the ${cap}-page cap of the ${tier} tier`);
  const all = corpus.filter((j) => matches(j, p, v));
  const end = p.offset + p.limit;
  const hasMore = v.on('has-more-always') || (all.length > end && Math.floor(end / p.limit) < cap);
  const shownTier =
    v.on('search-tier-free') && tier !== 'anonymous'
      ? 'Free'
      : v.on('starter-reads-pro') && tier === 'Starter'
        ? 'Pro'
        : tier;
  return {
    tier: shownTier,
    jobs: all.slice(p.offset, end).map((j) => publicJob(j, tier, v)),
    page: v.on('page-one-based') ? page + 1 : page,
    hasMore,
  };
}

export function findJob(corpus: CorpusJob[], id: string, v: Switches): CorpusJob {
  const j = corpus.find((x) => x.id === id);
  if (!j || (!j.active && !v.on('inactive-served'))) throw fail(404, `job "${id}" not found or no longer active`);
  return j;
}

export interface ApplyBody {
  candidate_name?: unknown;
  candidate_email?: unknown;
  message?: unknown;
  resume_url?: unknown;
  locale?: unknown;
}

/** Checks in order: job (404), tier (403), body (400), credit (402); spends exactly one credit on success. */
export function apply(corpus: CorpusJob[], t: Tenant, jobId: string, body: ApplyBody, v: Switches) {
  const job = findJob(corpus, jobId, v);
  const tier = tierOf(t);
  if (!TIER_LIMITS[tier].apply && !v.on('apply-on-free'))
    throw fail(403, 'applying needs a paid tier (Starter or Pro)');
  for (const f of ['candidate_name', 'candidate_email', 'message'] as const) {
    if (f === 'candidate_email' && body[f] === undefined && v.on('apply-email-optional')) continue;
    if (typeof body[f] !== 'string') throw fail(400, `${f}: a string is required`);
  }
  for (const f of ['resume_url', 'locale'] as const) {
    if (body[f] !== undefined && typeof body[f] !== 'string') throw fail(400, `${f}: must be a string`);
  }
  const len = (body.message as string).length;
  const min = v.on('message-79') ? 79 : 80;
  if ((len < min || len > 3000) && v.on('apply-refused-charges')) t.applyBalance = Math.max(0, t.applyBalance - 1);
  if (len < min || len > 3000) throw fail(400, `message: must be 80 to 3000 characters; got ${len}`);
  const freeRide = !TIER_LIMITS[tier].apply; // only reachable with the apply-on-free violation
  if (t.applyBalance <= 0 && !freeRide)
    throw fail(402, 'no apply credits left this month', {
      upsell: { upgradeUrl: 'https://alt-jobs.example.org/billing/upgrade' },
    });
  t.applyBalance = Math.max(0, t.applyBalance - (v.on('apply-charges-two') ? 2 : 1));
  if (job.employerContact)
    return { kind: 'submitted' as const, applicationId: `app_${randomUUID().replace(/-/g, '').slice(0, 20)}`, job };
  return { kind: 'external' as const, applyUrl: job.applyUrl, job };
}
