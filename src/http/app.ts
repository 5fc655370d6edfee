// The main HTTP app: one error handler, the chaos middleware on API paths, and every adapter mounted.

import { Hono } from 'hono';
import type { Core } from '../domain/core.js';
import { notFound } from '../domain/errors.js';
import { createAnonApp, mountKeyedMcp } from '../mcp/mount.js';
import { consoleRoutes } from '../sandbox/console/index.js';
import { controlRoutes } from '../sandbox/control/index.js';
import { chaos } from './chaos.js';
import { docsRoutes } from './docs.js';
import { toErrorResponse } from './envelope.js';
import { jobsRoutes, rateHeaders } from './jobs.js';
import { screeningRoutes } from './screening.js';
import { selfCheck } from './selfcheck.js';
import type { AppEnv } from './types.js';

export function createApp(core: Core): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.onError((err, c) => toErrorResponse(c, err));
  app.notFound((c) => toErrorResponse(c, notFound(`no route for ${c.req.method} ${c.req.path}`)));
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
  if (core.config.selfCheck) app.use('/api/*', selfCheck);
  app.use('/api/v1/*', rateHeaders);
  app.use('/api/*', chaos);
  app.route('/api/screening/v1', screeningRoutes());
  app.route('/api/v1', jobsRoutes());
  mountKeyedMcp(app);
  app.route('/sandbox/v1', controlRoutes());
  app.route('/console', consoleRoutes());
  app.route('/docs', docsRoutes());
  app.get('/', (c) => c.redirect('/console'));
  return app;
}

export { createAnonApp };
