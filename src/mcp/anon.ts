// The anonymous MCP server's app (its own port): POST /mcp for JSON-RPC, GET /mcp for its discovery
// document. No key; 500 tools/call per UTC day per client IP; a call past it is a tool error
// rate_limited (HTTP 200, like every other tool error) with retryAfter.

import { Hono } from 'hono';
import type { Core } from '../domain/core.js';
import { forbidden, notFound } from '../errors/errors.js';
import type { RateDecision } from '../domain/ratelimit/limiter.js';
import { clientIp } from '../web/clientIp.js';
import { publicCors } from '../web/cors.js';
import { toErrorResponse } from '../web/envelope.js';
import { setRateHeaders } from '../web/rateHeaders.js';
import { anonCard } from './card.js';
import { methodNotAllowed, rebindingProblem, wantsEventStream } from './httpBits.js';
import { ANON_INFO, ANON_INSTRUCTIONS } from './instructions.js';
import { anonListed } from './listing.js';
import { buildServer, type ServerSpec } from './server.js';
import type { ToolCall } from './tool.js';
import { HANDLERS } from './tools/index.js';
import { serveMcp } from './transport.js';
import { refusalResponse } from './gate.js';

export function createAnonApp(core: Core): Hono {
  const app = new Hono();
  app.onError((err, c) => toErrorResponse(c, err));
  app.notFound((c) =>
    toErrorResponse(c, notFound(`no route for ${c.req.method} ${c.req.path}; the MCP endpoint is /mcp`)),
  );

  app.use('*', publicCors(['GET', 'POST']));
  app.use('/mcp', async (c, next) => {
    // public and read-only: any web page may call it (CORS), but only by this sandbox's own host name
    const problem = rebindingProblem(c, core.config, { anyOrigin: true });
    if (problem) return refusalResponse(forbidden(problem));
    await next();
  });

  app.get('/', (c) => c.redirect('/mcp'));
  app.get('/.well-known/mcp.json', (c) => c.json(anonCard(core, new URL('/mcp', c.req.url).toString())));
  app.get('/.well-known/mcp/server-card.json', (c) => c.json(anonCard(core, new URL('/mcp', c.req.url).toString())));

  app.get('/mcp', (c) => {
    const ip = clientIp(c);
    const res = wantsEventStream(c)
      ? methodNotAllowed('GET, POST', 'this server is stateless and opens no SSE stream; send JSON-RPC with POST')
      : c.json(anonCard(core, new URL('/mcp', c.req.url).toString()));
    // on the context: the CORS middleware already holds a response whose headers are merged into this one
    setRateHeaders(c.res.headers, core.rateLimits.peekAnonCall(ip));
    return res;
  });

  app.post('/mcp', async (c) => {
    const ip = clientIp(c);
    let last: RateDecision | null = null;
    const spec: ServerSpec = {
      server: 'anon',
      info: ANON_INFO,
      instructions: ANON_INSTRUCTIONS,
      handlers: HANDLERS.anon,
      listed: () => anonListed(core),
      beforeCall: () => {
        last = core.rateLimits.takeAnonCall(ip);
      },
    };
    const call: ToolCall = { core, server: 'anon', principal: null, clientIp: ip };
    const res = await serveMcp(c.req.raw, buildServer(spec, call));
    setRateHeaders(c.res.headers, last ?? core.rateLimits.peekAnonCall(ip));
    return res;
  });

  app.all('/mcp', () =>
    methodNotAllowed(
      'GET, POST',
      'the anonymous server answers JSON-RPC over POST and its discovery document over GET',
    ),
  );
  return app;
}
