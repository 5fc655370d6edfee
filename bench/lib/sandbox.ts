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
  sb: Pick<SandboxChild, 'admin'>,
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

/**
 * What an instance's store report says of the tenants it holds (D-150, D-172, D-175): how many are in memory, loaded
 * and dropped since it started, moved here and still applying their skipped steps, and the steps it skipped and
 * applied later (zeros: an in-memory store, which holds every tenant).
 */
export interface ResidencyCounts {
  resident: number;
  loaded: number;
  evicted: number;
  replaying: number;
  skipped: number;
  replayed: number;
  /** Tenants whose steps this instance skipped and has not applied yet (D-172). */
  behind: number;
}

/** Reads the residency counters of an instance's store report (`GET /sandbox/v1/store`, a read of no tenant). */
export async function residencyOf(sb: Pick<SandboxChild, 'admin'>): Promise<ResidencyCounts> {
  const report = expectStatus(await sb.admin('GET', '/sandbox/v1/store', undefined, 300_000), 200, 'store report')
    .json as { instance?: { residency?: Partial<ResidencyCounts> } };
  const r = report.instance?.residency ?? {};
  return {
    resident: r.resident ?? 0,
    loaded: r.loaded ?? 0,
    evicted: r.evicted ?? 0,
    replaying: r.replaying ?? 0,
    skipped: r.skipped ?? 0,
    replayed: r.replayed ?? 0,
    behind: r.behind ?? 0,
  };
}

/**
 * Waits until the instance writes no snapshot and has none due for `quietMs` (its store report, a read of no tenant),
 * at most `maxMs`: what the parts before left it to write is written before a part that compares two phases. Answers
 * how long it waited, and whether it went quiet.
 */
export async function snapshotsQuiet(
  sb: Pick<SandboxChild, 'admin'>,
  { quietMs = 2_000, maxMs = 120_000 }: { quietMs?: number; maxMs?: number } = {},
): Promise<{ ms: number; quiet: boolean }> {
  const t0 = performance.now();
  let quietFrom: number | null = null;
  for (;;) {
    const report = expectStatus(await sb.admin('GET', '/sandbox/v1/store', undefined, 300_000), 200, 'store report')
      .json as { instance?: { writing?: boolean; waiting?: boolean } };
    const now = performance.now();
    const busy = report.instance?.writing === true || report.instance?.waiting === true;
    quietFrom = busy ? null : (quietFrom ?? now);
    if (quietFrom !== null && now - quietFrom >= quietMs) return { ms: now - t0, quiet: true };
    if (now - t0 >= maxMs) return { ms: now - t0, quiet: false };
    // a report reads the log's sizes: polled once a second, so the wait does not load the database it waits on
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** How long a routing's tenants must stay as they are for `settleRouting` to take it for settled (by default). */
export const SETTLED_AFTER_MS = 3_000;

export interface Settling {
  /**
   * The first read of the instances' reports, before any round: an instance left idle applies what the others wrote
   * meanwhile before it answers (a read of no tenant: a read across tenants would load every tenant).
   */
  catchUpMs: number;
  /** Whether the instances' tenants stayed as they were (none loaded, dropped or replaying) for `stableMs`. */
  settled: boolean;
  rounds: number;
  ms: number;
}

/**
 * Runs `round` (untimed load on one routing of tenants to instances) until the instances hold what a steady routing
 * leaves them: no instance loaded or dropped a tenant, or was still applying a moved tenant's skipped steps (D-172,
 * D-175), over rounds lasting `stableMs` (longer than an instance keeps a tenant whose calls went elsewhere: 2 s by
 * default); at most `maxMs`. A run timed after it measures the routing, not a move of tenants between instances (a
 * tenant another instance served until then is loaded and replayed on its first calls, and the instance that served it
 * applies its steps until it drops it as idle: seconds of both instances' CPU).
 */
export async function settleRouting(
  instances: readonly Pick<SandboxChild, 'admin'>[],
  round: () => Promise<unknown>,
  { stableMs = SETTLED_AFTER_MS, maxMs = 30_000 }: { stableMs?: number; maxMs?: number } = {},
): Promise<Settling> {
  const t0 = performance.now();
  const read = () => Promise.all(instances.map(residencyOf));
  let before = await read();
  let stableFrom = performance.now();
  const catchUpMs = stableFrom - t0;
  for (let rounds = 1; ; rounds++) {
    await round();
    const after = await read();
    const now = performance.now();
    const same = after.every(
      (a, i) => a.replaying === 0 && a.loaded === before[i].loaded && a.evicted === before[i].evicted,
    );
    if (!same) stableFrom = now;
    if (same && now - stableFrom >= stableMs) return { catchUpMs, settled: true, rounds, ms: now - t0 };
    if (now - t0 >= maxMs) return { catchUpMs, settled: false, rounds, ms: now - t0 };
    before = after;
  }
}
