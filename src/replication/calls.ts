// The calls of a shared sandbox's replicated log (D-112): which calls are recorded steps and which
// are reads, for the main app, the anonymous MCP app and the console's control calls. A recorded
// call runs when the log's lock is held and is answered once it is committed; a read runs after the
// steps committed before it arrived are applied here. Console pages run as they are: each of their
// control calls goes through here on its own. A webhook listener's stream never ends, so it is served
// after the log is applied, outside the read queue (its connect and disconnect are steps, listeners.ts).

import type { Core } from '../domain/core.js';
import {
  beginImport,
  exportState,
  exportTenants,
  finishImport,
  forgetTenants,
  importState,
  importTenant,
  importTenantPart,
  prepareTenant,
  SNAPSHOT_FORMAT,
  tenantBusy,
  type ImportRun,
  type Snapshot,
} from '../domain/snapshot.js';
import { controlApp, routeControlCalls } from '../sandbox/console/control.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { DomainError, invalid } from '../errors/errors.js';
import { shareConsoleSignOuts } from './consoleSessions.js';
import { shareListeners } from './listeners.js';
import type { ListenerHub, PendingRelayState } from '../sandbox/control/listen.js';
import type { Oversize, Replica } from './replica.js';
import { settled, type NodeHandler } from './steps.js';
import type { RoutedCall } from './route.js';
import { readNode, readWeb } from '../web/bodyStream.js';
import { bearerToken } from '../web/auth.js';
import { envelopeOf } from '../web/envelope.js';
import type { DirectorySource, Entry } from './directory.js';

/** What the directory of a shared sandbox is kept from (directory.ts): the tenants of the state in memory. */
function directorySource(core: Core): DirectorySource {
  const exists = (tenantId: string) => {
    try {
      core.tenants.get(tenantId);
      return true;
    } catch {
      return false;
    }
  };
  const shallow = (tenantId: string): Entry[] => [
    ['tenant', tenantId],
    ...core.tenants.keysOf(tenantId).map((k): Entry => ['key', k.hash]),
  ];
  return {
    entriesOf(tenantId, deep) {
      if (!exists(tenantId)) return [];
      const out = shallow(tenantId);
      if (deep) for (const n of core.store.accounts.namesOf(tenantId)) out.push([n.kind, n.name]);
      return out;
    },
    allEntries() {
      const all = new Map<string, Entry[]>();
      for (const t of core.tenants.ordered()) all.set(t.id, shallow(t.id));
      for (const n of core.store.accounts.namesOf()) all.get(n.tenantId)?.push([n.kind, n.name]);
      return all;
    },
    tenants: () => core.tenants.ordered(),
  };
}

/** Bytes of a body kept for the log: more than any route accepts, so a refused body is refused on replay too. */
const RECORDED_BODY_CAP = 1024 * 1024;

type Fetch = (req: Request, env?: unknown) => Response | Promise<Response>;

interface Incoming {
  socket?: { remoteAddress?: string };
  rawHeaders?: string[];
  on?: unknown;
}

/**
 * The body a recorded call carries, read by the kernel's readers (Node's stream when served by node:http, so a
 * body past the cap is refused with the kernel's lingering close). Past the cap only its size is recorded.
 */
