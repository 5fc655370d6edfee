// Two conformance runs at once against one sandbox, as two integrators (or two CI jobs) sharing one hosted
// sandbox would run them: each moves only its own tenants' clocks, and neither blames the target for the
// other's clock moves or calls (D-122). Both must pass every `must` requirement that runs.

import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../conformance/index.js';
import { startSandbox, type RunningSandbox } from '../src/main.js';
import { postgresUnavailable, startTestDatabase, type TestDatabase } from './support/postgres.js';
import { rpc } from './support/mcp.js';
import { ADMIN_TOKEN, useSandbox } from './support/sandbox.js';

const sb = useSandbox({ seedDemo: false });

type Result = Awaited<ReturnType<typeof runConformance>>;

/** Judged on a clock or a per-address count that another client can move: may say it could not judge (D-122). */
const SHARED_WINDOWS = ['JOB-RATE-4', 'MCP-TOOL-10', 'MCP-ANON-5'];

/** The `must` requirements of a run that did not pass, with the first reason. */
const brokenMusts = (r: Result) =>
  r.requirements
    .filter(
      (x) => x.level === 'must' && x.status !== 'pass' && x.status !== 'not-covered' && x.status !== 'not-observable',
    )
    .filter((x) => !(x.status === 'skip' && SHARED_WINDOWS.includes(x.id)) && x.status !== 'not-run')
    .map((x) => `${x.id} ${x.status}: ${x.failures[0]?.why ?? x.reasons[0]}`);

const run = (target: { baseUrl: string; anonMcpUrl: string }, seed: number, only?: string[]) =>
  runConformance({
    target: target.baseUrl,
    anonMcp: target.anonMcpUrl,
    adminToken: ADMIN_TOKEN,
    seed,
    runs: 5,
    reportDir: null,
    regressionsDir: path.resolve('fixtures/regressions'),
    saveRegressions: false,
    progress: false,
    ...(only ? { only } : {}),
  });

/** On PostgreSQL every call is a step both instances apply: the runs keep to what clocks, windows and shared state decide. */
const CLOCKED = [
  'JOB-RATE',
  'MCP-TOOL-10',
  'MCP-ANON-5',
  'POL-MCP-3',
  'POL-STATE-2',
  'POL-HOOK-1',
  'POL-RATE',
  'SCR-AUDIT',
  'SCR-LEDGER',
  'SCR-CREDIT',
  'SCR-IDEMP',
  'SCR-AUTH',
];

function expectBothPass(a: Result, b: Result): void {
  expect({ a: brokenMusts(a), b: brokenMusts(b) }).toEqual({ a: [], b: [] });
  expect(a.ok && b.ok).toBe(true);
  // the checks that judge a window on a clock did run in both (passed, or said why they could not judge)
  for (const r of [a, b]) {
    for (const id of SHARED_WINDOWS) {
      const req = r.requirements.find((x) => x.id === id)!;
      expect(['pass', 'skip'], `${id}: ${req.status} ${req.reasons.join('; ')}`).toContain(req.status);
      if (req.status === 'skip') expect(req.reasons.join(' ')).toMatch(/another client|other client/);
    }
  }
}

describe('two conformance runs at once against one in-memory sandbox', () => {
  it("both pass: neither blames the target for the other run's clock moves or calls", async () => {
    const [a, b] = await Promise.all([run(sb.get(), 1), run(sb.get(), 2)]);
    expectBothPass(a, b);
  }, 240_000);
});

describe('the anonymous per-IP day while another client calls from the same address', () => {
  it("is never failed for the other client's calls: the check says it could not judge the day", async () => {
    const { anonMcpUrl } = sb.get();
    let stop = false;
    let calls = 0;
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_curated_list', arguments: {} } };
    // another client at 127.0.0.1, spending the same day while the check walks it
    const flood = (async () => {
      while (!stop) {
        await rpc(anonMcpUrl, body);
        calls++;
      }
    })();
    try {
      const r = await run(sb.get(), 5, ['MCP-ANON-5']);
      const req = r.requirements.find((x) => x.id === 'MCP-ANON-5')!;
      expect(req.status, req.reasons.join('; ')).toBe('skip');
      expect(req.reasons.join(' ')).toMatch(/other clients at this address/);
      expect(r.ok).toBe(true);
    } finally {
      stop = true;
      await flood;
    }
    expect(calls).toBeGreaterThan(100);
  }, 120_000);
});

const why = postgresUnavailable();

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe.skipIf(why !== null)('two conformance runs at once against two instances of one sandbox on PostgreSQL', () => {
  // a shared sandbox needs one public URL on every instance: instance one's own address
  let db: TestDatabase;
  let one: RunningSandbox;
  let two: RunningSandbox;
  beforeAll(async () => {
    db = await startTestDatabase();
    const port = await freePort();
    const start = (p: number) =>
      startSandbox({
        host: '127.0.0.1',
        port: p,
        anonMcpPort: 0,
        adminToken: ADMIN_TOKEN,
        publicUrl: `http://127.0.0.1:${port}`,
        seedDemo: false,
        store: db.url,
      });
    [one, two] = await Promise.all([start(port), start(0)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([one?.close(), two?.close()]);
    await db?.stop();
  });

  it('both pass, each run on its own instance (the checks of clocks, windows, credits, idempotency and the ledger)', async () => {
    const [a, b] = await Promise.all([
      run({ baseUrl: one.listenUrl, anonMcpUrl: one.anonMcpUrl }, 3, CLOCKED),
      run({ baseUrl: two.listenUrl, anonMcpUrl: two.anonMcpUrl }, 4, CLOCKED),
    ]);
    expectBothPass(a, b);
  }, 300_000);
});
