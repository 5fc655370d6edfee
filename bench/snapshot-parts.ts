// What a shared sandbox's snapshot costs on a large state, measured black-box and side by side: for each
// checkout named (this one, and optionally another, e.g. the commit before snapshots were stored by part), an
// instance (the CLI in a child process, `--store postgres://…`) is given many tenants with history through
// HTTP and stopped cleanly (its stop writes a snapshot); fresh instances are started on it (three per
// checkout, interleaved; medians), and the peak resident memory of the process (VmHWM) and its time to ready
// are read; then submits keep arriving while an instance writes a snapshot of that state (three times per
// checkout, interleaved; medians), and the store report says how long calls waited (exportMs) and how long the
// write took, beside the submits' latencies around it (pooled).
//
//   npx tsx bench/snapshot-parts.ts [--tenants 5000] [--requests 4] [--base <checkout>] [--active N] [--hold-all]
//     [--every N]
//
// `--base` is a directory holding another version's src/, contracts/, fixtures/ and package.json, inside this
// checkout so that it resolves this checkout's node_modules, e.g.
//   mkdir -p tmp/base && git archive <commit> src contracts fixtures package.json tsconfig.json | tar -x -C tmp/base
// The figures go to stdout as a table and to reports/snapshot-parts.json.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { StoreReport } from '../src/domain/store.js';
import { startTestDatabase } from '../test/support/postgres.js';

const ADMIN = 'sat_snapshot_parts_bench';
const PUBLIC_URL = 'http://sandbox.bench';
const SCREENING = '/api/screening/v1';

const { values } = parseArgs({
  options: {
    tenants: { type: 'string', default: '5000' },
    requests: { type: 'string', default: '4' },
    base: { type: 'string' },
    probe: { type: 'string', default: '800' },
    // the probe's submits go to the first N tenants only (default: all of them, in turn)
    active: { type: 'string' },
    // the instance writing under calls holds every tenant from its start (SANDBOX_RESIDENT_TENANTS=0)
    'hold-all': { type: 'boolean', default: false },
    // snapshots every N steps while the probe runs (the figures are the last one's: an instance that has written
    // one before); default: one snapshot, 200 steps in, the instance's first
    every: { type: 'string' },
  },
});
const TENANTS = Number(values.tenants);
const REQUESTS = Number(values.requests);
const PROBE = Number(values.probe);

interface Child {
  proc: ChildProcess;
  base: string;
  stop(): Promise<void>;
}

/** An instance of the checkout at `cwd`, resolved once it prints its address. */
function spawnInstance(cwd: string, url: string, env: Record<string, string>): Promise<Child> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli.ts', '--port', '0', '--anon-port', '0', '--no-rate-limits'],
    {
      cwd,
      env: {
        ...process.env,
        SANDBOX_ADMIN_TOKEN: ADMIN,
        SANDBOX_PUBLIC_URL: PUBLIC_URL,
        SANDBOX_DATABASE_URL: url,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  return new Promise((resolve, reject) => {
    const onOut = (c: Buffer) => {
      out += c.toString();
      const m = /this instance\s+(\S+)/.exec(out);
      if (m)
        resolve({
          proc,
          base: m[1],
          stop: () =>
            new Promise<void>((done) => {
              if (proc.exitCode !== null) return done();
              proc.once('exit', () => done());
              proc.kill('SIGTERM');
            }),
        });
    };
    proc.stdout.on('data', onOut);
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
    proc.once('exit', (code) => reject(new Error(`instance exited (${code}) before it listened: ${out.slice(-2000)}`)));
  });
}

/** A line of /proc/<pid>/status, in bytes. */
function status(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** The parts of GET /sandbox/v1/store this script reads. */
interface StoreView {
  log: { lastSeq: number };
  instance: {
    loadedFrom: { readyMs: number } | null;
    lastWritten: StoreReport['instance']['lastWritten'];
  };
  snapshots: { newest: { parts?: { count: number } | null } | null };
}

async function call<T = unknown>(base: string, method: string, p: string, body?: unknown, key = ADMIN): Promise<T> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

let idem = 0;
const submit = (n: number) => ({
  idempotencyKey: `bench-${process.pid}-${++idem}`,
  candidate: {
    kind: 'structured',
    fullName: `Candidate ${n}`,
    summary: 'Backend engineer with 6 years of TypeScript and PostgreSQL on AWS.',
    skills: ['TypeScript', 'PostgreSQL', 'AWS'],
    experienceYears: 2 + (n % 9),
  },
  jobSpec: { title: 'Senior Backend Engineer', mustHaves: ['TypeScript', 'Postgres'], niceToHaves: ['Kubernetes'] },
});

/** Runs `n` jobs `width` at a time. */
async function pool(n: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await job(next++);
    }),
  );
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const MB = 1024 * 1024;

