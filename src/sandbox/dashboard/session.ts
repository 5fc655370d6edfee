// The dashboard's browser cookie: an opaque session id (the session itself is sandbox state, D-127),
// scoped to the dashboard's path, HttpOnly, SameSite=Lax so a link from elsewhere (a 402's upgradeUrl)
// arrives signed in, while every form post carries the session's CSRF token.

import type { Context } from 'hono';
import type { Account, DashboardSession } from '../../domain/accounts.js';
import { readCookie } from '../console/session.js';

export const COOKIE = 'rjs_app';
export const BASE = '/app';

export const isSecure = (c: Context) => new URL(c.req.url).protocol === 'https:';

export function sessionCookie(id: string, secure: boolean): string {
  return `${COOKIE}=${id}; Path=${BASE}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export function clearedCookie(secure: boolean): string {
  return `${COOKIE}=; Path=${BASE}; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** The signed-in account of this request, or null. */
export function currentSession(c: Context): { session: DashboardSession; account: Account } | null {
  return c.var.core.store.accounts.session(readCookie(c.req.header('cookie'), COOKIE));
}

/** Only dashboard paths (after resolving dot segments) are accepted as the place to return to after sign-in. */
export function safeNext(next: string | undefined): string {
  const fallback = BASE;
  if (!next || !next.startsWith('/') || next.includes('\\')) return fallback;
  const base = 'http://dashboard.invalid';
  let u: URL;
  try {
    u = new URL(next, base);
  } catch {
    return fallback;
  }
  return u.origin === base && /^\/app(\/|$)/.test(u.pathname) && !/^\/app\/(login|signup|logout)/.test(u.pathname)
    ? u.pathname + u.search
    : fallback;
}
