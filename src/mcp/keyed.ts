// The keyed MCP endpoint, POST /api/mcp: a bearer key with the `mcp` scope on every request (401 with
// WWW-Authenticate without one), each tools/call counted against the key's per-minute window shared
// with the REST API, and X-RateLimit-* headers on every answer.

import { Hono, type Context } from 'hono';
import { DomainError, forbidden } from '../errors/errors.js';
import { RateLimitExceeded } from '../domain/jobs/index.js';
import type { RateDecision } from '../domain/ratelimit/limiter.js';
import type { Principal } from '../domain/tenants.js';
import { authenticate } from '../web/auth.js';
import { clientIp } from '../web/clientIp.js';
import { setRateHeaders, uncountedWindow } from '../web/rateHeaders.js';
import { headerOf } from '../web/headers.js';
import type { AppEnv } from '../web/env.js';
import { refusalResponse } from './gate.js';
import { methodNotAllowed, rebindingProblem } from './httpBits.js';
import { KEYED_INFO, KEYED_INSTRUCTIONS } from './instructions.js';
import { keyedListed } from './listing.js';
import { buildServer, type ServerSpec } from './server.js';
import type { ToolCall } from './tool.js';
import { HANDLERS } from './tools/index.js';
import { serveMcp } from './transport.js';

/** 401/403 as a JSON-RPC error body that REST clients read too (D-92); 401 adds the Bearer challenge. */
function refusal(c: Context<AppEnv>, err: DomainError): Response {
  const res = refusalResponse(err);
  if (err.code === 'unauthorized') {
    // RFC 6750: no error code when no credentials were sent at all
    const sent = c.req.header('authorization') !== undefined;
    const detail = sent ? `, error="invalid_token", error_description="${err.message.replace(/"/g, "'")}"` : '';
    res.headers.set('WWW-Authenticate', `Bearer realm="remote-jobs"${detail}`);
  }
  return res;
}

export function keyedMcpRoutes() {
  const r = new Hono<AppEnv>();
  r.all('/', async (c) => {
    const core = c.var.core;
    let principal: Principal;
    try {
      const rebinding = rebindingProblem(c, core.config);
      if (rebinding) throw forbidden(rebinding);
      principal = authenticate(c, 'mcp');
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // like the REST API: a call without a usable key still gets headers, its key's window or a per-IP one (D-155)
      const res = refusal(c, err);
      setRateHeaders(res.headers, uncountedWindow(core, headerOf(c, 'authorization'), clientIp(c)));
      return res;
    }
    c.set('principal', principal);
    const peek = () => core.rateLimits.peekRate(principal);
    if (c.req.method !== 'POST') {
      const res = methodNotAllowed(
        'POST',
        'this server is stateless and answers JSON-RPC over POST only (no SSE stream, no session to delete)',
      );
      setRateHeaders(res.headers, peek());
      return res;
    }
    let last: RateDecision | null = null;
    const spec: ServerSpec = {
      server: 'keyed',
      info: KEYED_INFO,
      instructions: KEYED_INSTRUCTIONS,
      handlers: HANDLERS.keyed,
      listed: () => keyedListed(core),
      beforeCall: () => {
        try {
          last = core.rateLimits.takeRate(principal);
        } catch (err) {
          if (err instanceof RateLimitExceeded) last = err.decision;
          throw err;
        }
      },
    };
    const call: ToolCall = { core, server: 'keyed', principal, clientIp: clientIp(c) };
    const authInfo = {
      token: 'redacted',
      clientId: principal.tenant.id,
      scopes: [...principal.key.scopes],
      extra: { keyId: principal.key.id },
    };
    const res = await serveMcp(c.req.raw, buildServer(spec, call), authInfo);
    setRateHeaders(res.headers, last ?? peek());
    return res;
  });
  return r;
}
