// Which partition of a shared sandbox a recorded call belongs to (docs/design/tenant-partitions.md), decided
// from the request alone, before it runs, with a directory of keys, sessions, accounts and object ids:
// - `tenant`: the call may change that tenant's state and no other tenant's: API and keyed MCP calls by the
//   tenant's key, control calls naming the tenant (path, `tenantId` in the query or JSON body, an object of
//   the tenant in the path, the tenant's own key), dashboard calls of the tenant's session or account;
// - `global`: the call changes no tenant's state (no key or an unknown one, the anonymous MCP server, planted
//   bugs, a rule of no tenant, a refused call);
// - `create`: the call makes a new tenant (the operator's POST /tenants, a dashboard sign-up) and nothing else;
// - `all`: the call may change every tenant (reset, the sandbox clock, clearing every tenant's rules).
// The rule that lets a partition be rebuilt from its own steps alone is that these kinds are honest: a test
// runs drawn calls and fails when a call changes a tenant its route does not name (test/partition-route.test.ts).
// Requirements: none of the documents; decisions D-143.

import type { Core } from '../domain/core.js';
import { deliveryOfAttempt } from '../domain/webhooks/relay.js';
import { bearerToken } from '../web/auth.js';
import { readCookie } from '../sandbox/console/session.js';
import { COOKIE as DASHBOARD_COOKIE } from '../sandbox/dashboard/session.js';

export type Partition =
  { kind: 'tenant'; tenantId: string } | { kind: 'global' } | { kind: 'create' } | { kind: 'all' };

/** What a route names a tenant by, besides its id. */
export type ObjectKind = 'request' | 'delivery' | 'fault';

/** Where the router looks names up (the resident state today; tables of the database once tenants are loaded lazily). */
export interface Directory {
  tenantOfKey(apiKey: string): string | null;
  tenantOfSession(sessionId: string): string | null;
  tenantOfEmail(email: string): string | null;
  tenantOfObject(kind: ObjectKind, id: string): string | null;
  hasTenant(tenantId: string): boolean;
}

/** A call as the log records it. */
export interface RoutedCall {
  /** The app it runs on: `main`, `anon` (the anonymous MCP server) or `control` (the console's control calls). */
  app: string;
  method: string;
  url: string;
  header(name: string): string | undefined;
  body: Buffer | null;
}

const GLOBAL: Partition = { kind: 'global' };
const ALL: Partition = { kind: 'all' };
const CREATE: Partition = { kind: 'create' };

function pathAndQuery(url: string): { path: string; query: URLSearchParams } {
  const at = url.indexOf('/', url.indexOf('//') + 2);
  const q = url.indexOf('?', at);
  const path = at < 0 ? '/' : url.slice(at, q < 0 ? undefined : q);
  return { path, query: new URLSearchParams(q < 0 ? '' : url.slice(q + 1)) };
}

/** A decoded path segment, or null when it does not decode. */
function segment(s: string | undefined): string | null {
  if (s === undefined || s === '') return null;
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function jsonField(body: Buffer | null, field: string): unknown {
  if (!body?.length) return undefined;
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[field] : undefined;
  } catch {
    return undefined;
  }
}

function formField(body: Buffer | null, field: string): string | undefined {
  if (!body?.length) return undefined;
  return new URLSearchParams(body.toString('utf8')).get(field) ?? undefined;
}

const tenantOr = (tenantId: string | null, otherwise: Partition = GLOBAL): Partition =>
  tenantId ? { kind: 'tenant', tenantId } : otherwise;

/** A named tenant: its partition when it exists; a call naming no existing tenant is refused (global). */
const named = (dir: Directory, tenantId: unknown): Partition =>
  typeof tenantId === 'string' && dir.hasTenant(tenantId) ? { kind: 'tenant', tenantId } : GLOBAL;

/** The partition of a control call made with the admin token (a tenant's key reaches only its own tenant). */
function controlPartition(call: RoutedCall, rest: string[], query: URLSearchParams, dir: Directory): Partition {
  const [head, id, sub] = rest;
  const method = call.method;
  // a read of a list filtered to one tenant reads that tenant only
  if ((method === 'GET' || method === 'HEAD') && query.has('tenantId')) return named(dir, query.get('tenantId'));
  switch (head) {
    case 'tenants':
      if (id === undefined) return method === 'POST' ? CREATE : GLOBAL;
      return named(dir, segment(id));
    case 'reviews':
      return id === undefined || id === 'counts' ? GLOBAL : tenantOr(dir.tenantOfObject('request', segment(id) ?? ''));
    case 'webhooks':
      if (id === 'deliveries' && sub !== undefined) return tenantOr(dir.tenantOfObject('delivery', segment(sub) ?? ''));
      if (id === 'test') return named(dir, jsonField(call.body, 'tenantId'));
      if (id === 'listen' && sub !== undefined) {
        return tenantOr(dir.tenantOfObject('delivery', deliveryOfAttempt(segment(sub) ?? '')));
      }
      return GLOBAL;
    case 'faults':
      if (id !== undefined) return tenantOr(dir.tenantOfObject('fault', segment(id) ?? ''));
      if (method === 'POST') {
        const tenantId = jsonField(call.body, 'tenantId');
        return tenantId === undefined ? GLOBAL : named(dir, tenantId);
      }
      if (method === 'DELETE') return query.has('tenantId') ? named(dir, query.get('tenantId')) : ALL;
      return GLOBAL;
    case 'clock':
    case 'reset':
      return ALL;
    default:
      return GLOBAL;
  }
}

