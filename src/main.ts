// Starts the sandbox: builds the core from one config, serves the main app and the anonymous MCP
// server, and returns handles so tests and the CLI can stop it.

import { serve, type ServerType } from '@hono/node-server';
import { createServer as createHttpServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bindConfig, resolveOptions, type ConfigInput } from './config.js';
import { createCore, type Core } from './domain/core.js';
import { exportTenant } from './domain/snapshot.js';
import { createAnonApp, createApp } from './app.js';
import { openMemoryStore } from './store/memory.js';
import { openShared, type ReplicaTiming, type SharedSandbox } from './replication/index.js';
import type { Replica } from './replication/replica.js';
import { shareApps } from './replication/calls.js';
import { restFastPath, type FastPath } from './http/fastPath.js';
import { answerBadHeadsWithEnvelope, HEADER_MAX_BYTES } from './web/headLimit.js';
import { fairShare, type FairShare, type Handle } from './web/fairShare.js';

export interface RunningSandbox {
  core: Core;
  baseUrl: string;
  /** Where this instance listens (the public URL may be a load balancer's in front of several). */
  listenUrl: string;
  anonMcpUrl: string;
  adminToken: string;
  /** Calls the REST fast path answered so far (0 when it is off). */
  fastPathCalls(): number;
  /** A shared sandbox's recorder (null in memory): its routing directory and partition counts, for tests and reports. */
  replica: Replica | null;
  close(): Promise<void>;
}

/** A Web fetch handler; what @hono/node-server passes after the request (its bindings) is handed on unread. */
type Fetch = (req: Request, env?: unknown) => Response | Promise<Response>;

/**
 * Serves `fetch`, each caller's calls taking turns (`turns`, D-165); calls `fast` takes first (when it answers true,
 * the call is its own).
 */
function listen(
  fetch: Fetch,
  host: string,
  port: number,
  turns: FairShare,
  fast?: () => FastPath | undefined,
): Promise<ServerType> {
  const createServer = ((options: ServerOptions, listener: RequestListener) => {
    const handle: Handle = fast ? (req, res) => void (fast()?.take(req, res) || listener(req, res)) : listener;
    return createHttpServer(options, (req, res) => turns.admit(req, res, handle));
  }) as typeof createHttpServer;
  return new Promise((resolve, reject) => {
    const server = serve(
      { fetch, hostname: host, port, serverOptions: { maxHeaderSize: HEADER_MAX_BYTES }, createServer },
      () => resolve(server),
    );
    server.once('error', reject);
    answerBadHeadsWithEnvelope(server as Server);
  });
}

/** How a shared instance reacts to its store (not a setting: a hook for tests and the CLI). */
export interface StoreHooks {
  /**
   * What a shared instance does when the log cannot be written, lacks steps it must apply or holds one another
   * version wrote (default: log and exit 70, so a restart replays).
   */
  onStoreFailure?: (err: Error) => void;
  /** The code version a shared instance writes and replays as (default: package.json's; tests simulate an upgrade). */
  codeVersion?: string;
  /** How soon a shared instance takes another's unanswered webhook attempt for lost (default D-138's; tests shorten it). */
  replicaTiming?: Partial<ReplicaTiming>;
  /**
   * Tests only: every part a snapshot copies from a stored state (D-152) is also exported and compared with what was
   * copied; a difference is a store failure.
   */
  verifyCarriedParts?: boolean;
  /** Tests only: runs once a shared instance chose the snapshot it starts from, before it reads it. */
  beforeStart?: () => Promise<void>;
  /** Tests only: runs once a shared instance read its snapshot (the step it is of), before it reads the log after it. */
  afterSnapshotRead?: (seq: number) => Promise<void>;
}

