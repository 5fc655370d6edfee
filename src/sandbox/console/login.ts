// Sign-in and sign-out. The admin token is checked once; the browser then holds only a signed session
// cookie (a random id and when it was last used, D-141), valid on every instance of a shared sandbox.

import type { Context, Hono } from 'hono';
import { html } from './html.js';
import { documentShell } from './layout.js';
import { clearedCookie, readCookie, sameSecret, sessionCookie, sessionsOf } from './session.js';
import type { ConsoleEnv } from './types.js';
import { field, readForm } from './forms.js';
import { limits } from '../../domain/plans.js';
import { FixedWindowLimiter } from '../../domain/ratelimit/limiter.js';
import { clientIp } from '../../web/clientIp.js';

/** Only console paths (after resolving dot segments) are accepted as the place to return to. */
export function safeNext(next: string | undefined): string {
  const fallback = '/console/tenants';
  if (!next || !next.startsWith('/') || next.includes('\\')) return fallback;
  const base = 'http://console.invalid';
  let u: URL;
  try {
    u = new URL(next, base);
  } catch {
    return fallback;
  }
  return u.origin === base && /^\/console(\/|$)/.test(u.pathname) ? u.pathname + u.search : fallback;
}

export const isSecure = (c: Context) => new URL(c.req.url).protocol === 'https:';

function loginPage(c: Context, next: string, error: string | null, status: 200 | 401 | 403 | 429): Response {
  const body = html`<main id="main" class="login">
  <h1>Sandbox console</h1>
  <p class="lead">Sign in with the sandbox admin token (<code>SANDBOX_ADMIN_TOKEN</code>; printed at start-up when generated).</p>
  ${error ? html`<div class="flash error" role="alert">${error}</div>` : ''}
  <form method="post" action="/console/login" class="stack">
    <input type="hidden" name="next" value="${next}">
    <!-- lets password managers file the token under a name; not read by the server -->
    <input type="text" name="username" value="sandbox-admin" autocomplete="username" class="sr-only" tabindex="-1" aria-hidden="true">
    <label for="token">Admin token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required autofocus spellcheck="false">
    <button type="submit" class="primary">Sign in</button>
  </form>
  <p class="muted">Interactive API reference: <a href="/docs">/docs</a></p>
</main>`;
  return c.html(documentShell('Sign in', body).value, status);
}

export function loginRoutes(r: Hono<ConsoleEnv>): void {
  // failed sign-ins per client and minute of real time (D-86): the sandbox clock is the admin's to move; a client's
  // old windows swept (D-193)
  const failures = FixedWindowLimiter.perMinute(() => true);
  const maxFailures = limits.policy.consoleLoginFailuresPerMinute;
  const realNow = () => performance.timeOrigin + performance.now();

  r.get('/login', async (c) => {
    if (await sessionsOf(c.var.core).read(readCookie(c.req.header('cookie'))))
      return c.redirect(safeNext(c.req.query('next')), 303);
    return loginPage(c, safeNext(c.req.query('next')), null, 200);
  });

  r.post('/login', async (c) => {
    const client = clientIp(c);
    const seen = failures.peek(client, maxFailures, realNow());
    if (!seen.allowed) {
      c.header('Retry-After', String(seen.resetSeconds));
      return loginPage(
        c,
        '/console/tenants',
        `Too many failed sign-ins from this client; try again in ${seen.resetSeconds} s.`,
        429,
      );
    }
    const form = await readForm(c);
    const next = safeNext(field(form, 'next'));
    const token = field(form, 'token');
    if (!token || !sameSecret(token, c.var.core.config.adminToken)) {
      failures.hit(client, maxFailures, realNow());
      return loginPage(c, next, 'That is not the admin token of this sandbox.', 401);
    }
    // a fresh id on every sign-in, so an id planted before sign-in is worthless
    const sessions = sessionsOf(c.var.core);
    const old = await sessions.read(readCookie(c.req.header('cookie')));
    if (old) await sessions.destroy(old);
    c.header('set-cookie', sessionCookie(sessions.cookieOf(sessions.create(), true)!, isSecure(c)));
    return c.redirect(next, 303);
  });
}

export function logoutRoute(r: Hono<ConsoleEnv>): void {
  r.post('/logout', async (c) => {
    await sessionsOf(c.var.core).destroy(c.var.session);
    c.header('set-cookie', clearedCookie(isSecure(c)));
    return c.redirect('/console/login', 303);
  });
}

export { loginPage };