/** The partition a dashboard call belongs to: its session's tenant, or the account's named at sign-in. */
function dashboardPartition(call: RoutedCall, rest: string[], dir: Directory): Partition {
  if (call.method === 'POST' && rest[0] === 'signup') return CREATE;
  if (call.method === 'POST' && rest[0] === 'login') {
    const email = formField(call.body, 'email');
    return tenantOr(email === undefined ? null : dir.tenantOfEmail(email.trim().toLowerCase()));
  }
  const session = readCookie(call.header('cookie'), DASHBOARD_COOKIE);
  return tenantOr(session === undefined ? null : dir.tenantOfSession(session));
}

/** The partition of a recorded call (see the file's head). */
export function partitionOf(call: RoutedCall, dir: Directory): Partition {
  if (call.app === 'anon') return GLOBAL;
  const { path, query } = pathAndQuery(call.url);
  const parts = path.split('/').filter(Boolean);
  const token = bearerToken(call.header('authorization'));
  const keyTenant = token === undefined ? null : dir.tenantOfKey(token);
  if (parts[0] === 'api') return tenantOr(keyTenant);
  if (parts[0] === 'sandbox' && parts[1] === 'v1') {
    // a tenant's key reaches its own tenant only (D-133); anything else it names reads as absent
    if (keyTenant) return { kind: 'tenant', tenantId: keyTenant };
    return controlPartition(call, parts.slice(2), query, dir);
  }
  if (parts[0] === 'app') return dashboardPartition(call, parts.slice(1), dir);
  return GLOBAL;
}

/**
 * Whether a read needs every tenant in memory: an operator's read of the control API that names no tenant (the
 * review queue, deliveries, the request log, the tenant list across tenants, the clock's pending timers and
 * advances of every clock).
 */
export function readsEveryTenant(call: RoutedCall, partition: Partition): boolean {
  if ((partition.kind !== 'global' && partition.kind !== 'all') || call.app === 'anon') return false;
  const { path } = pathAndQuery(call.url);
  // the store's own report reads no tenant
  return path.startsWith('/sandbox/') && path !== '/sandbox/v1/store';
}

/**
 * Whether a step of `partition` may change what a tenant's call reads of the state of no tenant (D-172): the
 * sandbox clock, planted bugs, rules of no tenant, failed sign-ins per address. Every `create` and `all` call does,
 * and a `global` one unless it is of the anonymous MCP server or an API or keyed MCP call no key identifies: those
 * change only what no tenant's call reads (the ids, windows per address and request log of no tenant). A tenant's
 * call does only through a coupling: a dashboard sign-in (`signsIn`) or a rule of no tenant that fires
 * (`Faults.globalFires`), seen where it runs. test/partition-route.test.ts checks both against what calls change.
 */
export function changesWhatTenantsRead(call: RoutedCall, partition: Partition): boolean {
  switch (partition.kind) {
    case 'tenant':
      return false;
    case 'create':
    case 'all':
      return true;
    case 'global':
      if (call.app === 'anon') return false;
      return !(call.app === 'main' && pathAndQuery(call.url).path.startsWith('/api/'));
  }
}

/** A dashboard sign-in: its failures are counted per client address, which belongs to no tenant (D-137, D-172). */
export function signsIn(call: RoutedCall): boolean {
  if (call.app !== 'main' || call.method !== 'POST') return false;
  return pathAndQuery(call.url).path === '/app/login';
}

/** The directory of a core whose every tenant is resident (a shared sandbox today, D-112). */
export function residentDirectory(core: Core): Directory {
  return {
    tenantOfKey: (apiKey) => core.tenants.tenantIdOfKey(apiKey),
    tenantOfSession: (id) => core.store.accounts.session(id)?.account.tenantId ?? null,
    tenantOfEmail: (email) => core.store.accounts.tenantOfEmail(email),
    tenantOfObject: (kind, id) => {
      switch (kind) {
        case 'request':
          return core.screening.get(id)?.tenantId ?? null;
        case 'delivery':
          return core.webhooks.get(id)?.tenantId ?? null;
        case 'fault':
          return core.faults.listRules().find((r) => r.id === id)?.tenantId ?? null;
      }
    },
    hasTenant: (id) => core.tenants.list().some((t) => t.id === id),
  };
}