async function bodyOf(req: Request, incoming: Incoming | undefined): Promise<Buffer | Oversize | null> {
  if (req.method === 'GET' || req.method === 'HEAD') return null;
  try {
    const bytes =
      incoming && typeof incoming.on === 'function'
        ? await readNode(incoming as IncomingMessage, RECORDED_BODY_CAP)
        : req.body
          ? await readWeb(req.body, RECORDED_BODY_CAP)
          : new Uint8Array(0);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (err) {
    if (err instanceof DomainError && err.details.status === 413) return { oversize: RECORDED_BODY_CAP + 1 };
    // the client went away mid-body: nothing was done, so nothing is recorded
    throw err instanceof DomainError
      ? err
      : invalid(`the request body could not be read: ${(err as Error).message}`, 'body');
  }
}

/** The envelope for a call refused before it became a step (its body could not be read). */
function refused(err: unknown): Response {
  const e = err as DomainError;
  return Response.json(envelopeOf(e), { status: e.status });
}

const pathOf = (url: string) => {
  const at = url.indexOf('/', url.indexOf('//') + 2);
  const q = url.indexOf('?', at);
  return at < 0 ? '/' : url.slice(at, q < 0 ? undefined : q);
};

const isConsole = (path: string) => path === '/console' || path.startsWith('/console/');
const LISTENER_STREAM = '/sandbox/v1/webhooks/listen';
/**
 * The store's report (D-190): served outside the read queue, it takes a turn of its own for this instance's part and
 * reads the database's sizes after it.
 */
const isStoreReport = (method: string, path: string) =>
  path === '/sandbox/v1/store' && (method === 'GET' || method === 'HEAD');

/** Calls that change state: every API and MCP call (rate windows, request log, chaos counts), and any write. */
export function isRecorded(method: string, path: string, apiPrefix: string): boolean {
  if (path.startsWith(apiPrefix)) return method !== 'OPTIONS';
  return method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
}

/** A call read (not recorded), as the router sees it: which tenant it reads. */
const readRoute = (app: string, req: Request): RoutedCall => ({
  app,
  method: req.method,
  url: req.url,
  header: (name) => req.headers.get(name) ?? undefined,
  body: null,
});

/**
 * The answer to a call the replica could not take: its store failed on this instance (the log could not be
 * written, lacks steps it must apply or holds another version's, and the instance stopped; or a tenant could
 * not be read). The app's own errors never reach here: they are answered inside it.
 */
function storeFailed(err: unknown): Response {
  const e = new DomainError(
    'service_disabled',
    `this instance of the shared sandbox could not serve the call: ${(err as Error)?.message ?? String(err)}`,
  );
  return Response.json(envelopeOf(e), { status: e.status });
}

function gated(replica: Replica, name: string, app: Fetch, apiPrefix: string, fast?: NodeHandler): Fetch {
  replica.mount(name, app, fast);
  const serve = gatedCall(replica, name, app, apiPrefix);
  return (req, env) => serve(req, env).catch(storeFailed);
}

function gatedCall(
  replica: Replica,
  name: string,
  app: Fetch,
  apiPrefix: string,
): (req: Request, env: unknown) => Promise<Response> {
  return async (req, env) => {
    const path = pathOf(req.url);
    if (isConsole(path)) return app(req, env);
    if (path === LISTENER_STREAM && req.method === 'GET') {
      // its tenant in memory first (a tenant's key is known only there), as for any read of it
      await replica.read(() => Promise.resolve(undefined), readRoute(name, req));
      return app(req, env);
    }
    if (isStoreReport(req.method, path)) return app(req, env);
    if (!isRecorded(req.method, path, apiPrefix))
      return replica.read(async () => settled(await app(req, env)), readRoute(name, req));
    const incoming = (env as { incoming?: Incoming } | undefined)?.incoming;
    const body = await bodyOf(req, incoming).catch((err: unknown) => err as Error);
    if (body instanceof Error) return refused(body);
    return replica.call(name, req, body, incoming?.rawHeaders ?? null, incoming?.socket?.remoteAddress ?? 'unknown');
  };
}

/** A shared sandbox's snapshot: the domain's state and the webhook listeners connected to any instance. */
type SharedSnapshot = Snapshot & {
  listeners: ReturnType<ListenerHub['presence']>;
  /** The attempts awaiting a listener's answer (D-140); absent in snapshot format 1. */
  relayed?: PendingRelayState[];
};

/**
 * Puts the replica in front of both apps and of the console's control calls; returns the fetch functions to
 * serve. `main.fast`, when given, answers the recorded calls it takes itself (the REST fast path, D-131): it
 * runs on the step as Node's request, live and on every replay alike.
 */
export function shareApps(
  replica: Replica,
  core: Core,
  main: { fetch: Fetch; fast?: NodeHandler },
  anon: { fetch: Fetch },
): { main: Fetch; anon: Fetch } {
  const listeners = shareListeners(replica, core);
  shareConsoleSignOuts(replica.db, core);
  // snapshots are of the domain's state (D-137) and of who is listening, with the attempts awaiting a
  // listener's answer as data (D-140): put back before the domain's import, which awaits their answers again.
  // Stored by part (D-146): the global part holds all but the tenants' slices, each tenant's slice is a part.
  const restoreGlobal = (s: Omit<SharedSnapshot, 'tenants'>) => {
    // listeners first: putting an attempt back does not hand it to them again (its `waiting` is data)
    listeners.restore(s.listeners);
    listeners.restorePending(s.relayed ?? []);
  };
  let run: ImportRun | null = null;
  replica.holdState({
    format: SNAPSHOT_FORMAT,
    exportParts: (carried) => {
      // ledger rows as lists made when read: the snapshot's JSON reads them later, in slices (D-151); the tenants
      // unchanged since their stored state are not exported at all (D-152)
      const { tenants, ...global } = exportState(core, { lazy: true, skip: carried });
      const shared: Omit<SharedSnapshot, 'tenants'> = {
        ...global,
        listeners: listeners.presence(),
        relayed: listeners.pendingState(),
      };
      return {
        global: shared,
        tenants: core.tenants.ordered().map((t): [string, unknown] => [t.id, tenants[t.id] ?? null]),
      };
    },
    importState: (state) => {
      const s = state as SharedSnapshot;
      restoreGlobal(s);
      importState(core, s);
    },
    beginImport: (global) => {
      const s = global as Omit<SharedSnapshot, 'tenants'>;
      restoreGlobal(s);
      run = beginImport(core, s);
    },
    importTenant: (tenantId, data) => {
      if (!run) throw new Error("a tenant's part came before the snapshot's global part");
      importTenantPart(core, run, tenantId, data);
    },
    finishImport: () => {
      if (run) finishImport(core, run);
      run = null;
    },
  });
  replica.holdDirectory(directorySource(core));
  const adminDigest = createHash('sha256').update(core.config.adminToken).digest();
  replica.recognizeOperator((call) => {
    const token = bearerToken(call.header('authorization'));
    return token !== undefined && timingSafeEqual(createHash('sha256').update(token).digest(), adminDigest);
  });
  replica.holdTenants({
    residentIds: () => core.tenants.ordered().map((t) => t.id),
    isResident: (tenantId) => core.tenants.has(tenantId),
    busy: (tenantId) => tenantBusy(core, tenantId),
    nextDue: (tenantId) => core.clock.nextDueOf(tenantId),
    sandboxOffset: () => core.clock.sandboxOffsetMs(),
    // lazy: a tenant dropped from memory is written as a snapshot's part is, its JSON made in slices (D-159)
    exportTenants: (tenantIds) => exportTenants(core, tenantIds, true),
    prepareTenant: (tenantId, data) => prepareTenant(core, tenantId, data),
    importTenant: (tenantId, data) => importTenant(core, tenantId, data),
    forgetTenants: (tenantIds) => forgetTenants(core, tenantIds),
  });
  replica.holdCouplings({
    firesOfNoTenant: () => core.faults.globalFires,
    rulesOfNoTenant: () => core.faults.ofNoTenant,
  });
  const control = controlApp(core);
  replica.mount('control', (req, env) => control.fetch(req, env));
  routeControlCalls(core, async (app, req) => {
    if (isStoreReport(req.method, pathOf(req.url))) return settled(await app.fetch(req));
    if (req.method === 'GET' || req.method === 'HEAD')
      return replica.read(async () => settled(await app.fetch(req)), readRoute('control', req));
    const body = await bodyOf(req, undefined).catch((err: unknown) => err as Error);
    return body instanceof Error ? refused(body) : replica.call('control', req, body, null, 'console');
  });
  return {
    main: gated(replica, 'main', (req, env) => main.fetch(req, env), '/api/', main.fast),
    anon: gated(replica, 'anon', (req, env) => anon.fetch(req, env), '/mcp'),
  };
}
