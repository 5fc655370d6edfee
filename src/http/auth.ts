// Bearer authentication for the keyed APIs. A key in the query string is refused outright
// (the specification forbids it), before the header is even looked at.

import type { MiddlewareHandler } from 'hono';
import { unauthorized } from '../domain/errors.js';
import type { Scope } from '../domain/tenants.js';
import type { AppEnv } from './types.js';

const KEYISH_PARAMS = new Set(['api_key', 'apikey', 'key', 'token', 'access_token', 'auth', 'authorization']);

/** True when the URL's query carries something that looks like an API key. */
export function queryCarriesKey(url: URL): boolean {
  for (const [name, value] of url.searchParams) {
    if (KEYISH_PARAMS.has(name.toLowerCase()) || /_live_/.test(value)) return true;
  }
  return false;
}

export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

/** Resolves the caller from `Authorization: Bearer`, requiring `scope`; sets c.var.principal. */
export function requireKey(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (queryCarriesKey(new URL(c.req.url))) {
      throw unauthorized('API keys must never be sent in a query string; use the Authorization: Bearer header');
    }
    const header = c.req.header('authorization');
    const token = bearerToken(header);
    if (header && !token) throw unauthorized('malformed Authorization header: expected "Bearer <API_KEY>"');
    c.set('principal', c.var.core.tenants.authenticate(token, scope));
    await next();
  };
}
