// REST adapter of the screening API under /api/screening/v1: submit, usage and audit export.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { keyInQuery, requireTenant } from './auth.js';
import { fail, readJson, sendError, sendJson, HttpError } from './http.js';
import { decodeCursor, exportRow, type ScreeningStore } from './ledger.js';
import type { Pipeline } from './pipeline.js';
import type { RateLimiter } from './ratelimit.js';
import { parseSubmit } from './screening-schema.js';
import { SCREENING_CAPS, SCREENING_PERIOD_MS, type Tenant, type TenantStore } from './tenants.js';
import type { Switches } from './violations.js';

export const SCREENING_PREFIX = '/api/screening/v1';
const SCREENING_RATE_PER_MINUTE = 600;
const UPGRADE_URL = 'https://alt-jobs.example.org/billing/upgrade';

export interface ScreeningDeps {
  tenants: TenantStore;
  store: ScreeningStore;
  pipeline: Pipeline;
  limiter: RateLimiter;
  v: Switches;
}

/** Rolls a paid wallet into its next 30-day period when the current one has ended. */
function wallet(t: Tenant, now = Date.now()) {
  const cap = SCREENING_CAPS[t.plan];
  if (t.plan !== 'free') {
    while (now >= t.periodStart + SCREENING_PERIOD_MS) {
      t.periodStart += SCREENING_PERIOD_MS;
      t.screeningUsed = 0;
    }
  }
  const resetAt = t.plan === 'free' ? null : new Date(t.periodStart + SCREENING_PERIOD_MS).toISOString();
  return { cap, remaining: Math.max(0, cap - t.screeningUsed), resetAt };
}

function usage(t: Tenant, v: Switches) {
  const w = wallet(t);
  const fraction = w.cap === 0 ? 1 : (w.cap - w.remaining) / w.cap;
  return {
    tenantId: t.id,
    planTier: t.plan,
    creditsRemaining: w.remaining,
    creditsCap: w.cap,
    usagePercent: v.on('usage-percent-scale') ? Math.round(fraction * 10000) / 100 : fraction,
    nearLimit: v.on('near-limit-never') ? false : fraction >= 0.8,
    resetAt: w.resetAt,
    ...(t.plan === 'free' ? { freeScreenCap: w.cap } : {}),
  };
}

async function submit(req: IncomingMessage, t: Tenant, d: ScreeningDeps): Promise<[number, unknown]> {
  let raw: unknown;
  try {
    raw = await readJson(req);
  } catch (e) {
    if (d.v.on('bad-json-500') && e instanceof HttpError) throw fail(500, 'internal error');
    throw e;
  }
  const body = parseSubmit(raw, d.v.on('jobspec-open'));
  const existing = d.store.findByKey(t.id, body.idempotencyKey);
  if (existing && !d.v.on('replay-duplicates')) {
    if (d.v.on('replay-charges')) t.screeningUsed++;
    return [d.v.on('replay-201') ? 201 : 200, { requestId: existing.id, state: existing.state }];
  }
  const w = wallet(t);
  if (w.remaining <= 0) {
    const what = t.plan === 'free' ? `the free allowance of ${w.cap} screens is used up` : `the ${t.plan} screening wallet is empty`;
    const upsell = { upgradeUrl: `${UPGRADE_URL}?from=${t.plan}` };
    throw fail(402, `${what}; upgrade to continue`, d.v.on('upsell-missing') ? {} : { upsell });
  }
  const r = d.store.create(t.id, body.idempotencyKey, body.candidate, body.jobSpec);
  if (!d.v.on('no-charge')) t.screeningUsed++;
  d.pipeline.start(r);
  return [201, { requestId: r.id, state: r.state }];
}

const INT = /^[0-9]+$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

function audit(url: URL, t: Tenant, d: ScreeningDeps) {
  const p = url.searchParams;
  const maxLimit = d.v.on('audit-limit-600') ? 1000 : 500;
  let limit = 100;
  if (p.has('limit')) {
    const s = p.get('limit')!;
    limit = INT.test(s) ? Number(s) : NaN;
    if (!(limit >= 1 && limit <= maxLimit)) throw fail(400, `limit: must be an integer from 1 to 500, got "${s}"`);
  }
  let since: number | undefined;
  if (p.has('since')) {
    const s = p.get('since')!;
    since = DATE_TIME.test(s) ? Date.parse(s) : NaN;
    if (Number.isNaN(since)) throw fail(400, `since: must be an RFC 3339 date-time, got "${s}"`);
  }
  const after = p.has('cursor') ? decodeCursor(p.get('cursor')!) : undefined;
  const page = d.store.page(t.id, {
    since,
    after,
    limit,
    allTenants: d.v.on('audit-other-tenant'),
    sinceOnCursor: d.v.on('since-reapplied'),
    repeatLast: d.v.on('audit-cursor-repeat'),
  });
  return { events: page.events.map(exportRow), nextCursor: page.nextCursor };
}

/** Handles a request under the screening prefix; answers 404 for anything else there. */
export async function handleScreening(req: IncomingMessage, res: ServerResponse, url: URL, d: ScreeningDeps): Promise<void> {
  try {
    const route = `${req.method} ${url.pathname.slice(SCREENING_PREFIX.length)}`;
    if (!['POST /screen', 'GET /usage', 'GET /audit'].includes(route)) throw fail(404, `no route ${req.method} ${url.pathname}`);
    const param = keyInQuery(url);
    if (param) throw fail(401, `query parameter "${param}": an API key must never be sent in a query string`);
    const t = requireTenant(req, d.tenants, 'screening');
    const w = d.limiter.take(`scr:${t.id}`, SCREENING_RATE_PER_MINUTE);
    if (!w.allowed) throw fail(429, 'screening rate limit reached', {}, { 'retry-after': String(Math.max(1, Math.ceil(w.reset - Date.now() / 1000))) });
    if (route === 'POST /screen') {
      const [status, body] = await submit(req, t, d);
      return sendJson(res, status, body);
    }
    if (route === 'GET /usage') {
      const owner = d.v.on('usage-other-tenant') ? d.tenants.all.find((x) => x.id !== t.id)! : t;
      return sendJson(res, 200, usage(owner, d.v));
    }
    return sendJson(res, 200, audit(url, t, d));
  } catch (e) {
    sendError(res, e instanceof HttpError ? e : fail(500, 'internal error'));
  }
}
