// Smoke test of the benchmark runner at tiny durations: the load helper measures what it claims,
// a failing or overrunning section becomes "not measured" and leaves no child process behind, and
// a short end-to-end run writes both reports.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChildGroup, liveChildren } from '../bench/lib/children.js';
import { atLeast, figure } from '../bench/lib/figures.js';
import { clientFor } from '../bench/lib/http.js';
import { measure, measureSplit, sampleMs, unsound, type LoadResult, type LoadSpec } from '../bench/lib/load.js';
import { openLoop } from '../bench/lib/openLoop.js';
import { renderMarkdown, type BenchReport } from '../bench/lib/report.js';
import { createBenchTenant, residencyOf, settleRouting, submitBody } from '../bench/lib/sandbox.js';
import type { Section } from '../bench/lib/section.js';
import { defaultOptions } from '../bench/options.js';
import { runBench, runSection } from '../bench/runner.js';
import { SECTIONS } from '../bench/sections/index.js';
import { probeWait } from '../bench/sections/tenants.js';
import { runWorker } from '../bench/lib/worker.js';
import type { ProbeResult } from '../bench/workers/probe.js';
import { instancesPerTest, postgresUnavailable, sharedInstances } from './support/postgres.js';
import { ADMIN_TOKEN } from './support/sandbox.js';

