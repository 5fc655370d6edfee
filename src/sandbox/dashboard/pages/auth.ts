// Sign-up, sign-in and sign-out. Each post is one call the sandbox records (a shared sandbox replays
// it on every instance), so the account and its session exist everywhere once the answer is sent.

import type { Context, Hono } from 'hono';
import { PASSWORD_MIN } from '../../../domain/accounts.js';
import { html } from '../../console/html.js';
import { clientIp } from '../../../web/clientIp.js';
import { blank, formMessage, input, readValues, refused, type FormState } from '../forms.js';
import { plainPage } from '../layout.js';
import { BASE, clearedCookie, currentSession, isSecure, safeNext, sessionCookie } from '../session.js';
import type { DashboardEnv } from '../types.js';
import { keysView } from './keys.js';

function signUpPage(c: Context, state: FormState, status = 200): Response {
  const body = html`<h1>Create your sandbox account</h1>
  <p class="lead">One account, one tenant on the free tier: its API keys, plan and webhook settings are yours to manage here.</p>
  ${formMessage(state)}
  <form method="post" action="${BASE}/signup" class="stack" novalidate>
    ${input(state, { name: 'email', label: 'E-mail', type: 'email', autocomplete: 'email', required: true })}
    ${input(state, { name: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', required: true, secret: true, hint: `At least ${PASSWORD_MIN} characters.` })}
    <button type="submit" class="primary">Create account</button>
  </form>
  <p class="muted">Have an account? <a href="${BASE}/login">Sign in</a></p>`;
  return plainPage(c, 'Sign up', body, status);
}

function signInPage(c: Context, state: FormState, next: string, status = 200): Response {
  const body = html`<h1>Sign in</h1>
  <p class="lead">Your sandbox account: keys, plan and billing, webhooks.</p>
  ${formMessage(state)}
  <form method="post" action="${BASE}/login" class="stack" novalidate>
    <input type="hidden" name="next" value="${next}">
    ${input(state, { name: 'email', label: 'E-mail', type: 'email', autocomplete: 'username', required: true })}
    ${input(state, { name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true, secret: true })}
    <button type="submit" class="primary">Sign in</button>
  </form>
  <p class="muted">New here? <a href="${BASE}/signup">Create an account</a></p>`;
  return plainPage(c, 'Sign in', body, status);
}

/** A 429 carries Retry-After, as every throttled answer of the sandbox does. */
function retryAfter(c: Context, err: unknown): void {
  const s = (err as { details?: { retryAfter?: number } }).details?.retryAfter;
  if (typeof s === 'number') c.header('Retry-After', String(s));
}

export function authPages(r: Hono<DashboardEnv>): void {
  r.get('/signup', (c) => (currentSession(c) ? c.redirect(BASE, 303) : signUpPage(c, blank())));

  r.post('/signup', async (c) => {
    const values = await readValues(c);
    try {
      const { session, account, apiKey } = c.var.core.store.accounts.signUp({
        email: values.email ?? '',
        password: values.password ?? '',
        address: clientIp(c),
      });
      c.header('set-cookie', sessionCookie(session.id, isSecure(c)));
      c.set('session', session);
      c.set('account', account);
      return keysView(c, { apiKey, welcome: true }, 201);
    } catch (err) {
      retryAfter(c, err);
      const { state, status } = refused(err, values, ['email']);
      return signUpPage(c, state, status);
    }
  });

  r.get('/login', (c) => {
    const next = safeNext(c.req.query('next'));
    return currentSession(c) ? c.redirect(next, 303) : signInPage(c, blank(), next);
  });

  r.post('/login', async (c) => {
    const values = await readValues(c);
    const next = safeNext(values.next);
    try {
      const { session } = c.var.core.store.accounts.signIn({
        email: values.email ?? '',
        password: values.password ?? '',
        address: clientIp(c),
      });
      c.header('set-cookie', sessionCookie(session.id, isSecure(c)));
      return c.redirect(next, 303);
    } catch (err) {
      retryAfter(c, err);
      const { state, status } = refused(err, values, ['email']);
      return signInPage(c, state, next, status);
    }
  });
}

export function logoutRoute(r: Hono<DashboardEnv>): void {
  r.post('/logout', (c) => {
    c.var.core.store.accounts.signOut(c.var.session.id);
    c.header('set-cookie', clearedCookie(isSecure(c)));
    return c.redirect(`${BASE}/login`, 303);
  });
}
