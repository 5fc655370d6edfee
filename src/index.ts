// The package's programmatic entry point (`import { startSandbox } from 'remote-jobs-sandbox'`): an
// integrator's test suite starts a sandbox in its own process, on its own free ports, with its own demo
// tenants and admin token, and stops it when done. A thin composition over main.ts (the same start-up the
// `remote-jobs-sandbox` command runs); the harness's entry point is `remote-jobs-sandbox/conformance`.

import { startSandbox as listen, type RunningSandbox } from './main.js';
import type { DemoTenant } from './domain/seed.js';
import type { PlanTier } from './domain/plans.js';

export type { DemoTenant, PlanTier };

export interface SandboxOptions {
  /** Main port (REST, keyed MCP, control API, console, docs); 0, the default, picks a free one. */
  port?: number;
  /** The anonymous MCP server's port; 0, the default, picks a free one. */
  anonMcpPort?: number;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Bearer token of the control API and the console (default: a fresh random `sat_…` token). */
  adminToken?: string;
  /** Seeds the corpus, ids and demo keys (default 20261122: the same demo keys as `remote-jobs-sandbox`). */
  seed?: number;
  /** Active jobs in the generated corpus (default 2000). */
  corpusSize?: number;
  /** Seed the demo tenants (default true). */
  demo?: boolean;
  /** Lift every rate limit (headers are still sent). */
  noRateLimits?: boolean;
  /** Validate every response against the contract; a mismatch becomes a 500 naming it. */
  selfCheck?: boolean;
  /** Base of the links the sandbox returns (default http://host:port). */
  publicUrl?: string;
  /** One log line per request on stdout. */
  log?: boolean;
  /** `memory` (the default) or a postgres:// URL: a shared sandbox on PostgreSQL. */
  store?: string;
}

export interface SandboxUrls {
  /** Base URL of every HTTP surface but the anonymous MCP server. */
  base: string;
  screening: string;
  jobs: string;
  /** The keyed MCP server (Streamable HTTP, bearer key). */
  mcp: string;
  /** The anonymous MCP server on its own port. */
  anonMcp: string;
  /** The control API (`Authorization: Bearer <adminToken>`). */
  control: string;
  openapi: string;
  docs: string;
  console: string;
}

export interface Sandbox {
  /** Base URL: what `--target` of the harness takes. */
  readonly baseUrl: string;
  /** The anonymous MCP server's endpoint: what `--anon-mcp` of the harness takes. */
  readonly anonMcpUrl: string;
  readonly adminToken: string;
  readonly urls: Readonly<SandboxUrls>;
  /** The demo tenants (API key, webhook secret, tier), empty when started with `demo: false`. */
  readonly demoTenants: readonly DemoTenant[];
  /** Stops both servers and closes the store; the process keeps no handle of the sandbox open. */
  stop(): Promise<void>;
}

/** Starts a sandbox in this process. Reads no environment variable: everything comes from `options`. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const { demo, ...rest } = options;
  const running: RunningSandbox = await listen(
    { host: '127.0.0.1', port: 0, anonMcpPort: 0, ...rest, ...(demo === undefined ? {} : { seedDemo: demo }) },
    {},
  );
  const base = running.baseUrl;
  const urls: SandboxUrls = Object.freeze({
    base,
    screening: `${base}/api/screening/v1`,
    jobs: `${base}/api/v1`,
    mcp: `${base}/api/mcp`,
    anonMcp: running.anonMcpUrl,
    control: `${base}/sandbox/v1`,
    openapi: `${base}/api/openapi.json`,
    docs: `${base}/docs`,
    console: `${base}/console`,
  });
  let stopped: Promise<void> | null = null;
  return {
    baseUrl: base,
    anonMcpUrl: running.anonMcpUrl,
    adminToken: running.adminToken,
    urls,
    // a reset re-seeds the demo tenants (same keys): read them afresh
    get demoTenants() {
      return running.core.demo?.tenants ?? [];
    },
    stop() {
      stopped ??= running.close();
      return stopped;
    },
  };
}
