// Starts the sandbox CLI in a child process on free loopback ports and gives back its URLs and an
// admin client. The load generator stays in the parent so the two never share an event loop.

import { fileURLToPath } from 'node:url';
import { ChildGroup, freePort, waitFor, type Child } from './children.js';
import { clientFor, expectStatus, type Client } from './http.js';
import { submission } from './submission.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TSX = `${ROOT}node_modules/.bin/tsx`;
const ADMIN_TOKEN = 'sat_bench_admin_token';

export interface SandboxChild {
  child: Child;
  baseUrl: string;
  anonMcpUrl: string;
  adminToken: string;
  admin: Client;
}

export interface SandboxSpawnOptions {
  noRateLimits?: boolean;
  args?: string[];
  env?: Record<string, string>;
  name?: string;
  /** Options of node itself, before the script (a profile: `--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeArgs?: string[];
}

/** Spawns the sandbox CLI on free ports without waiting for it (the caller decides what "ready" is). */
export async function spawnSandboxChild(
  group: ChildGroup,
  { noRateLimits = true, args = [], env = {}, name = 'sandbox', nodeArgs = [] }: SandboxSpawnOptions = {},
): Promise<SandboxChild> {
  const port = await freePort();
  const anonPort = await freePort();
  const cliArgs = [
    'src/cli.ts',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--anon-port',
    String(anonPort),
    ...(noRateLimits ? ['--no-rate-limits'] : []),
    ...args,
  ];
  // node itself leads the process group, with tsx as a loader: a stop waits for the sandbox's own exit (a clean
  // stop writes a shared sandbox's snapshot), where tsx's wrapper process could exit first and have it killed
  const child = group.spawn(name, process.execPath, [...nodeArgs, '--import', 'tsx', ...cliArgs], {
    cwd: ROOT,
    env: {
      ...process.env,
      SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN,
      SANDBOX_LOG: '0',
      SANDBOX_SELF_CHECK: '0',
      SANDBOX_DATABASE_URL: '',
      ...env,
    },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const admin = clientFor(baseUrl, ADMIN_TOKEN);
  return { child, baseUrl, anonMcpUrl: `http://127.0.0.1:${anonPort}/mcp`, adminToken: ADMIN_TOKEN, admin };
}

export async function startSandboxChild(group: ChildGroup, options: SandboxSpawnOptions = {}): Promise<SandboxChild> {
  const sb = await spawnSandboxChild(group, options);
  await waitFor(
    'the sandbox to answer',
    async () => ((await sb.admin('GET', '/sandbox/v1/clock', undefined, 2000)).status === 200 ? true : undefined),
    {
      timeoutMs: 90_000,
      intervalMs: 200,
      child: sb.child,
    },
  );
  return sb;
}

export interface BenchTenant {
  tenantId: string;
  apiKey: string;
  webhookSecret: string;
}

/** A tenant with every scope and a large screening balance, so submits never meet 402. */
export async function createBenchTenant(
  sb: SandboxChild,
  {
    planTier = 'scale',
    name = 'bench',
    webhookUrl,
    webhookSecret,
    credits = 1_000_000,
  }: { planTier?: string; name?: string; webhookUrl?: string; webhookSecret?: string; credits?: number } = {},
): Promise<BenchTenant> {
  const created = expectStatus(
    await sb.admin('POST', '/sandbox/v1/tenants', {
      planTier,
      name,
      ...(webhookUrl ? { webhookUrl } : {}),
      ...(webhookSecret ? { webhookSecret } : {}),
    }),
    201,
    'create tenant',
  ).json;
  expectStatus(
    await sb.admin('PATCH', `/sandbox/v1/tenants/${created.tenantId}`, {
      screeningCredits: credits,
      applyCredits: credits,
    }),
    200,
    'top up tenant credits',
  );
  return { tenantId: created.tenantId, apiKey: created.apiKey, webhookSecret: created.webhookSecret };
}

let seq = 0;
/** A valid SubmitRequest body with a fresh idempotency key. */
export function submitBody(prefix = 'bench'): string {
  seq++;
  return JSON.stringify(submission(`${prefix}-${process.pid}-${seq}`, seq));
}
