// The account dashboard at {app_url} (served at /app on the main port): integrators sign up, hold a
// tenant of their own, create and revoke keys, change plan with a simulated checkout and set their
// webhook. Server-rendered in the console's look. Every post is a recorded call of a shared sandbox and
// every page a read, so accounts, sessions, keys and revocations are the same on every instance.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { DomainError } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';
import { html } from '../console/html.js';
import { securityHeaders } from '../console/guard.js';
import { requireAccount, sameOrigin } from './guard.js';
import { plainPage, renderPage } from './layout.js';
import { activityPages } from './pages/activity.js';
import { authPages, logoutRoute } from './pages/auth.js';
import { billingPages } from './pages/billing.js';
import { keyPages } from './pages/keys.js';
import { overviewPages } from './pages/overview.js';
import { webhookPages } from './pages/webhooks.js';
import { BASE } from './session.js';
import type { DashboardEnv } from './types.js';

const asset = (url: URL, type: string) => ({ type, body: readFileSync(fileURLToPath(url), 'utf8') });
const ASSETS: Record<string, { type: string; body: string }> = {
  'console.css': asset(new URL('../console/assets/console.css', import.meta.url), 'text/css; charset=utf-8'),
  'dashboard.css': asset(new URL('./assets/dashboard.css', import.meta.url), 'text/css; charset=utf-8'),
};

const problem = (message: string) =>
  html`<h1>Something went wrong</h1><div class="flash error" role="alert">${message}</div><p><a href="${BASE}">Back to the dashboard</a></p>`;

export function dashboardRoutes(): Hono<AppEnv> {
  const r = new Hono<DashboardEnv>();
  r.onError((err, c) => {
    if (err instanceof DomainError && err.status < 500) return plainPage(c, 'Error', problem(err.message), err.status);
    console.error('dashboard error', err);
    return plainPage(
      c,
      'Error',
      problem('The dashboard failed to render this page; the error was logged by the sandbox.'),
      500,
    );
  });
  r.use('*', securityHeaders);
  r.get('/assets/:file', (c) => {
    const name = c.req.param('file');
    const a = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!a) return c.text('not found', 404);
    return c.body(a.body, 200, { 'content-type': a.type, 'cache-control': 'public, max-age=300' });
  });
  r.use('*', sameOrigin);
  r.use(
    '*',
    bodyLimit({
      maxSize: 16 * 1024,
      onError: (c) => plainPage(c, 'Refused', problem('The form was larger than 16 KiB.'), 413),
    }),
  );
  authPages(r);
  r.use('*', requireAccount);
  logoutRoute(r);
  r.route('/keys', keyPages());
  r.route('/billing', billingPages());
  r.route('/webhooks', webhookPages());
  r.route('/', activityPages());
  r.route('/', overviewPages());
  r.all('*', (c) =>
    renderPage(c, {
      title: 'Not found',
      active: '',
      status: 404,
      body: html`<p>The dashboard has no page at <code>${c.req.path}</code>.</p>`,
    }),
  );
  // the dashboard's extra variables (account, session) are set by its own guard above
  return r as unknown as Hono<AppEnv>;
}
