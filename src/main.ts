// Starts the sandbox: builds the core from one config, serves the main app and the anonymous MCP
// server, and returns handles so tests and the CLI can stop it.

import { serve, type ServerType } from '@hono/node-server';
import { createServer as createHttpServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolveConfig, type ConfigInput } from './config.js';
import { createCore, type Core } from './domain/core.js';
import { createAnonApp, createApp } from './app.js';
import { openMemoryStore } from './store/memory.js';
import { restFastPath, type FastPath } from './http/fastPath.js';
import { answerBadHeadsWithEnvelope, HEADER_MAX_BYTES } from './web/headLimit.js';

export interface RunningSandbox {
  core: Core;
  baseUrl: string;
  anonMcpUrl: string;
  adminToken: string;
  /** Calls the REST fast path answered so far (0 when it is off). */
  fastPathCalls(): number;
  close(): Promise<void>;
}

type Fetch = (req: Request, ...rest: any[]) => Response | Promise<Response>;

/** Serves `fetch`; calls `fast` takes first (when it answers true, the call is its own). */
function listen(fetch: Fetch, host: string, port: number, fast?: () => FastPath | undefined): Promise<ServerType> {
  const createServer = ((options: ServerOptions, listener: RequestListener) =>
    createHttpServer(options, fast ? (req, res) => void (fast()?.take(req, res) || listener(req, res)) : listener)) as typeof createHttpServer;
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname: host, port, serverOptions: { maxHeaderSize: HEADER_MAX_BYTES }, createServer }, () => resolve(server));
    server.once('error', reject);
    answerBadHeadsWithEnvelope(server as Server);
  });
}

export async function startSandbox(input: ConfigInput = {}, env: NodeJS.ProcessEnv = {}): Promise<RunningSandbox> {
  const pre = resolveConfig(input, env);
  const main = await listenApp(pre, input, env);
  return main;
}

async function listenApp(pre: ReturnType<typeof resolveConfig>, input: ConfigInput, env: NodeJS.ProcessEnv): Promise<RunningSandbox> {
  // Listen first (port 0 picks a free port), then fix the public URL to the real address.
  const holder: { app?: ReturnType<typeof createApp>; anon?: ReturnType<typeof createAnonApp>; fast?: FastPath } = {};
  const notReady = () => new Response('starting', { status: 503 });
  const server = await listen((req, ...rest) => (holder.app ? holder.app.fetch(req, ...rest) : notReady()), pre.host, pre.port, () => holder.fast);
  const anonServer = await listen((req, ...rest) => (holder.anon ? holder.anon.fetch(req, ...rest) : notReady()), pre.host, pre.anonMcpPort);
  const port = (server.address() as AddressInfo).port;
  const anonPort = (anonServer.address() as AddressInfo).port;
  const hostForUrl = pre.host.includes(':') ? `[${pre.host}]` : pre.host;
  const config = resolveConfig(
    { ...input, adminToken: pre.adminToken, port, anonMcpPort: anonPort, publicUrl: input.publicUrl ?? env.SANDBOX_PUBLIC_URL ?? `http://${hostForUrl}:${port}` },
    env,
  );
  const core = await createCore({ ...config, adminTokenGenerated: pre.adminTokenGenerated }, openMemoryStore);
  holder.app = createApp(core);
  if (config.fastPath) holder.fast = restFastPath(core);
  holder.anon = createAnonApp(core);
  const closeServer = (s: ServerType) =>
    new Promise<void>((resolve) => {
      (s as any).closeAllConnections?.();
      s.close(() => resolve());
    });
  return {
    core,
    baseUrl: config.publicUrl,
    anonMcpUrl: `http://${hostForUrl}:${anonPort}/mcp`,
    adminToken: config.adminToken,
    fastPathCalls: () => holder.fast?.taken ?? 0,
    async close() {
      await core.store.close();
      await Promise.all([closeServer(server), closeServer(anonServer)]);
    },
  };
}