/** Gives the database at `url` many tenants with history, then stops cleanly (the stop writes a snapshot of it all). */
async function seed(label: string, cwd: string, url: string): Promise<{ steps: number; keys: string[] }> {
  const seeder = await spawnInstance(cwd, url, { SANDBOX_SNAPSHOT_EVERY: '0' });
  const t0 = performance.now();
  const keys: string[] = [];
  await pool(TENANTS, 16, async (i) => {
    const body = { name: `Bench ${i}`, planTier: 'scale' };
    const made = await call<{ apiKey: string; tenantId: string }>(seeder.base, 'POST', '/sandbox/v1/tenants', body);
    keys[i] = made.apiKey;
    // a month's credits of the plan are 2,000: a longer history is topped up first
    if (REQUESTS > 2_000)
      await call(seeder.base, 'PATCH', `/sandbox/v1/tenants/${made.tenantId}`, {
        screeningCredits: REQUESTS + 100_000,
      });
  });
  await pool(TENANTS * REQUESTS, 16, async (i) => {
    await call(seeder.base, 'POST', `${SCREENING}/screen`, submit(i), keys[i % TENANTS]);
  });
  const steps = (await call<StoreView>(seeder.base, 'GET', '/sandbox/v1/store')).log.lastSeq;
  console.log(`  ${label}: ${steps} steps seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await seeder.stop();
  return { steps, keys };
}

/** A start on the seeded database: time to listening, time the store took to load, peak and current RSS. */
async function startOnce(cwd: string, url: string) {
  const s0 = performance.now();
  const sb = await spawnInstance(cwd, url, { SANDBOX_SNAPSHOT_EVERY: '0' });
  const readyMs = performance.now() - s0;
  const pid = sb.proc.pid!;
  const peak = status(pid, 'VmHWM');
  const rss = status(pid, 'VmRSS');
  const loaded = (await call<StoreView>(sb.base, 'GET', '/sandbox/v1/store')).instance.loadedFrom;
  await sb.stop();
  return { readyMs, loadMs: loaded?.readyMs ?? NaN, peak, rss };
}

/** Submits keep arriving while a snapshot of the state is taken and written (due 200 steps in). */
async function writeWhileCalled(cwd: string, url: string, keys: string[]) {
  const pgc = new pg.Client({ connectionString: url });
  await pgc.connect();
  const last = Number((await pgc.query<{ seq: string }>('SELECT max(seq) AS seq FROM sandbox_log')).rows[0].seq);
  await pgc.end();
  // the first step past `last + 200` is the first multiple of the interval
  const sb = await spawnInstance(cwd, url, {
    SANDBOX_SNAPSHOT_EVERY: values.every ?? String(last + 200),
    ...(values['hold-all'] ? { SANDBOX_RESIDENT_TENANTS: '0' } : {}),
  });
  const used = values.active ? keys.slice(0, Number(values.active)) : keys;
  const latencies: number[] = [];
  await pool(PROBE, 8, async (i) => {
    const a = performance.now();
    await call(sb.base, 'POST', `${SCREENING}/screen`, submit(i), used[i % used.length]);
    latencies.push(performance.now() - a);
  });
  let store = await call<StoreView>(sb.base, 'GET', '/sandbox/v1/store');
  for (let i = 0; i < 600 && !store.instance.lastWritten; i++) {
    await new Promise((r) => setTimeout(r, 100));
    store = await call<StoreView>(sb.base, 'GET', '/sandbox/v1/store');
  }
  const peak = status(sb.proc.pid!, 'VmHWM');
  await sb.stop();
  return { written: store.instance.lastWritten, parts: store.snapshots.newest?.parts?.count ?? null, latencies, peak };
}

const median = (xs: number[]) => pct(xs, 50);
const db = await startTestDatabase();
try {
  const checkouts: { label: string; cwd: string; url: string; steps: number; keys: string[] }[] = [];
  const named: [string, string][] = [['this checkout', process.cwd()]];
  if (values.base) named.unshift([`base (${values.base})`, path.resolve(values.base)]);
  console.log(`snapshot of ${TENANTS} tenants × ${REQUESTS} requests, ${PROBE} submits while one is written`);
  for (const [label, cwd] of named) {
    const url = await db.another();
    checkouts.push({ label, cwd, url, ...(await seed(label, cwd, url)) });
  }
  // starts interleaved, three each: a load spike on the shared machine falls on every checkout alike
  const starts = new Map<string, Awaited<ReturnType<typeof startOnce>>[]>();
  for (let rep = 0; rep < 3; rep++)
    for (const c of checkouts) starts.set(c.label, [...(starts.get(c.label) ?? []), await startOnce(c.cwd, c.url)]);
  // snapshots written under calls, interleaved the same way (each adds PROBE requests to that database)
  const writes = new Map<string, Awaited<ReturnType<typeof writeWhileCalled>>[]>();
  for (let rep = 0; rep < 3; rep++)
    for (const c of checkouts)
      writes.set(c.label, [...(writes.get(c.label) ?? []), await writeWhileCalled(c.cwd, c.url, c.keys)]);
  const runs: Record<string, unknown>[] = [];
  for (const c of checkouts) {
    const s = starts.get(c.label)!;
    const w = writes.get(c.label)!;
    const of = (f: (x: (typeof w)[number]) => number | undefined) => median(w.map(f).filter((x) => x !== undefined));
    const latencies = w.flatMap((x) => x.latencies);
    runs.push({
      label: c.label,
      steps: c.steps,
      startPeakMB: +(median(s.map((x) => x.peak)) / MB).toFixed(0),
      afterStartMB: +(median(s.map((x) => x.rss)) / MB).toFixed(0),
      readyMs: Math.round(median(s.map((x) => x.readyMs))),
      loadMs: Math.round(median(s.map((x) => x.loadMs))),
      exportMs: of((x) => x.written?.exportMs),
      exportMsEach: w.map((x) => x.written?.exportMs ?? null).join(' / '),
      writeMs: of((x) => x.written?.writeMs),
      rawMB: +(of((x) => x.written?.rawBytes) / MB).toFixed(1),
      compressedMB: +(of((x) => x.written?.bytes) / MB).toFixed(2),
      parts: w[0].parts,
      exportedParts: w.map((x) => x.written?.exported ?? '—').join(' / '),
      copiedParts: w.map((x) => x.written?.carried ?? '—').join(' / '),
      peakWritingMB: +(of((x) => x.peak) / MB).toFixed(0),
      submitP50: +pct(latencies, 50).toFixed(0),
      submitP99: +pct(latencies, 99).toFixed(0),
      submitMax: +pct(latencies, 100).toFixed(0),
    });
  }
  console.table(runs);
  mkdirSync('reports', { recursive: true });
  writeFileSync(
    'reports/snapshot-parts.json',
    JSON.stringify({ at: new Date().toISOString(), tenants: TENANTS, requests: REQUESTS, runs }, null, 2),
  );
} finally {
  await db.stop();
}
