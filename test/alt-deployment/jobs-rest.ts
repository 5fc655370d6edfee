// REST adapter of the jobs API under /api/v1: search, job by id, apply, /me and the market endpoints.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { keyInQuery, lookup, requireScope } from './auth.js';
import type { CorpusJob } from './corpus.js';
import { clientIp, fail, HttpError, match, readJson, sendError, sendJson, type Headers } from './http.js';
import { apply, findJob, publicJob, search, TIER_LIMITS, tierOf, type Tier } from './jobs-domain.js';
import { checkLocale, roleList, roleReport, salaryGrid, skillDemand } from './market.js';
import type { RateLimiter, WindowState } from './ratelimit.js';
import type { Tenant, TenantStore } from './tenants.js';
import type { Switches } from './violations.js';
import { openRestPath, shapeOpen, type ShapeStyle } from './shape-style.js';

export interface JobsDeps {
  tenants: TenantStore;
  corpus: CorpusJob[];
  limiter: RateLimiter;
  v: Switches;
  ghost: Tenant;
  shape?: ShapeStyle;
}

export function perMinute(tier: Tier, v: Switches): number {
  return tier === 'Free' && v.on('free-limit-100') ? 100 : TIER_LIMITS[tier].perMinute;
}

export function rateHeaders(w: WindowState, v: Switches): Headers {
  const h: Headers = { 'x-ratelimit-limit': String(w.limit), 'x-ratelimit-reset': String(w.reset) };
  const remaining = v.on('remaining-by-two') ? Math.max(0, 2 * w.remaining - w.limit) : w.remaining;
  if (!v.on('no-remaining-header')) h['x-ratelimit-remaining'] = String(remaining);
  return h;
}

export function retryAfter(w: WindowState, v: Switches): Headers {
  return v.on('no-retry-after') ? {} : { 'retry-after': new Date(w.reset * 1000).toUTCString() };
}

const int = (url: URL, name: string): number | undefined => {
  const s = url.searchParams.get(name);
  if (s === null) return undefined;
  if (!/^-?[0-9]{1,9}$/.test(s)) throw fail(400, `${name}: must be an integer; got "${s}"`);
  return Number(s);
};
const str = (url: URL, name: string) => url.searchParams.get(name) ?? undefined;

function me(t: Tenant, tier: Tier, v: Switches) {
  const l = TIER_LIMITS[tier];
  const pageCap = tier === 'Free' && v.on('me-page-cap-10') ? 10 : l.maxPages;
  const perMonth = tier === 'Starter' && v.on('starter-credits-50') ? STARTER_CREDITS_VIOLATED : l.creditsPerMonth;
  return {
    plan: { name: v.on('me-tier-free') ? 'Free' : tier },
    grants: [...t.scopes],
    balance: { apply: t.applyBalance },
    quotas: {
      requestsPerMinute: l.perMinute,
      pageCap,
      applyEnabled: l.apply,
      adFree: tier !== 'Free',
      applyCreditsPerMonth: perMonth,
    },
  };
}

/** The starter tier's monthly apply credits under the `starter-credits-50` violation. */
export const STARTER_CREDITS_VIOLATED = 50;

/** A planted accounting bug: spends one of the tenant's apply credits on a call that must spend none. */
const spendOne = (t: Tenant) => {
  if (t.applyBalance > 0) t.applyBalance--;
};

