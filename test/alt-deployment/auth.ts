// Bearer-key authentication shared by the screening API, the jobs API and the keyed MCP server.
import type { IncomingMessage } from 'node:http';
import { bearer, fail } from './http.js';
import { KEY_PREFIX, type Scope, type Tenant, type TenantStore } from './tenants.js';

const KEYISH_PARAMS = new Set(['api_key', 'apikey', 'key', 'token', 'access_token', 'auth', 'authorization', 'bearer']);

/** Names the first query parameter that carries (or is named like) an API key, if any. */
export function keyInQuery(url: URL): string | undefined {
  for (const [name, value] of url.searchParams) {
    if (KEYISH_PARAMS.has(name.toLowerCase()) || value.includes('_live_')) return name;
  }
  return undefined;
}

/** The tenant owning the request's bearer key, or undefined when the key is missing or unknown. */
export function lookup(req: IncomingMessage, tenants: TenantStore): { tenant?: Tenant; presented: boolean } {
  const key = bearer(req);
  if (key === undefined) return { presented: false };
  if (!key.startsWith(KEY_PREFIX) && !tenants.byApiKey(key)) return { presented: true };
  return { tenant: tenants.byApiKey(key), presented: true };
}

export function requireTenant(req: IncomingMessage, tenants: TenantStore, scope: Scope): Tenant {
  const { tenant, presented } = lookup(req, tenants);
  if (!presented) throw fail(401, 'Authorization: a bearer API key is required');
  if (!tenant) throw fail(401, 'Authorization: the API key is not recognised');
  requireScope(tenant, scope);
  return tenant;
}

export function requireScope(tenant: Tenant, scope: Scope): void {
  if (!tenant.scopes.has(scope)) throw fail(403, `this key lacks the "${scope}" scope`);
}
