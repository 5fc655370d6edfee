// Request guards of the dashboard: same-origin form posts, the signed-in session on every page but
// sign-up and sign-in, and the session's CSRF token on every signed-in form post.

import type { MiddlewareHandler } from 'hono';
import { sameSecret } from '../console/session.js';
import { html } from '../console/html.js';
import { plainPage } from './layout.js';
import { readValues } from './forms.js';
import { BASE, currentSession, safeNext } from './session.js';
import type { DashboardEnv } from './types.js';

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

const refusal = (message: string) =>
  html`<h1>Request refused</h1><div class="flash error" role="alert">${message}</div><p><a href="${BASE}">Back to the dashboard</a></p>`;

/** Browsers send Origin on form posts; one from another site is refused before anything else. */
export const sameOrigin: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    const origin = c.req.header('origin');
    const host = c.req.header('host');
    if (origin && origin !== 'null' && host && hostOf(origin) !== host)
      return plainPage(c, 'Refused', refusal('This form was posted from another site.'), 403);
  }
  await next();
};

export const requireAccount: MiddlewareHandler<DashboardEnv> = async (c, next) => {
  const current = currentSession(c);
  if (!current) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') {
      const url = new URL(c.req.url);
      return c.redirect(`${BASE}/login?next=${encodeURIComponent(safeNext(url.pathname + url.search))}`, 303);
    }
    return plainPage(
      c,
      'Signed out',
      html`<h1>Your session has ended</h1><div class="flash error" role="alert">Sign in again to continue; nothing was changed.</div><p><a href="${BASE}/login">Sign in</a></p>`,
      401,
    );
  }
  if (c.req.method === 'POST') {
    const token = (await readValues(c))._csrf ?? '';
    if (!token || !sameSecret(token, current.session.csrf)) {
      return plainPage(
        c,
        'Refused',
        refusal('The form is missing its security token or is from an older session. Reload the page and try again.'),
        403,
      );
    }
  }
  c.set('session', current.session);
  c.set('account', current.account);
  await next();
};
