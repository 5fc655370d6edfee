// REST adapter for /api/screening/v1: authenticates, validates against the contract, calls the
// screening domain and shapes the answer. Screening endpoints are not rate-limited (policy).

import { Hono } from 'hono';
import type { SubmitRequest } from '../contract/types.js';
import type { Core } from '../domain/core.js';
import type { Principal } from '../domain/tenants.js';
import { invalid } from '../errors/errors.js';
import { requireKey, searchParamsOf } from '../web/auth.js';
import { readJsonBody } from '../web/body.js';
import type { AppEnv } from '../web/env.js';

/** Query values arrive as strings from a permissive parser and as numbers from the contract's. */
function integerParam(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw invalid(`${name} must be an integer`, name);
  return n;
}

function stringParam(v: unknown, name: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(`${name} must be given once, as a string`, name);
  return v;
}

export function screeningRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireKey('screening'));

  r.post('/screen', async (c) => {
    const body = await readJsonBody(c);
    // c.get, not c.var: c.var builds a new object on each read
    const out = submitAnswer(c.get('core'), c.get('principal'), body);
    if (out.replayed) c.header('Idempotent-Replayed', 'true');
    return c.json(out.result, out.status);
  });

  // The specification documents no parameters and no 400 for usage: query parameters are ignored
  // (a key in the query string is still refused by requireKey).
  r.get('/usage', (c) => c.json(c.var.core.screening.usage(c.var.principal.tenant)));

  // the bytes c.json(page) would send; a fresh header object each time, as the server adds to it
  r.get('/audit', (c) =>
    c.body(auditAnswer(c.get('core'), c.get('principal'), c.req.url), 200, { 'Content-Type': 'application/json' }),
  );

  return r;
}

/** POST /screen on a parsed body: the answer's status and result, and whether it replays an earlier submit. */
export function submitAnswer(core: Core, principal: Principal, body: unknown) {
  // the one validation pass: past it, the body is a SubmitRequest
  core.contracts.operation('submitScreen').checkBody(body);
  const out = core.screening.submit(principal.tenant, body as SubmitRequest);
  const result = { requestId: out.requestId, state: out.state };
  const status = core.faults.planted.submitStatus(out.replayed);
  return { status, result, replayed: out.replayed };
}

/** GET /audit: one page of the caller's ledger, serialized. Shared with the fast path (fastPath.ts). */
export function auditAnswer(core: Core, principal: Principal, url: string): Buffer<ArrayBuffer> {
  const q = core.contracts.operation('getAudit').parseQuery(searchParamsOf(url));
  return core.screening.auditBody(principal.tenant.id, {
    since: stringParam(q.since, 'since'),
    cursor: stringParam(q.cursor, 'cursor'),
    limit: integerParam(q.limit, 'limit'),
  });
}
