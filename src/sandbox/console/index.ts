// The sandbox web console at /console: server-rendered pages over the control API for what a
// person does in production (tenants and keys, review decisions, deliveries, clock, faults, reset).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { DomainError } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';
import { requireSession, sameOrigin, securityHeaders } from './guard.js';
import { html } from './html.js';
import { documentShell, renderPage } from './layout.js';
import { loginRoutes, logoutRoute } from './login.js';
import { applicationPages } from './pages/applications.js';
import { clockPages } from './pages/clock.js';
import { deliveryPages } from './pages/deliveries.js';
import { demoPages } from './pages/demo.js';
import { faultPages } from './pages/faults.js';
import { logPages } from './pages/logs.js';
import { outboxPages } from './pages/outbox.js';
import { requestPages } from './pages/requests.js';
import { reviewPages } from './pages/reviews.js';
import { tenantPages } from './pages/tenants.js';
import type { ConsoleEnv } from './types.js';

const ASSETS: Record<string, { type: string; body: string }> = Object.fromEntries(
  [
    ['console.css', 'text/css; charset=utf-8'],
    ['console.js', 'text/javascript; charset=utf-8'],
  ].map(([name, type]) => [
    name,
    { type, body: readFileSync(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)), 'utf8') },
  ]),
);

function errorPage(status: number, message: string): string {
  return documentShell(
    'Error',
    html`<main id="main" class="login"><h1>Something went wrong</h1>
  <div class="flash error" role="alert">${message}</div><p><a href="/console">Back to the console</a></p></main>`,
  ).value;
}

export function consoleRoutes(): Hono<AppEnv> {
  const r = new Hono<ConsoleEnv>();

  r.onError((err, c) => {
    if (err instanceof DomainError && err.status < 500)
      return c.html(errorPage(err.status, err.message), err.status as 400);
    console.error('console error', err);
    return c.html(errorPage(500, 'The console failed to render this page; the error was logged by the sandbox.'), 500);
  });
  r.use('*', securityHeaders);
  r.get('/assets/:file', (c) => {
    const name = c.req.param('file');
    // own keys only: `__proto__` or `toString` must not reach Object.prototype
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return c.text('not found', 404);
    return c.body(asset.body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=300' });
  });
  r.use('*', sameOrigin);
  r.use(
    '*',
    bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.html(errorPage(413, 'The form was larger than 64 KiB.'), 413) }),
  );
  loginRoutes(r);
  r.use('*', requireSession);
  logoutRoute(r);
  r.get('/', (c) => c.redirect('/console/tenants', 303));
  r.route('/tenants', tenantPages());
  r.route('/reviews', reviewPages());
  r.route('/requests', requestPages());
  r.route('/deliveries', deliveryPages());
  r.route('/applications', applicationPages());
  r.route('/outbox', outboxPages());
  r.route('/logs', logPages());
  r.route('/clock', clockPages());
  r.route('/faults', faultPages());
  r.route('/demo', demoPages());
  r.all('*', (c) =>
    renderPage(c, {
      title: 'Not found',
      active: '',
      status: 404,
      body: html`<p>The console has no page at <code>${c.req.path}</code>.</p>`,
    }),
  );

  // The console's extra variables (session, control client) are set by its own middleware above.
  return r as unknown as Hono<AppEnv>;
}
