// CORS for the public surfaces (D-93): the REST APIs the docs' "Try it out" calls, the discovery
// documents and served contracts, and the anonymous MCP server. Preflights are answered here, before
// any key is asked for (a browser sends no Authorization on a preflight); actual calls still need
// their key. Credentials are never cookies, so any origin may read the answers (`*`).

import { cors } from 'hono/cors';

/** The headers a browser client must be able to read besides the safelisted ones. */
const EXPOSED = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate', 'Allow'];

/** Request headers the APIs and the MCP transport read. */
const ALLOWED = ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID'];

export const publicCors = (methods: string[]) =>
  cors({ origin: '*', allowMethods: methods, allowHeaders: ALLOWED, exposeHeaders: EXPOSED, maxAge: 600 });

/** Paths of the main app that answer browsers on other origins. */
export const CORS_PATHS = ['/api/v1/*', '/api/screening/v1/*', '/api/openapi.json', '/.well-known/*', '/llms.txt', '/docs/jobs.json', '/docs/screening.json'];