async function route(req: IncomingMessage, url: URL, t: Tenant, tier: Tier, d: JobsDeps): Promise<[number, unknown]> {
  const path = url.pathname.slice('/api/v1'.length);
  const get = req.method === 'GET';
  let m: Record<string, string> | null;
  if (get && path === '/jobs') {
    const p = {
      q: str(url, 'q'),
      location: str(url, 'location'),
      remote_type: str(url, 'remote_type'),
      job_type: str(url, 'job_type'),
      opportunity_type: str(url, 'opportunity_type'),
      locale: str(url, 'locale'),
    };
    const found = search(d.corpus, tier, { ...p, limit: int(url, 'limit'), offset: int(url, 'offset') }, d.v);
    if (d.v.on('search-charges')) spendOne(t);
    return [200, found];
  }
  if (get && (m = match('/jobs/:id', path))) {
    const job: Partial<ReturnType<typeof publicJob>> = publicJob(findJob(d.corpus, m.id, d.v), tier, d.v);
    if (d.v.on('get-job-drops-currency')) delete job.payCurrency;
    return [200, job];
  }
  if (req.method === 'POST' && (m = match('/jobs/:id/apply', path))) {
    const body = await readJson(req);
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw fail(400, 'body: must be a JSON object');
    const balance = t.applyBalance;
    const r = apply(d.corpus, t, m.id, body, d.v);
    if (d.v.on('apply-charges-other-tenant') && t.applyBalance < balance) {
      t.applyBalance = balance;
      spendOne(d.tenants.all.find((x) => x !== t && x.applyBalance > 0)!);
    }
    if (d.v.on('apply-no-reference'))
      return [202, { status: r.kind === 'submitted' ? 'queued' : 'redirect', job: r.job.id }];
    if (r.kind === 'submitted')
      return [202, { status: 'queued', application: { ref: r.applicationId, job: r.job.id } }];
    return [202, { status: 'redirect', redirect: r.applyUrl }];
  }
  if (get && path === '/me') return [200, me(t, tier, d.v)];
  if (get && path.startsWith('/market/') && tier === 'Free' && d.v.on('market-paid-only'))
    throw fail(403, 'market data needs a paid tier');
  if (get && path === '/market/salary') return [200, salaryGrid(d.corpus, d.v)];
  if (get && path === '/market/roles') return [200, roleList(d.corpus, checkLocale(str(url, 'locale'), d.v), d.v)];
  if (get && (m = match('/market/roles/:role', path)))
    return [200, roleReport(d.corpus, m.role, checkLocale(str(url, 'locale'), d.v), d.v)];
  if (get && path === '/market/skills') {
    const skills = skillDemand(d.corpus, int(url, 'limit'), d.v);
    if (d.v.on('skills-charges')) spendOne(t);
    return [200, skills];
  }
  throw fail(404, `no route ${req.method} ${url.pathname}`);
}

/** Authenticates, counts the call against the key's window and answers; every response carries the rate headers. */
export async function handleJobs(req: IncomingMessage, res: ServerResponse, url: URL, d: JobsDeps): Promise<void> {
  let headers: Headers = rateHeaders(d.limiter.take(`ip:${clientIp(req)}`, 60), d.v);
  try {
    const param = keyInQuery(url);
    if (param) throw fail(400, `query parameter "${param}": an API key must never be sent in a query string`);
    const { tenant, presented } = lookup(req, d.tenants);
    const openMarket = !presented && d.v.on('market-no-auth') && url.pathname.startsWith('/api/v1/market/');
    if (!presented && !openMarket) throw fail(401, 'Authorization: a bearer API key is required');
    const t =
      tenant ??
      ((d.v.on('unknown-key-accepted') && req.headers.authorization?.includes('_live_')) || openMarket
        ? d.ghost
        : undefined);
    if (!t) throw fail(401, 'Authorization: the API key is not recognised');
    requireScope(t, 'jobs');
    const tier = tierOf(t);
    const w = d.limiter.take(`key:${t.id}`, perMinute(tier, d.v));
    headers = rateHeaders(w, d.v);
    if (d.v.on('market-limit-free') && url.pathname.startsWith('/api/v1/market/'))
      headers['x-ratelimit-limit'] = String(TIER_LIMITS.Free.perMinute);
    if (!w.allowed) throw fail(429, `rate limit of ${w.limit} calls a minute reached`, {}, retryAfter(w, d.v));
    const [status, body] = await route(req, url, t, tier, d);
    const open = d.shape && openRestPath(url.pathname.slice('/api/v1'.length));
    sendJson(res, status, open ? shapeOpen(d.shape!, body) : body, headers);
  } catch (e) {
    const err = e instanceof HttpError ? e : fail(500, 'internal error');
    sendError(res, err, headers, d.v.on('error-not-enveloped'));
  }
}
