// Who is calling a /sandbox/v1 route, and whether that caller may (D-119, D-133): the operator (the admin
// token) reaches every route and every tenant; a tenant's own API key (a bearer header only, never in the
// query string, D-08) reaches the routes whose audience includes tenants, and only its own tenant there:
// any other tenant's id reads as absent (404). Each route's audience is declared in ONE place, the
// `security` of its operation in contracts/control.openapi.yaml: `adminToken` alone is an operator route
// (a tenant's key gets 403); `tenantKey: [<scope>?]` beside it opens the route to a tenant's key, needing
// that key scope when one is named. A route the description does not list is the operator's.

import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Context, MiddlewareHandler } from 'hono';
import { parse } from 'yaml';
import { forbidden, notFound, unauthorized } from '../../errors/errors.js';
import { SCOPES, type Scope } from '../../domain/tenants.js';
import { authenticate, bearerToken } from '../../web/auth.js';
import type { AppEnv } from '../../web/env.js';

export type Caller = { admin: true } | { admin: false; tenantId: string };

/** Who may call a route: the operator only, or a tenant's key too (with `scope` when one is named). */
export type Audience = { tenant: false } | { tenant: true; scope: Scope | undefined };

interface RouteAudience {
  method: string;
  path: string;
  pattern: RegExp;
  audience: Audience;
}

type SecurityRequirement = Record<string, string[]>;
type Operation = { security?: SecurityRequirement[] };

const CONTROL_DOC = new URL('../../../contracts/control.openapi.yaml', import.meta.url);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** The audience of an operation from its `security` (D-133). */
export function audienceOfSecurity(security: SecurityRequirement[] | undefined): Audience {
  const tenant = security?.find((s) => 'tenantKey' in s);
  if (!tenant) return { tenant: false };
  const scopes = tenant.tenantKey;
  if (scopes.length > 1 || scopes.some((s) => !(SCOPES as readonly string[]).includes(s))) {
    throw new Error(
      `control.openapi.yaml: tenantKey names at most one key scope of ${SCOPES.join(', ')}; got ${scopes.join(', ')}`,
    );
  }
  return { tenant: true, scope: scopes[0] as Scope | undefined };
}

let table: RouteAudience[] | undefined;

/** Every documented control route with its audience, read once from the control API's description. */
export function routeAudiences(): readonly RouteAudience[] {
  table ??= Object.entries(
    parse(readFileSync(CONTROL_DOC, 'utf8')).paths as Record<string, Record<string, Operation>>,
  ).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({
      method: m.toUpperCase(),
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`),
      audience: audienceOfSecurity(item[m].security),
    })),
  );
  return table;
}

/** The audience of a request (HEAD as GET); an undocumented route is the operator's. */
export function audienceOf(method: string, path: string): Audience {
  const m = method === 'HEAD' ? 'GET' : method;
  return routeAudiences().find((r) => r.method === m && r.pattern.test(path))?.audience ?? { tenant: false };
}

export function isAdminToken(c: Context<AppEnv>): boolean {
  const token = bearerToken(c.req.header('authorization'));
  const expected = Buffer.from(c.var.core.config.adminToken);
  const given = Buffer.from(token ?? '');
  return !!token && given.length === expected.length && timingSafeEqual(given, expected);
}

const callers = new WeakMap<Request, Caller>();

/**
 * The control API's gate: the admin token passes everywhere; a tenant's key passes on a tenant route
 * (401 unknown key or a key in the query string, 403 disabled tenant or missing scope, as on the APIs)
 * and is refused with 403 on an operator route; anything else is 401.
 */
export const resolveCaller: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (isAdminToken(c)) {
    callers.set(c.req.raw, { admin: true });
    return next();
  }
  const audience = audienceOf(c.req.method, c.req.path);
  if (!audience.tenant) {
    // a tenant's valid key on an operator route is known but not allowed here; anything else is unauthenticated
    let principal;
    try {
      principal = authenticate(c);
    } catch {
      throw unauthorized(
        'the control API needs Authorization: Bearer <SANDBOX_ADMIN_TOKEN> (a tenant key reaches only its own tenant routes)',
      );
    }
    throw forbidden(
      `this control route is the operator's: it needs the admin token; tenant ${principal.tenant.id}'s key reaches only its own tenant's routes (D-133)`,
    );
  }
  callers.set(c.req.raw, { admin: false, tenantId: authenticate(c, audience.scope).tenant.id });
  return next();
};

/** The caller resolveCaller let through (the admin when called outside it, which the gate never allows). */
export function callerOf(c: Context<AppEnv>): Caller {
  const caller = callers.get(c.req.raw);
  if (!caller) throw unauthorized('the control API needs Authorization: Bearer <SANDBOX_ADMIN_TOKEN>');
  return caller;
}

/** The caller's own tenant, or undefined for the operator (who sees every tenant). */
export function ownTenant(c: Context<AppEnv>): string | undefined {
  const caller = callerOf(c);
  return caller.admin ? undefined : caller.tenantId;
}

/**
 * The tenant a call is about: `requested` (the admin may name any; with `mustExist`, an unknown one is
 * 404) or, for a tenant's key, its own tenant; another tenant's id answers 404 as if absent.
 */
export function tenantFor(c: Context<AppEnv>, requested: string | undefined, mustExist = true): string | undefined {
  const caller = callerOf(c);
  if (caller.admin) {
    if (requested !== undefined && mustExist) c.var.core.tenants.get(requested); // 404 when there is no such tenant
    return requested;
  }
  if (requested !== undefined && requested !== caller.tenantId) throw notFound(`tenant ${requested} does not exist`);
  return caller.tenantId;
}

/** Throws `absent` when the caller is a tenant and `owner` is not its tenant (another tenant's object reads as absent). */
export function ensureVisible(c: Context<AppEnv>, owner: string | undefined, absent: () => Error): void {
  const own = ownTenant(c);
  if (own !== undefined && owner !== own) throw absent();
}
