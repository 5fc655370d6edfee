// Bearer authentication for the keyed APIs. A key in the query string is refused outright
// (the specification forbids it), before the header is even looked at.

import type { Context, MiddlewareHandler } from 'hono';
import { unauthorized } from '../errors/errors.js';
import type { Principal, Scope } from '../domain/tenants.js';
import type { AppEnv } from './env.js';
import { headerOf } from './headers.js';

const KEYISH_PARAMS = new Set(['api_key', 'apikey', 'key', 'token', 'access_token', 'auth', 'authorization']);
const LIVE = /_live_/;

/** True when the URL's query (or the query itself) carries something that looks like an API key. */
export function queryCarriesKey(url: URL | URLSearchParams): boolean {
  for (const [name, value] of url instanceof URL ? url.searchParams : url) {
    if (KEYISH_PARAMS.has(name.toLowerCase()) || LIVE.test(value)) return true;
  }
  return false;
}

/**
 * The query parameters of a request URL, as `new URL(url).searchParams` gives them, without parsing
 * the rest of the URL (request URLs are already serialized, so the first '?' starts the query).
 */
export function searchParamsOf(url: string): URLSearchParams {
  const q = url.indexOf('?');
  if (q < 0) return new URLSearchParams();
  const hash = url.indexOf('#', q);
  return new URLSearchParams(hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash));
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

/** Resolves the caller from `Authorization: Bearer`, requiring `scope` (401/403 as DomainErrors). */
export function authenticate(c: Context<AppEnv>, scope: Scope): Principal {
  const url = c.req.url;
  if (url.includes('?') && queryCarriesKey(searchParamsOf(url))) {
    throw unauthorized('API keys must never be sent in a query string; use the Authorization: Bearer header');
  }
  const header = headerOf(c, 'authorization');
  const token = bearerToken(header);
  if (header && !token) throw unauthorized('malformed Authorization header: expected "Bearer <API_KEY>"');
  return c.get('core').tenants.authenticate(token, scope);
}

/** Resolves the caller from `Authorization: Bearer`, requiring `scope`; sets c.var.principal. */
export function requireKey(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('principal', authenticate(c, scope));
    await next();
  };
}
