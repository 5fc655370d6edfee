// The sandbox control API under /sandbox/v1, for what a human does in production: tenants and keys,
// review decisions, the sandbox clock and each tenant's, webhook deliveries, fault switches, outboxes and reset.

import { Hono } from 'hono';
import type { AppEnv } from '../../web/env.js';
import { applicationsRoutes } from './applications.js';
import { resolveCaller } from './caller.js';
import { listenRoutes } from './listen.js';
import { logsRoutes } from './logs.js';
import { outboxRoutes } from './outbox.js';
import { reviewsRoutes } from './reviews.js';
import { sandboxClockRoutes, tenantClockRoutes } from './clock.js';
import { storeRoutes } from './store.js';
import { systemRoutes } from './system.js';
import { tenantRoutes } from './tenants.js';
import { webhooksRoutes } from './webhooks.js';

export function controlRoutes() {
  const r = new Hono<AppEnv>();
  // the admin token reaches every route; a tenant's own key the routes whose audience includes tenants,
  // for its own tenant only (each route's audience: its `security` in contracts/control.openapi.yaml, D-133)
  r.use('*', resolveCaller);
  r.route('/webhooks/listen', listenRoutes());
  r.route('/tenants', tenantRoutes());
  r.route('/tenants', tenantClockRoutes());
  r.route('/clock', sandboxClockRoutes());
  r.route('/reviews', reviewsRoutes());
  r.route('/webhooks', webhooksRoutes());
  r.route('/applications', applicationsRoutes());
  r.route('/outbox', outboxRoutes());
  r.route('/logs', logsRoutes());
  r.route('/store', storeRoutes());
  r.route('/', systemRoutes());
  return r;
}
