// REST adapter of the screening API under /api/screening/v1: submit, usage and audit export.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { keyInQuery, requireTenant } from './auth.js';
import { bearer, fail, readJson, sendError, sendJson, HttpError } from './http.js';
import {
  decodeCursorWithTenant,
  encodeCursor,
  exportRow,
  type AuditRow,
  type ScreeningStore,
  type State,
} from './ledger.js';
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Readings kept by the planted violation usage-cached, per tenant. */
const usageCache = new WeakMap<Tenant, { at: number; body: unknown }>();

function usage(t: Tenant, v: Switches): unknown {
  const cached = usageCache.get(t);
  if (v.on('usage-cached') && cached && Date.now() - cached.at < 3000) return cached.body;
  const w = wallet(t);
  const fraction = w.cap === 0 ? 1 : (w.cap - w.remaining) / w.cap;
  const body = {
    ...(v.on('usage-no-tenant-id') ? {} : { tenantId: t.id }),
    planTier: v.on('usage-tier-capitalised') ? t.plan[0].toUpperCase() + t.plan.slice(1) : t.plan,
    creditsRemaining: w.remaining,
    creditsCap: w.cap,
    usagePercent: v.on('usage-percent-scale') ? Math.round(fraction * 10000) / 100 : fraction,
    nearLimit: v.on('near-limit-never') ? false : fraction >= 0.8,
    ...(w.resetAt === null && v.on('reset-at-omitted') ? {} : { resetAt: w.resetAt }),
    ...(t.plan === 'free'
      ? { freeScreenCap: w.cap }
      : v.on('free-cap-on-paid')
        ? { freeScreenCap: SCREENING_CAPS.free }
        : {}),
  };
  usageCache.set(t, { at: Date.now(), body });
  return body;
}

/** The state as this deployment names it (state-in-review, a planted violation, renames one). */
const shown = (s: State | null, v: Switches) => (s === 'pending_review' && v.on('state-in-review') ? 'in_review' : s);

function shownRow(row: AuditRow, v: Switches) {
  const out: Record<string, unknown> = {
    ...exportRow(row),
    fromState: shown(row.fromState, v),
    toState: shown(row.toState, v),
  };
  if (v.on('ledger-epoch-created')) out.createdAt = Date.parse(row.createdAt);
  return out;
}

/** Refuses a new submission when the wallet is empty (with the planted cap violations). */
function refuseWhenEmpty(t: Tenant, d: ScreeningDeps): void {
  const w = wallet(t);
  const free = t.plan === 'free';
  const empty = free && d.v.on('free-cap-early') ? w.remaining <= 1 : w.remaining <= 0;
  if (!empty || (free && d.v.on('free-cap-ignored')) || (!free && d.v.on('paid-overdraft'))) return;
  const what = free ? `the free allowance of ${w.cap} screens is used up` : `the ${t.plan} screening wallet is empty`;
  const upsell = { upgradeUrl: `${UPGRADE_URL}?from=${t.plan}` };
  throw fail(402, `${what}; upgrade to continue`, d.v.on('upsell-missing') ? {} : { upsell });
}

/** Body faults the planted violations add before the closed schemas judge the body. */
function loosened(raw: unknown, v: Switches): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const b = { ...(raw as Record<string, unknown>) };
  if (v.on('jobspec-defaulted') && b.jobSpec === undefined) b.jobSpec = { title: '', mustHaves: [] };
  const c = b.candidate as Record<string, unknown> | undefined;
  if (v.on('kind-inferred') && c && typeof c === 'object' && !Array.isArray(c) && c.kind === undefined)
    b.candidate = { ...c, kind: 'fullName' in c ? 'structured' : 'resume_ref' };
  return b;
}

