// HTTP front of the keyed MCP server at /api/mcp: bearer key, scope, plan and the shared per-minute window.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { keyInQuery, lookup, requireScope } from './auth.js';
import type { CorpusJob } from './corpus.js';
import { fail, HttpError, sendError, type Headers } from './http.js';
import { tierOf } from './jobs-domain.js';
import { perMinute, rateHeaders, retryAfter } from './jobs-rest.js';
import type { EmployerState } from './mcp-employer.js';
import { methodNotAllowed, readRpc, serveMcp, toolCalls } from './mcp-http.js';
import { buildKeyedServer } from './mcp-keyed.js';
import type { RateLimiter } from './ratelimit.js';
import type { TenantStore } from './tenants.js';
import type { Switches } from './violations.js';
import type { ShapeStyle } from './shape-style.js';

export interface KeyedDeps {
  tenants: TenantStore;
  corpus: CorpusJob[];
  limiter: RateLimiter;
  employer: EmployerState;
  v: Switches;
  shape?: ShapeStyle;
}

export async function handleKeyedMcp(req: IncomingMessage, res: ServerResponse, url: URL, d: KeyedDeps): Promise<void> {
  let headers: Headers = {};
  try {
    const param = keyInQuery(url);
    if (param) throw fail(401, `query parameter "${param}": an API key must never be sent in a query string`);
    const { tenant, presented } = lookup(req, d.tenants);
    // a planted gap: without a key, a tools/call is served as the free tenant (the body is read before the key check)
    const early =
      !presented && d.v.on('mcp-tools-call-no-key') && req.method === 'POST' ? await readRpc(req) : undefined;
    const keyless = !presented && (d.v.on('mcp-no-key') || (early !== undefined && toolCalls(early) > 0));
    const t = tenant ?? (keyless ? d.tenants.slot('free') : undefined);
    if (!t)
      throw fail(
        401,
        presented ? 'Authorization: the API key is not recognised' : 'Authorization: a bearer API key is required',
        {},
        { 'www-authenticate': 'Bearer' },
      );
    requireScope(t, 'mcp');
    const tier = tierOf(t);
    if (req.method !== 'POST') return methodNotAllowed(res);
    const body = early ?? (await readRpc(req));
    const calls = toolCalls(body);
    // Only tool calls spend the key's window (shared with REST); the handshake and listings are free.
    const limit = perMinute(tier, d.v);
    const w = calls > 0 ? d.limiter.take(`key:${t.id}`, limit) : d.limiter.peek(`key:${t.id}`, limit);
    headers = rateHeaders(w, d.v);
    if (!w.allowed) throw fail(429, `rate limit of ${w.limit} calls a minute reached`, {}, retryAfter(w, d.v));
    for (const [k, val] of Object.entries(headers)) res.setHeader(k, val);
    await serveMcp(
      buildKeyedServer({ tenant: t, tier, corpus: d.corpus, employer: d.employer, v: d.v, shape: d.shape }),
      req,
      res,
      body,
    );
  } catch (e) {
    if (!res.headersSent) sendError(res, e instanceof HttpError ? e : fail(500, 'internal error'), headers);
  }
}
