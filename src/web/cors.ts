// CORS for the public surfaces (D-93): the REST APIs the docs' "Try it out" calls, the discovery
// documents and served contracts, and the anonymous MCP server. Preflights are answered here, before
// any key is asked for (a browser sends no Authorization on a preflight); actual calls still need
// their key. Credentials are never cookies, so any origin may read the answers (`*`).
//
// Headers go on the context before the answer is built, and only on calls that carry an Origin (a
// browser's). Touching `c.res` first, as hono's own cors middleware does, makes every answer a
// materialised Response and takes @hono/node-server off its fast path (about 3x fewer req/s).

import type { MiddlewareHandler } from 'hono';

/** The headers a browser client must be able to read besides the safelisted ones. */
const EXPOSED = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'WWW-Authenticate',
  'Allow',
].join(',');

/** Request headers the APIs and the MCP transport read. */
const ALLOWED = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
  'Last-Event-ID',
].join(',');

const MAX_AGE = '600';

/** The headers of an actual (not preflight) call that carries an Origin. */
export const CORS_ANSWER: ReadonlyArray<readonly [string, string]> = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', EXPOSED],
  ['Vary', 'Origin'],
];

export const publicCors = (methods: string[]): MiddlewareHandler => {
  const allowMethods = methods.join(',');
  return async (c, next) => {
    if (!c.req.header('origin')) return next();
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method')) {
      return c.body(null, 204, {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': allowMethods,
        'Access-Control-Allow-Headers': ALLOWED,
        'Access-Control-Max-Age': MAX_AGE,
        Vary: 'Origin',
      });
    }
    for (const [name, value] of CORS_ANSWER) c.header(name, value);
    return next();
  };
};

/** Paths of the main app that answer browsers on other origins. */
export const CORS_PATHS = [
  '/api/v1/*',
  '/api/screening/v1/*',
  '/api/openapi.json',
  '/.well-known/*',
  '/llms.txt',
  '/docs/jobs.json',
  '/docs/screening.json',
];
