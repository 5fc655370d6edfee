// REST adapter for /api/v1 (jobs, apply, me, market). It only translates: the contract validates the
// request, the jobs domain answers, the envelope maps errors. Every response under /api/v1, errors
// included, carries X-RateLimit-Limit, -Remaining and -Reset: from the caller's per-key window, or,
// when no usable key was sent (401/403 or no route), from a per-client-IP window of the free tier's size.

import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { RateLimitExceeded, type RateDecision } from '../domain/jobs/index.js';
import { onlyParams } from '../domain/jobs/params.js';
import type { Scope } from '../domain/tenants.js';
import { requireKey } from './auth.js';
import { readJsonBody } from './body.js';
import type { AppEnv } from './types.js';

type Ctx = Context<AppEnv>;

const decisions = new WeakMap<Ctx, RateDecision>();

function clientIp(c: Ctx): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}

/** Mounted on /api/v1/* ahead of the chaos middleware, so injected faults carry the headers too. */
export const rateHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const { jobs, faults } = c.var.core;
  const d = decisions.get(c) ?? jobs.countAnonymous(clientIp(c));
  c.header('X-RateLimit-Limit', String(d.limit));
  if (!faults.bug('drop_ratelimit_remaining')) c.header('X-RateLimit-Remaining', String(d.remaining));
  c.header('X-RateLimit-Reset', String(d.resetSeconds));
  if (c.res.status === 429 && faults.bug('no_retry_after')) c.header('Retry-After', undefined);
};

/** Counts the call against the key's per-minute window (after authentication, before validation). */
const rateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  try {
    decisions.set(c, c.var.core.jobs.takeRate(c.var.principal));
  } catch (err) {
    if (err instanceof RateLimitExceeded) decisions.set(c, err.decision);
    throw err;
  }
  await next();
};

const guard = (scope: Scope) => [requireKey(scope), rateLimit] as const;

/** Query parameters through the contract, then the domain's own check of which ones exist. */
function query(c: Ctx, operationId: string, allowed: readonly string[]): Record<string, unknown> {
  const parsed = c.var.core.contracts.operation(operationId).parseQuery(new URL(c.req.url).searchParams);
  onlyParams(parsed, allowed);
  return parsed;
}

function pathParam(c: Ctx, operationId: string, name: string): string {
  const parsed = c.var.core.contracts.operation(operationId).parsePath({ [name]: c.req.param(name) ?? '' });
  return String(parsed[name]);
}

export function jobsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/jobs', ...guard('jobs'), (c) => {
    const { jobs } = c.var.core;
    const params = c.var.core.contracts.operation('searchJobs').parseQuery(new URL(c.req.url).searchParams);
    return c.json(jobs.search(jobs.tierOf(c.var.principal), params));
  });

  r.get('/jobs/:id', ...guard('jobs'), (c) => {
    query(c, 'getJob', []);
    return c.json(c.var.core.jobs.get(pathParam(c, 'getJob', 'id')));
  });

  r.post('/jobs/:id/apply', ...guard('apply'), async (c) => {
    query(c, 'applyToJob', []);
    const id = pathParam(c, 'applyToJob', 'id');
    const body = await readJsonBody(c);
    c.var.core.contracts.operation('applyToJob').checkBody(body);
    return c.json(c.var.core.jobs.apply(c.var.principal, id, body, 'rest'));
  });

  r.get('/me', ...guard('jobs'), (c) => {
    query(c, 'getMe', []);
    return c.json(c.var.core.jobs.me(c.var.principal));
  });

  r.get('/market/salary', ...guard('market'), (c) => {
    query(c, 'getSalaryBenchmarks', []);
    return c.json(c.var.core.jobs.market.salary());
  });

  r.get('/market/roles', ...guard('market'), (c) => {
    const { locale } = query(c, 'listRoles', ['locale']);
    return c.json(c.var.core.jobs.market.roles(locale));
  });

  r.get('/market/roles/:role', ...guard('market'), (c) => {
    const { locale } = query(c, 'getRoleReport', ['locale']);
    return c.json(c.var.core.jobs.market.role(pathParam(c, 'getRoleReport', 'role'), locale));
  });

  r.get('/market/skills', ...guard('market'), (c) => {
    const { limit } = query(c, 'listSkills', ['limit']);
    return c.json(c.var.core.jobs.market.skills(limit));
  });

  return r;
}
