// Request guards of the console: security headers, same-origin POSTs, the session requirement and
// the per-session CSRF token on every form post.

import type { MiddlewareHandler } from 'hono';
import { controlClient } from './control.js';
import { field, readForm } from './forms.js';
import { html } from './html.js';
import { documentShell } from './layout.js';
import { loginPage, safeNext } from './login.js';
import { isSecure } from './login.js';
import {
  clearedCookie,
  FLASH_COOKIE,
  flashCookie,
  readCookie,
  sameSecret,
  sessionCookie,
  sessionsOf,
} from './session.js';
import type { ConsoleEnv } from './types.js';

export const securityHeaders: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  await next();
  c.res.headers.set(
    'content-security-policy',
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  );
  c.res.headers.set('x-content-type-options', 'nosniff');
  c.res.headers.set('referrer-policy', 'same-origin');
  c.res.headers.set('x-frame-options', 'DENY');
  if (!c.req.path.startsWith('/console/assets/')) c.res.headers.set('cache-control', 'no-store');
};

const forbiddenPage = (message: string) =>
  documentShell(
    'Refused',
    html`<main id="main" class="login"><h1>Request refused</h1><div class="flash error" role="alert">${message}</div>
  <p><a href="/console">Back to the console</a></p></main>`,
  ).value;

/** The host of an Origin header; one that is not a URL matches no host (a 403, not a 500). */
function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** Browsers send Origin on form posts; one from another site is refused before anything else. */
export const sameOrigin: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    const origin = c.req.header('origin');
    const host = c.req.header('host');
    if (origin && origin !== 'null' && host && hostOf(origin) !== host) {
      return c.html(forbiddenPage('This form was posted from another site.'), 403);
    }
  }
  await next();
};

/**
 * Every page and post after sign-in: the session cookie must verify (on any instance, D-141), a post must
 * carry the session's CSRF token; afterwards the cookie is renewed now and then and the one-shot messages
 * not yet shown travel on in the flash cookie.
 */
export const requireSession: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  const sessions = sessionsOf(c.var.core);
  const cookies = c.req.header('cookie');
  const session = await sessions.read(readCookie(cookies));
  if (!session) {
    const url = new URL(c.req.url);
    if (c.req.method === 'GET' || c.req.method === 'HEAD') {
      return c.redirect(`/console/login?next=${encodeURIComponent(safeNext(url.pathname + url.search))}`, 303);
    }
    return loginPage(c, '/console/tenants', 'Your console session has ended; sign in again.', 401);
  }
  if (c.req.method === 'POST') {
    const token = field(await readForm(c), '_csrf');
    if (!token || !sameSecret(token, session.csrf)) {
      return c.html(
        forbiddenPage(
          'The form is missing its security token or is from an older session. Reload the page and try again.',
        ),
        403,
      );
    }
  }
  const incomingFlash = readCookie(cookies, FLASH_COOKIE);
  sessions.openFlash(session, incomingFlash);
  c.set('session', session);
  c.set('ctl', controlClient(c.var.core));
  await next();
  const secure = isSecure(c);
  const renewed = sessions.cookieOf(session);
  if (renewed) c.res.headers.append('set-cookie', sessionCookie(renewed, secure));
  const flash = session.ended ? null : sessions.sealFlash(session);
  if (flash) c.res.headers.append('set-cookie', flashCookie(flash, secure));
  else if (incomingFlash !== undefined) c.res.headers.append('set-cookie', clearedCookie(secure, FLASH_COOKIE));
};
