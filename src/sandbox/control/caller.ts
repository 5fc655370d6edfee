// Who is calling a /sandbox/v1 route that a tenant's own key may reach (D-119): the operator (the admin
// token) or one tenant (an API key with the `screening` scope, sent as a bearer header; never in the
// query string, D-08). A tenant is confined to its own tenant: any other tenant's id reads as absent.

import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { notFound } from '../../errors/errors.js';
import { authenticate, bearerToken } from '../../web/auth.js';
import type { AppEnv } from '../../web/env.js';

export type Caller = { admin: true } | { admin: false; tenantId: string };

export function isAdminToken(c: Context<AppEnv>): boolean {
  const token = bearerToken(c.req.header('authorization'));
  const expected = Buffer.from(c.var.core.config.adminToken);
  const given = Buffer.from(token ?? '');
  return !!token && given.length === expected.length && timingSafeEqual(given, expected);
}

/** The admin token, or a tenant's key (401 unknown, 403 disabled tenant or missing scope, as on the APIs). */
export function callerOf(c: Context<AppEnv>): Caller {
  if (isAdminToken(c)) return { admin: true };
  return { admin: false, tenantId: authenticate(c, 'screening').tenant.id };
}

/**
 * The tenant a call is about: `requested` (the admin must name one; 400 when required and missing is the
 * route's to say) or, for a tenant's key, its own tenant; another tenant's id answers 404 as if absent.
 */
export function tenantFor(c: Context<AppEnv>, caller: Caller, requested: string | undefined): string | undefined {
  if (caller.admin) {
    if (requested !== undefined) c.var.core.tenants.get(requested); // 404 when there is no such tenant
    return requested;
  }
  if (requested !== undefined && requested !== caller.tenantId) throw notFound(`no tenant ${requested}`);
  return caller.tenantId;
}
