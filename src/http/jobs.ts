// REST adapter for /api/v1 (jobs, apply, me, market). It only translates: the contract validates the
// request, the jobs domain answers, the envelope maps errors. Every response under /api/v1, errors
// included, carries X-RateLimit-Limit, -Remaining and -Reset: from the caller's per-key window (read and not
// counted when the call never reached it: a 403, no route, an injected fault; D-155), or, when no key of any
// tenant was sent, from a per-client-IP window of the free tier's size.
// The headers themselves are the rate step's (web/rateHeaders.ts; JOB-RATE-1, JOB-RATE-3, JOB-RATE-4, POL-RATE-1).

import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { ApplyRequest } from '../contract/types.js';
import { RateLimitExceeded, type RateDecision } from '../domain/jobs/index.js';
import { onlyParams } from '../domain/jobs/params.js';
import type { Core } from '../domain/core.js';
import type { Principal, Scope } from '../domain/tenants.js';
import { authenticate, searchParamsOf } from '../web/auth.js';
import { clientIp } from '../web/clientIp.js';
import { headerOf } from '../web/headers.js';
import { contextSetter, rateHeadersOnError as rateStepOnError, writeRateHeaders } from '../web/rateHeaders.js';
import { readJsonBody } from '../web/body.js';
import type { AppEnv } from '../web/env.js';

type Ctx = Context<AppEnv>;

// The headers go on before the answer is built (set on the context, they are part of the response
// from the start): for the caller's window as soon as it is counted, otherwise when the error answer
// is built. Per /api/v1 call: false until they are set, then true.
const rateHeadersSet = new WeakMap<Ctx, boolean>();

// A fresh object per answer: the server may add to the header object a response is built with.
const jsonType = () => ({ 'content-type': 'application/json' });

function setRateHeaders(c: Ctx, d: RateDecision): void {
  writeRateHeaders(contextSetter(c), d, c.get('core').faults);
  rateHeadersSet.set(c, true);
}

/** Mounted on /api/v1/* ahead of the chaos middleware, so injected faults carry the headers too. */
export const rateHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  rateHeadersSet.set(c, false);
  await next();
};

/**
 * Called while an error answer is built, before it is: an /api/v1 call that never reached its key's
 * window (no usable key, no route, an injected fault) shows that window, or its client IP's (uncountedWindow).
 */
export function rateHeadersOnError(c: Ctx, status: number): void {
  const set = rateHeadersSet.get(c);
  if (set === undefined) return;
  const call = { authorization: headerOf(c, 'authorization'), ip: clientIp(c) };
  rateStepOnError(contextSetter(c), c.get('core'), set, call, status);
  rateHeadersSet.set(c, true);
}

/**
 * Authenticates the key for `scope`, then counts the call against the key's per-minute window (before
 * validation), in one step.
 */
const guard =
  (scope: Scope): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const principal = authenticate(c, scope);
    c.set('principal', principal);
    setRateHeaders(
      c,
      keyWindow(c.get('core'), principal, (d) => setRateHeaders(c, d)),
    );
    await next();
  };

/** Counts a call against the key's per-minute window; a refusal's window is handed to `refused` first. */
export function keyWindow(core: Core, principal: Principal, refused: (d: RateDecision) => void): RateDecision {
  try {
    return core.rateLimits.takeRate(principal);
  } catch (err) {
    if (err instanceof RateLimitExceeded) refused(err.decision);
    throw err;
  }
}

/** Query parameters through the contract, then the domain's own check of which ones exist. */
function query(c: Ctx, operationId: string, allowed: readonly string[]): Record<string, unknown> {
  return queryOf(c.get('core'), c.req.url, operationId, allowed);
}

function queryOf(core: Core, url: string, operationId: string, allowed: readonly string[]): Record<string, unknown> {
  const parsed = core.contracts.operation(operationId).parseQuery(searchParamsOf(url));
  onlyParams(parsed, allowed);
  return parsed;
}

function pathParam(c: Ctx, operationId: string, name: string): string {
  return pathParamOf(c.get('core'), operationId, name, c.req.param(name) ?? '');
}

function pathParamOf(core: Core, operationId: string, name: string, value: string): string {
  const parsed = core.contracts.operation(operationId).parsePath({ [name]: value });
  return String(parsed[name]);
}

// The two hot reads answer with bytes the jobs domain builds from cached per-job JSON, byte for byte
// what c.json() would send. Shared with the fast path (fastPath.ts), which calls them on Node's request.

/** GET /jobs: the search answer for the caller's tier. */
export function searchAnswer(core: Core, principal: Principal, url: string): Buffer<ArrayBuffer> {
  const params = core.contracts.operation('searchJobs').parseQuery(searchParamsOf(url));
  return core.jobs.searchBody(core.jobs.tierOf(principal), params);
}

/** GET /jobs/{id}: one job; `id` as routed (decoded). */
export function jobAnswer(core: Core, url: string, id: string): Buffer<ArrayBuffer> {
  queryOf(core, url, 'getJob', []);
  return core.jobs.getBody(pathParamOf(core, 'getJob', 'id', id));
}

export function jobsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/jobs', guard('jobs'), (c) =>
    c.body(searchAnswer(c.get('core'), c.get('principal'), c.req.url), 200, jsonType()),
  );

  r.get('/jobs/:id', guard('jobs'), (c) =>
    c.body(jobAnswer(c.get('core'), c.req.url, c.req.param('id') ?? ''), 200, jsonType()),
  );

  r.post('/jobs/:id/apply', guard('apply'), async (c) => {
    query(c, 'applyToJob', []);
    const id = pathParam(c, 'applyToJob', 'id');
    const body = await readJsonBody(c);
    // the one validation pass: past it, the body is an ApplyRequest
    c.get('core').contracts.operation('applyToJob').checkBody(body);
    return c.json(c.get('core').jobs.apply(c.get('principal'), id, body as ApplyRequest, 'rest'));
  });

  r.get('/me', guard('jobs'), (c) => {
    query(c, 'getMe', []);
    return c.json(c.get('core').jobs.me(c.get('principal')));
  });

  r.get('/market/salary', guard('market'), (c) => {
    query(c, 'getSalaryBenchmarks', []);
    return c.json(c.get('core').jobs.market.salary());
  });

  r.get('/market/roles', guard('market'), (c) => {
    const { locale } = query(c, 'listRoles', ['locale']);
    return c.json(c.get('core').jobs.market.roles(locale));
  });

  r.get('/market/roles/:role', guard('market'), (c) => {
    const { locale } = query(c, 'getRoleReport', ['locale']);
    return c.json(c.get('core').jobs.market.role(pathParam(c, 'getRoleReport', 'role'), locale));
  });

  r.get('/market/skills', guard('market'), (c) => {
    const { limit } = query(c, 'listSkills', ['limit']);
    return c.json(c.get('core').jobs.market.skills(limit));
  });

  return r;
}