async function submit(req: IncomingMessage, t: Tenant, d: ScreeningDeps): Promise<[number, unknown]> {
  let raw: unknown;
  try {
    raw = await readJson(req);
  } catch (e) {
    if (d.v.on('bad-json-500') && e instanceof HttpError) throw fail(500, 'internal error');
    throw e;
  }
  let body;
  try {
    body = parseSubmit(loosened(raw, d.v), {
      openJobSpec: d.v.on('jobspec-open'),
      openCandidate: d.v.on('candidate-open'),
      anyTypes: d.v.on('skills-any-type'),
    });
  } catch (e) {
    if (d.v.on('invalid-charges')) t.screeningUsed++;
    throw e;
  }
  if (d.v.on('replay-402-when-spent')) refuseWhenEmpty(t, d);
  const existing = d.v.on('idem-global')
    ? d.store.findByKeyAnyTenant(body.idempotencyKey)
    : d.store.findByKey(t.id, body.idempotencyKey);
  if (existing && !d.v.on('replay-duplicates')) {
    if (d.v.on('replay-charges')) t.screeningUsed++;
    return [d.v.on('replay-201') ? 201 : 200, { requestId: existing.id, state: shown(existing.state, d.v) }];
  }
  if (d.v.on('idem-cross-tenant-refused') && d.store.findByKeyAnyTenant(body.idempotencyKey))
    throw fail(400, 'idempotencyKey: already used');
  refuseWhenEmpty(t, d);
  // idem-race: a store round trip between the lookup and the insert, with no lock
  if (d.v.on('idem-race')) await sleep(5);
  const r = d.store.create(t.id, body.idempotencyKey, body.candidate, body.jobSpec);
  if (d.v.on('charge-race')) {
    // a read-modify-write of the wallet across a round trip: parallel charges overwrite each other
    const used = t.screeningUsed;
    await sleep(5);
    t.screeningUsed = used + 1;
  } else if (!d.v.on('no-charge')) t.screeningUsed++;
  d.pipeline.start(r);
  return [d.v.on('submit-new-200') ? 200 : 201, { requestId: r.id, state: shown(r.state, d.v) }];
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
    if (!(limit >= 1 && limit <= maxLimit)) {
      const why = `limit: must be an integer from 1 to 500, got "${s}"`;
      throw d.v.on('audit-limit-422') ? new HttpError(422, 'invalid_request', why) : fail(400, why);
    }
  }
  let since: number | undefined;
  if (p.has('since')) {
    const s = p.get('since')!;
    since = DATE_TIME.test(s) ? Date.parse(s) : NaN;
    if (Number.isNaN(since) && d.v.on('since-unvalidated')) since = undefined;
    else if (Number.isNaN(since)) throw fail(400, `since: must be an RFC 3339 date-time, got "${s}"`);
  }
  const cursor = p.has('cursor') ? decodeCursorWithTenant(p.get('cursor')!) : undefined;
  const after = cursor?.after;
  const owner = d.v.on('cursor-carries-tenant') && cursor?.tenant ? cursor.tenant : t.id;
  const page = d.store.page(owner, {
    since,
    after,
    limit,
    allTenants: d.v.on('audit-other-tenant'),
    sinceOnCursor: d.v.on('since-reapplied'),
    repeatLast: d.v.on('audit-cursor-repeat'),
  });
  let nextCursor = page.nextCursor;
  if (nextCursor !== null && d.v.on('cursor-carries-tenant'))
    nextCursor = encodeCursor(decodeCursorWithTenant(nextCursor).after, owner);
  const events = page.events.map((row) => shownRow(row, d.v));
  return nextCursor === null && d.v.on('audit-no-next-cursor') ? { events } : { events, nextCursor };
}

/** The error as this deployment sends it, with the planted envelope violations. */
function screeningError(e: HttpError, v: Switches): HttpError {
  if (e.status === 403 && v.on('scr-forbidden-code'))
    return new HttpError(403, 'access_denied', e.message, e.extra, e.headers);
  if (e.status === 400 && v.on('scr-error-code-bad-request'))
    return new HttpError(400, 'bad_request', e.message, e.extra, e.headers);
  return e;
}

/** The route under the screening API, or undefined; usage-path-moved (a planted violation) serves usage outside /v1. */
function routeOf(method: string | undefined, pathname: string, v: Switches): string | undefined {
  if (v.on('usage-path-moved')) {
    if (pathname === '/api/screening/usage') return `${method} /usage`;
    if (pathname === `${SCREENING_PREFIX}/usage`) return undefined;
  }
  if (!pathname.startsWith(`${SCREENING_PREFIX}/`)) return undefined;
  const route = `${method} ${pathname.slice(SCREENING_PREFIX.length)}`;
  return ['POST /screen', 'GET /usage', 'GET /audit'].includes(route) ? route : undefined;
}

/** Handles a request under the screening prefix; answers 404 for anything else there. */
export async function handleScreening(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  d: ScreeningDeps,
): Promise<void> {
  try {
    const route = routeOf(req.method, url.pathname, d.v);
    if (!route) throw fail(404, `no route ${req.method} ${url.pathname}`);
    const param = keyInQuery(url);
    if (param) throw fail(401, `query parameter "${param}": an API key must never be sent in a query string`);
    const key = bearer(req);
    if (key === undefined && d.v.on('scr-no-key-403')) throw fail(403, 'a key is required');
    if (key !== undefined && !d.tenants.byApiKey(key) && d.v.on('scr-unknown-key-403'))
      throw fail(403, 'this key may not use the screening API');
    const t = requireTenant(req, d.tenants, 'screening');
    const w = d.limiter.take(`scr:${t.id}`, SCREENING_RATE_PER_MINUTE);
    if (!w.allowed)
      throw fail(
        429,
        'screening rate limit reached',
        {},
        { 'retry-after': String(Math.max(1, Math.ceil(w.reset - Date.now() / 1000))) },
      );
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
    const err = screeningError(e instanceof HttpError ? e : fail(500, 'internal error'), d.v);
    if (d.v.on('scr-error-no-message'))
      return sendJson(res, err.status, { error: { code: err.code, ...err.extra } }, err.headers);
    sendError(res, err);
  }
}
