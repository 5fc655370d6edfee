// Bearer authentication for the keyed APIs. A key in the query string is refused outright
// (the specification forbids it), before the header is even looked at.

import type { Context, MiddlewareHandler } from 'hono';
import { unauthorized } from '../errors/errors.js';
import type { Principal, Scope, TenantService } from '../domain/tenants.js';
import type { AppEnv } from './env.js';
import { headerOf } from './headers.js';

const KEYISH_PARAMS = new Set([
  'api_key',
  'apikey',
  'api-key',
  'key',
  'token',
  'access_token',
  'auth',
  'authorization',
  'bearer',
]);
/** A value that is a key: a prefix ending in `_live_` (jobs §5) and a long token, maybe after "Bearer ". */
const KEY_VALUE = /^(bearer\s+)?[a-z0-9]+_live_[a-z0-9]{16,}$/i;

/**
 * The query parameter that carries an API key (D-08): one named like a credential, or one whose value
 * is a key. Other values merely containing `_live_` (q=feature_live_toggle) are not keys. Null if none.
 */
export function keyParamIn(url: URL | URLSearchParams): string | null {
  for (const [name, value] of url instanceof URL ? url.searchParams : url) {
    if (KEYISH_PARAMS.has(name.toLowerCase()) || KEY_VALUE.test(value.trim())) return name;
  }
  return null;
}

export const keyInQuery = (param: string) =>
  unauthorized(
    `query parameter '${param}' carries an API key; keys must never be sent in a query string: use the Authorization: Bearer header`,
  );

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
export function authenticate(c: Context<AppEnv>, scope?: Scope): Principal {
  return authenticateCall(c.get('core').tenants, c.req.url, headerOf(c, 'authorization'), scope);
}

/** The same, from a request's URL (or its path and query) and its Authorization header. */
export function authenticateCall(
  tenants: TenantService,
  url: string,
  header: string | undefined,
  scope?: Scope,
): Principal {
  const param = url.includes('?') ? keyParamIn(searchParamsOf(url)) : null;
  if (param !== null) throw keyInQuery(param);
  const token = bearerToken(header);
  if (header && !token) throw unauthorized('malformed Authorization header: expected "Bearer <API_KEY>"');
  return tenants.authenticate(token, scope);
}

/** Resolves the caller from `Authorization: Bearer`, requiring `scope`; sets c.var.principal. */
export function requireKey(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set('principal', authenticate(c, scope));
    await next();
  };
}