export async function startSandbox(
  input: ConfigInput & StoreHooks = {},
  env: NodeJS.ProcessEnv = {},
): Promise<RunningSandbox> {
  const options = resolveOptions(input, env);
  // Listen first (port 0 picks a free port), then bind the config to the real address.
  const holder: { app?: { fetch: Fetch }; anon?: { fetch: Fetch }; fast?: FastPath; stepFast?: FastPath } = {};
  const notReady = () => new Response('starting', { status: 503 });
  const turns = fairShare({ limit: options.callsPerCaller });
  const server = await listen(
    (req, env) => (holder.app ? holder.app.fetch(req, env) : notReady()),
    options.host,
    options.port,
    turns,
    () => holder.fast,
  );
  const anonServer = await listen(
    (req, env) => (holder.anon ? holder.anon.fetch(req, env) : notReady()),
    options.host,
    options.anonMcpPort,
    turns,
  );
  const port = (server.address() as AddressInfo).port;
  const anonPort = (anonServer.address() as AddressInfo).port;
  const hostForUrl = options.host.includes(':') ? `[${options.host}]` : options.host;
  let settings = bindConfig(options, port, anonPort);
  const closeServer = (s: ServerType) =>
    new Promise<void>((resolve) => {
      (s as { closeAllConnections?: () => void }).closeAllConnections?.();
      s.close(() => resolve());
    });
  let shared: SharedSandbox | null = null;
  let core: Core | null = null;
  try {
    if (options.store) {
      shared = await openShared(options.store, settings, {
        onFatal: input.onStoreFailure,
        codeVersion: input.codeVersion,
        replicaTiming: input.replicaTiming,
        verifyCarriedParts: input.verifyCarriedParts,
        afterSnapshotRead: input.afterSnapshotRead,
      });
      settings = { ...settings, adminToken: shared.adminToken };
    }
    core = await createCore(settings, shared?.openStore ?? openMemoryStore);
    const app = createApp(core);
    const anon = createAnonApp(core);
    if (shared) {
      // the fast path answers recorded submits too, on the step as Node's request (src/replication/steps.ts)
      const fast = settings.fastPath ? restFastPath(core) : undefined;
      const fetches = shareApps(
        shared.replica,
        core,
        { fetch: (req, env) => app.fetch(req, env), fast: fast && ((req, res) => fast.take(req, res)) },
        anon,
      );
      holder.stepFast = fast;
      const sharedSandbox = shared;
      const scratchSettings = settings;
      // a scratch core of the same settings, on a recorder that records nothing: a tenant is rebuilt in it from the
      // log (src/replication/loader.ts)
      shared.replica.scratchWith(async () => {
        const made = sharedSandbox.scratch();
        const sc = await createCore(scratchSettings, made.openStore);
        const scApp = createApp(sc);
        const scFast = scratchSettings.fastPath ? restFastPath(sc) : undefined;
        shareApps(
          made.replica,
          sc,
          { fetch: (req, env) => scApp.fetch(req, env), fast: scFast && ((req, res) => scFast.take(req, res)) },
          createAnonApp(sc),
        );
        return {
          replica: made.replica,
          exportTenant: (tenantId) => exportTenant(sc, tenantId),
          dispose: async () => {
            sc.clock.clear();
            await sc.store.close();
          },
        };
      });
      await input.beforeStart?.();
      await shared.replica.start();
      holder.app = { fetch: fetches.main };
      holder.anon = { fetch: fetches.anon };
    } else {
      holder.app = app;
      holder.anon = anon;
      // a shared sandbox records every API call as a step of its log (D-112): the fast path is for one process
      if (settings.fastPath) holder.fast = restFastPath(core);
    }
  } catch (err) {
    // a store that refused to open (other settings, another version) leaves nothing listening
    await core?.store.close().catch(() => {});
    await Promise.all([closeServer(server), closeServer(anonServer)]);
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    core,
    baseUrl: settings.publicUrl,
    listenUrl: `http://${hostForUrl}:${port}`,
    anonMcpUrl: `http://${hostForUrl}:${anonPort}/mcp`,
    adminToken: settings.adminToken,
    fastPathCalls: () => (holder.fast ?? holder.stepFast)?.taken ?? 0,
    replica: shared?.replica ?? null,
    // once, however often it is called (a test or an embedding process may stop it twice)
    close() {
      closing ??= (async () => {
        await core.store.close();
        await Promise.all([closeServer(server), closeServer(anonServer)]);
      })();
      return closing;
    },
  };
}