const out = mkdtempSync(join(tmpdir(), 'bench-test-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const opts = { ...defaultOptions(true), outDir: out };

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('load measurement', () => {
  it('an open loop starts every call at its time whatever the earlier ones do, and says how late this process started one', async () => {
    const started: number[] = [];
    const answered: number[] = [];
    const t0 = performance.now();
    const { maxLateMs } = await openLoop(6, 20, async (i) => {
      started.push(performance.now() - t0);
      // the third call holds this process's event loop for 120 ms, past the next call's time
      if (i === 2) for (const until = performance.now() + 120; performance.now() < until;);
      // an answer that takes longer than the gap does not hold the next call back
      await new Promise((r) => setTimeout(r, 60));
      answered[i] = performance.now() - t0;
    });
    expect(started).toHaveLength(6);
    // the calls after the held one are started at once, each as soon as it can, then the schedule goes on
    expect(started[3]).toBeGreaterThanOrEqual(started[2] + 120);
    expect(maxLateMs).toBeGreaterThanOrEqual(95);
    expect(started[1]).toBeLessThan(answered[0]);
  });

  it("a probe's failed calls count in its longest wait as long as they waited before failing", async () => {
    // every third call is held past the probe's own bound: the probe gives it up (the worker's 10 s timeout is long
    // for a test, so the server answers those 503 after 300 ms instead: a failure after a wait)
    let n = 0;
    const server = createServer((req, res) => {
      req.resume();
      const i = n++;
      if (i % 3 === 2) setTimeout(() => res.writeHead(503).end(), 300);
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const group = new ChildGroup();
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
      const result = await runWorker<ProbeResult>(
        group,
        'probe',
        'probe.ts',
        { url, apiKey: 'k', ratePerS: 20, durationS: 0.5 },
        { timeoutMs: 30_000 },
      );
      expect(result.failures.length).toBeGreaterThan(0);
      expect(result.failedAfterMs).toHaveLength(result.failures.length);
      expect(Math.min(...result.failedAfterMs)).toBeGreaterThanOrEqual(290);
      const wait = probeWait(result);
      expect(Math.max(...result.latenciesMs)).toBeLessThan(290);
      expect(wait.longest).toBe(Math.max(...result.failedAfterMs));
      expect(wait.calls).toBe(result.latenciesMs.length);
      expect(wait.said).toContain(`${result.failures.length} failed (the longest after`);
      expect(wait.said).toContain('HTTP 503');
    } finally {
      await group.stopAll();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("samples so that a run ends at its duration: autocannon's default second for whole seconds", () => {
    expect([5, 1, 1.5, 0.3].map(sampleMs)).toEqual([1000, 1000, 750, 300]);
  });

  it('sends a fresh body per request and counts every response', async () => {
    const keys: string[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        keys.push(JSON.parse(raw).key);
        res.writeHead(keys.length % 2 ? 201 : 200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      let n = 0;
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await measure(
        { origin, method: 'POST', path: '/x', body: () => JSON.stringify({ key: `k${n++}` }) },
        { connections: 4, durationS: 0.5, warmupS: 0 },
      );
      expect(r.requests).toBeGreaterThan(10);
      // the run lasts what was asked, not autocannon's whole second of sampling
      expect(r.durationS).toBeGreaterThanOrEqual(0.5);
      expect(r.durationS).toBeLessThan(0.95);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.length).toBeGreaterThanOrEqual(r.requests);
      expect(r.rps).toBeCloseTo(r.requests / r.durationS, 5);
      expect(r.p50Ms).toBeGreaterThan(0);
      expect(r.p99Ms).toBeGreaterThanOrEqual(r.p50Ms);
      expect(unsound(r)).toBeNull();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it.skipIf(process.platform !== 'linux')(
    "reports the CPU per answered request of the servers' process groups and of the load generator",
    async () => {
      // a server in a process group of its own that spends 2 ms of CPU on each request, and an idle one beside it
      const burner = `require('node:http').createServer((q, s) => { const t = process.cpuUsage();
        for (;;) { const d = process.cpuUsage(t); if (d.user + d.system >= 2000) break; }
        s.end('{}'); }).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
      const server = spawn(process.execPath, ['-e', burner], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
      const idle = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
      try {
        const port = await new Promise<string>((resolve) =>
          server.stdout.once('data', (c: Buffer) => resolve(String(c).trim())),
        );
        const spec = { origin: `http://127.0.0.1:${port}`, method: 'GET' as const, path: '/x' };
        const r = await measure(spec, { connections: 2, durationS: 1, warmupS: 0, cpuOf: [server.pid!, idle.pid!] });
        expect(r.requests).toBeGreaterThan(50);
        // 2 ms a request, plus what node spends to serve it; /proc counts in 10 ms ticks over hundreds of requests
        expect(r.cpu!.serverUs).toBeGreaterThan(1_800);
        expect(r.cpu!.serverUs).toBeLessThan(4_000);
        expect(r.cpu!.generatorUs).toBeGreaterThan(0);
        expect(r.cpu!.generatorUs).toBeLessThan(r.cpu!.serverUs);
        // the idle group alone: next to nothing
        const quiet = await measure(spec, { connections: 2, durationS: 0.5, warmupS: 0, cpuOf: [idle.pid!] });
        expect(quiet.cpu!.serverUs).toBeLessThan(200);
        // not asked: not reported
        expect((await measure(spec, { connections: 1, durationS: 0.2, warmupS: 0 })).cpu).toBeUndefined();
      } finally {
        server.kill('SIGKILL');
        idle.kill('SIGKILL');
      }
    },
  );

  it('drives several servers at once, half the connections each, and sums what they answered', async () => {
    const counts = [0, 0];
    const peak = [0, 0];
    const open = [0, 0];
    const servers = [0, 1].map((i) =>
      createServer((req, res) => {
        counts[i]++;
        peak[i] = Math.max(peak[i], ++open[i]);
        // answered a little later, so every connection of the server has a request in flight at once
        setTimeout(() => {
          open[i]--;
          res.writeHead(200).end('{}');
        }, 5);
      }),
    );
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()))));
    try {
      const origins = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
      const r = await measureSplit(
        origins.map((origin) => ({ origin, method: 'GET' as const, path: '/x' })),
        { connections: 6, durationS: 0.5, warmupS: 0 },
      );
      expect(counts.every((c) => c > 10)).toBe(true);
      // each server saw its half of the connections, never more
      expect(peak).toEqual([3, 3]);
      expect(r.requests).toBeGreaterThan(counts[0]);
      expect(r.requests).toBeLessThanOrEqual(counts[0] + counts[1]);
      expect(r.statuses['200']).toBe(r.requests);
    } finally {
      for (const s of servers) {
        s.closeAllConnections();
        s.close();
      }
    }
  });

  it('spreads requests over many tenants: the bearer keys taken in turn, a fresh body each', async () => {
    const seen: { auth: string; key: string }[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.push({ auth: req.headers.authorization ?? '', key: JSON.parse(raw).key });
        res.writeHead(201).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      let n = 0;
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const bearers = ['k1', 'k2', 'k3', 'k4', 'k5'];
      await measure(
        { origin, method: 'POST', path: '/x', bearers, body: () => JSON.stringify({ key: `b${n++}` }) },
        { connections: 3, durationS: 0.5, warmupS: 0 },
      );
      expect(seen.length).toBeGreaterThan(50);
      const per = new Map<string, number>();
      for (const s of seen) per.set(s.auth, (per.get(s.auth) ?? 0) + 1);
      expect([...per.keys()].sort()).toEqual(bearers.map((b) => `Bearer ${b}`));
      // in turn: no key more than a couple of requests ahead of another
      expect(Math.max(...per.values()) - Math.min(...per.values())).toBeLessThanOrEqual(3);
      expect(new Set(seen.map((s) => s.key)).size).toBe(seen.length);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('refuses a measurement in which more than 1% of answers failed', () => {
    const base: LoadResult = {
      requests: 1000,
      durationS: 1,
      rps: 1000,
      p50Ms: 1,
      p99Ms: 2,
      meanMs: 1,
      statuses: { '200': 980, '404': 20 },
      non2xx: 20,
      errors: 0,
      timeouts: 0,
      bytesPerSec: 0,
      bytesPerResponse: 0,
    };
    expect(unsound(base)).toMatch(/20 of 1000 .*20× 404/);
    expect(unsound({ ...base, statuses: { '200': 995, '404': 5 }, non2xx: 5 })).toBeNull();
  });
});

describe.skipIf(postgresUnavailable() !== null)('a routing of tenants to instances settled before a timed run', () => {
  const { pair } = instancesPerTest(sharedInstances('http://sandbox.test', { noRateLimits: true }));

  it('loads, replays and drops the tenants a new routing moved, untimed; the run after it moves none', async () => {
    // a tenant whose steps come only from the other instance is dropped after 1 s
    const { a, b } = await pair({ replicaTiming: { foreignIdleMs: 1_000, foreignIdleCalls: 0, sweepMs: 200 } });
    const [ca, cb] = [a, b].map((sb) => ({ admin: clientFor(sb.listenUrl, ADMIN_TOKEN) }));
    const counts = async () =>
      (await Promise.all([ca, cb].map(residencyOf))).map(({ resident, loaded, evicted, replaying }) => ({
        resident,
        loaded,
        evicted,
        replaying,
      }));
    // the tenants each holds before these six (the demo tenants)
    const base = await counts();
    const keys: string[] = [];
    for (let i = 0; i < 6; i++) keys.push((await createBenchTenant(ca, { name: `settle ${i}` })).apiKey);
    const spec = (origin: string, bearers: string[]): LoadSpec => ({
      origin,
      method: 'POST',
      path: '/api/screening/v1/screen',
      bearers,
      body: () => submitBody('settle'),
    });
    const allOnA = () => [spec(a.listenUrl, keys)];
    const routed = () => [spec(a.listenUrl, keys.slice(0, 3)), spec(b.listenUrl, keys.slice(3))];
    const load = (specs: LoadSpec[], durationS = 0.3) => measureSplit(specs, { connections: 6, durationS, warmupS: 0 });
    const settle = (round: () => Promise<unknown>, maxMs = 20_000) =>
      settleRouting([ca, cb], round, { stableMs: 1_500, maxMs });
    // every tenant served by the first instance, then half of them by the second: it loads them (their skipped
    // steps replayed) and the first drops them; both take rounds of their own before the counts stay for 1.5 s
    await load(allOnA());
    for (const [specs, served] of [
      [routed, [3, 3]],
      [allOnA, [6, 0]],
    ] as const) {
      const settling = await settle(() => load(specs()));
      expect(settling.settled).toBe(true);
      expect(settling.rounds).toBeGreaterThan(2);
      const before = await counts();
      // each instance holds the tenants it serves, and no other of these
      expect(before.map((c, i) => c.resident - base[i].resident)).toEqual(served);
      const run = await load(specs(), 1);
      expect(run.statuses['201']).toBe(run.requests);
      expect(await counts()).toEqual(before);
    }
    // a routing changed at every round never settles: the rounds are bounded (rounds of 1 s, longer than a
    // tenant served elsewhere is kept, so that every round moves tenants)
    let rounds = 0;
    const unsettled = await settle(() => load(rounds++ % 2 ? routed() : allOnA(), 1), 3_000);
    expect(unsettled.settled).toBe(false);
    expect(unsettled.ms).toBeLessThan(6_000);
  }, 120_000);
});

describe('sections', () => {
  it('reports a failing section as not measured and stops the children it started', async () => {
    let pid = 0;
    const failing: Section = {
      id: 'failing',
      title: 'Failing',
      budgetS: () => 30,
      async run(ctx) {
        pid = ctx.group.spawn('sleeper', 'sleep', ['30']).proc.pid!;
        throw new Error('the endpoint answered 404');
      },
    };
    const r = await runSection(failing, opts, () => {});
    expect(r.notMeasured).toBe('the endpoint answered 404');
    expect(pid).toBeGreaterThan(0);
    expect(alive(pid)).toBe(false);
  });

  it('bounds a section by its budget', async () => {
    const slow: Section = { id: 'slow', title: 'Slow', budgetS: () => 0.2, run: () => new Promise(() => {}) };
    const r = await runSection(slow, opts, () => {});
    expect(r.notMeasured).toMatch(/did not finish within/);
  });

  it('judges figures against their targets and lists every miss', () => {
    const pass = figure('a', 'Search vs Prism', 3.5, '×', atLeast(3, '≥ 3×'));
    const miss = figure('b', 'Audit vs Prism', 2.1, '×', atLeast(3, '≥ 3×'));
    expect([pass.verdict, miss.verdict]).toEqual(['PASS', 'MISS']);
    const report: BenchReport = {
      generatedAt: '2026-01-01T00:00:00.000Z',
      wallTimeS: 1,
      machine: { cpuModel: 'cpu', cores: 2, memoryGiB: 4, node: 'v20', platform: 'linux', loadAverage: [0, 0, 0] },
      options: opts,
      sections: [{ id: 'x', title: 'X', figures: [pass, miss], tables: [], notes: [], durationS: 1 }],
    };
    const md = renderMarkdown(report);
    expect(md).toContain(
      opts.repetitions === 1 ? '**one run per measurement**' : `the median of ${opts.repetitions} interleaved runs`,
    );
    expect(renderMarkdown({ ...report, options: { ...opts, repetitions: 3 } })).toContain(
      'the median of 3 interleaved runs per measurement',
    );
    expect(md).toMatch(/Missed targets \(1\):\*\* Audit vs Prism \(2\.10×, target ≥ 3×\)/);
    expect(md).toContain('| Search vs Prism | 3.50× | ≥ 3× | **PASS** |');
  });
});

describe('end to end', () => {
  it('runs the HTTP section at tiny durations, writes both reports and leaves no process behind', async () => {
    // a warm-up pays each server's first calls (a cold PostgreSQL instance under the suite's load took longer than a
    // whole 0.3 s run once, so its row read 0 req/s)
    const { report, files } = await runBench({ ...opts, durationS: 0.4, warmupS: 0.2, sections: ['http'] }, SECTIONS);
    expect(existsSync(files.md) && existsSync(files.json)).toBe(true);
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as BenchReport;
    const http = json.sections.find((s) => s.id === 'http')!;
    expect(http.notMeasured).toBeUndefined();
    expect(http.figures.map((f) => f.id)).toContain('http.search.vsPrism');
    // every endpoint is tried on all five servers; Prism needs nothing from the sandbox, so it measures
    const rows = http.tables[0].rows;
    expect(rows).toHaveLength(20);
    const rps = (server: string) =>
      rows.filter((r) => r[1] === server).map((r) => Number(String(r[2]).replace(/,/g, '')));
    expect(rps('prism').every((v) => v > 0)).toBe(true);
    // the sandbox on PostgreSQL, one instance and two: measured where PostgreSQL is installed, else skipped saying why
    const skip = postgresUnavailable();
    for (const server of ['postgres ×1', 'postgres ×2']) {
      if (skip)
        expect(rows.filter((r) => r[1] === server).map((r) => r[8])).toEqual(
          Array(4).fill(expect.stringMatching(/PostgreSQL/)),
        );
      else
        expect(
          rps(server).every((v) => v > 0),
          `${server}: ${JSON.stringify(rows.filter((r) => r[1] === server))}`,
        ).toBe(true);
    }
    expect(http.figures.find((f) => f.id === 'http.submit.postgresVsPrism')?.target?.text).toBe('≥ 1× (goal 2×)');
    expect(report.machine.cores).toBeGreaterThan(0);
    expect(readFileSync(files.md, 'utf8')).toContain('## HTTP throughput and latency');
    expect(liveChildren()).toEqual([]);
  }, 180_000);
});
