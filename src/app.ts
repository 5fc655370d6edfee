// The composition root's main app: one error handler, the kernel's middleware on API paths, and every
// adapter mounted side by side (REST, the keyed MCP server, discovery, the control API, the console, the
// account dashboard, docs).
// The anonymous MCP server's app is built here too and served on its own port by main.ts.
// The API's request steps, in order, each one function the fast path (http/fastPath.ts) calls too (D-131):
// CORS, the request-log record (web/callLog.ts), self-check (web/selfcheck.ts), the rate step
// (web/rateHeaders.ts through http/jobs.ts: JOB-RATE-1, JOB-RATE-3, JOB-RATE-4, POL-RATE-1), chaos
// (web/chaos.ts), then the routes' key check and answer, and the envelope step (web/envelope.ts: SCR-ERR-1,
// JOB-ERR-1) with the rate step's error part.

import { Hono, type Context } from 'hono';
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import type { Core } from './domain/core.js';
import { notFound } from './errors/errors.js';
import { discoveryRoutes } from './discovery.js';
import { createAnonApp } from './mcp/anon.js';
import { employerPages } from './mcp/employerPages.js';
import { keyedMcpRoutes } from './mcp/keyed.js';
import { consoleRoutes } from './sandbox/console/index.js';
import { controlRoutes } from './sandbox/control/index.js';
import { dashboardRoutes } from './sandbox/dashboard/index.js';
import { callLog } from './web/callLog.js';
import { chaos } from './web/chaos.js';
import { CORS_PATHS, publicCors } from './web/cors.js';
import { docsRoutes } from './http/docs.js';
import { toErrorResponse } from './web/envelope.js';
import { methodNotServed } from './web/methods.js';
import { jobsRoutes, rateHeaders, rateHeadersOnError } from './http/jobs.js';
import { screeningRoutes } from './http/screening.js';
import { selfCheck } from './web/selfcheck.js';
import type { AppEnv } from './web/env.js';

// The console's pages and the control API are admin paths: served by a TrieRouter of their own, so no
// pattern of theirs can push the API routes off the RegExpRouter (a SmartRouter falls back to the
// TrieRouter for every route when one pattern does not suit the RegExpRouter, at several times the cost).
const isAdminPath = (path: string) =>
  path === '/console' ||
  path.startsWith('/console/') ||
  path.startsWith('/sandbox/') ||
  path === '/app' ||
  path.startsWith('/app/');

/**
 * Hono's default router choice, made apart for the admin paths. Admin routes can only match admin
 * paths, so the admin side holds every route and the rest every other one: each request is matched
 * against all the routes that could match it.
 */
export class AdminApartRouter<T> implements Router<T> {
  readonly name = 'AdminApartRouter';
  private readonly admin = new TrieRouter<T>();
  private readonly rest = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });

  add(method: string, path: string, handler: T): void {
    this.admin.add(method, path, handler);
    if (!isAdminPath(path)) this.rest.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    return isAdminPath(path) ? this.admin.match(method, path) : this.rest.match(method, path);
  }

  /**
   * The router the API side settled on (after its first match): RegExpRouter unless a pattern forced the fallback.
   * Framework internal (D-131): SmartRouter's undocumented `activeRouter`; hono is pinned exactly in
   * package.json and test/framework-internals.test.ts fails when it changes.
   */
  get apiRouterName(): string {
    try {
      // the getter throws until the first match has settled the choice
      return (this.rest as unknown as { activeRouter: { name: string } }).activeRouter.name;
    } catch {
      return 'not built yet';
    }
  }
}

export function createApp(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ router: new AdminApartRouter() });
  // /api/v1 answers carry the X-RateLimit-* headers, errors included: they go on before the envelope is built.
  const answerError = (c: Context<AppEnv>, err: unknown) =>
    toErrorResponse(c, err, (status) => rateHeadersOnError(c, status));
  app.onError((err, c) => answerError(c, err));
  app.notFound(
    (c) =>
      methodNotServed(c, core.contracts, (status) => rateHeadersOnError(c, status)) ??
      answerError(c, notFound(`no route for ${c.req.method} ${c.req.path}`)),
  );
  app.use('*', async (c, next) => {
    c.set('core', core);
    await next();
  });
  if (core.config.log) {
    app.use('*', async (c, next) => {
      const t0 = performance.now();
      await next();
      console.log(`${c.req.method} ${c.req.path} ${c.res.status} ${(performance.now() - t0).toFixed(1)}ms`);
    });
  }
  for (const path of CORS_PATHS) app.use(path, publicCors(['GET', 'POST']));
  app.use('/api/*', callLog);
  if (core.config.selfCheck) app.use('/api/*', selfCheck);
  app.use('/api/v1/*', rateHeaders);
  app.use('/api/*', chaos);
  app.route('/api/screening/v1', screeningRoutes());
  app.route('/api/v1', jobsRoutes());
  app.route('/api/mcp', keyedMcpRoutes());
  app.route('/', discoveryRoutes());
  app.route('/', employerPages());
  app.route('/sandbox/v1', controlRoutes());
  app.route('/console', consoleRoutes());
  app.route('/app', dashboardRoutes());
  app.route('/docs', docsRoutes());
  app.get('/', (c) => c.redirect('/console'));
  return app;
}

export { createAnonApp };
