// Throughput and latency under load (autocannon, N connections) of four endpoints, served three ways:
// the sandbox (a child process, rate limits lifted), `prism mock` on the same contract, and a bare
// node:http server returning the sandbox's own captured bytes (the ceiling). All servers stay up side by
// side; the runs are interleaved (endpoint by endpoint, the servers' order rotating each repetition) and
// each figure is the median of the repetitions, so a passing load spike on the shared machine hits every
// server alike. One server is under load at a time.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '../lib/children.js';
import { atLeast, errorMessage, figure, fmt, notMeasured, short, type Figure, type Table } from '../lib/figures.js';
import { clientFor, expectStatus, pool, request, type Client } from '../lib/http.js';
import { measure, unsound, type LoadResult, type LoadSpec } from '../lib/load.js';
import { prismPath, startPrism, PRISM_ARGS, type PrismChild } from '../lib/prism.js';
import { createBenchTenant, ROOT, startSandboxChild, submitBody, type SandboxChild } from '../lib/sandbox.js';
import type { Section, SectionContext, SectionOutput } from '../lib/section.js';

type TargetName = 'sandbox' | 'prism' | 'bare';

interface Endpoint {
  id: 'search' | 'job' | 'audit' | 'submit';
  label: string;
  method: 'GET' | 'POST';
  contract: string;
  /** Sandbox path with query string; null when the sandbox could not serve it. */
  path: string | null;
  key: string;
  body?: () => string;
  captured?: { status: number; body: string };
  unavailable?: string;
  results: Partial<Record<TargetName, LoadResult | { skipped: string }>>;
  /** req/s of every repetition, per server, in run order. */
  runs: Partial<Record<TargetName, number[]>>;
}

const JOBS = 'contracts/jobs.openapi.yaml';
const SCREENING = 'contracts/screening.openapi.yaml';
const FULL_AUDIT_PAGE = 100;

/** The most frequent title word (4+ letters) on a page: a realistic, well-populated `q`. */
function commonWord(titles: string[]): string | null {
  const counts = new Map<string, number>();
  for (const t of titles) for (const w of t.toLowerCase().match(/[a-z]{4,}/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

async function captureSearch(api: Client, ep: Endpoint): Promise<void> {
  const plain = await api('GET', '/api/v1/jobs');
  if (plain.status !== 200 || !Array.isArray(plain.json?.jobs)) throw new Error(`GET /api/v1/jobs answered ${plain.status}: ${plain.text.slice(0, 200)}`);
  const word = commonWord(plain.json.jobs.map((j: { title?: string }) => String(j.title ?? '')));
  if (word) {
    const path = `/api/v1/jobs?q=${encodeURIComponent(word)}`;
    const res = await api('GET', path);
    if (res.status === 200 && res.json?.jobs?.length === 20) {
      ep.path = path;
      ep.captured = { status: 200, body: res.text };
      return;
    }
  }
  if (plain.json.jobs.length !== 20) throw new Error(`search returned ${plain.json.jobs.length} jobs, not 20`);
  ep.path = '/api/v1/jobs';
  ep.captured = { status: 200, body: plain.text };
}

async function seedAudit(api: Client): Promise<number> {
  // each request writes several ledger rows as it moves through the pipeline; submit until a full page exists
  let submitted = 0;
  let rows = 0;
  const deadline = performance.now() + 60_000;
  while (submitted < 400 && performance.now() < deadline) {
    await pool(Array.from({ length: 40 }), 10, async () => {
      expectStatus(await api('POST', '/api/screening/v1/screen', submitBody('audit-seed')), 201, 'seed submit');
    });
    submitted += 40;
    const settle = performance.now() + 5_000;
    while (performance.now() < settle) {
      const page = await api('GET', `/api/screening/v1/audit?limit=${FULL_AUDIT_PAGE}`);
      rows = Array.isArray(page.json?.events) ? page.json.events.length : 0;
      if (rows >= FULL_AUDIT_PAGE) return submitted;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`after ${submitted} submits the first audit page holds ${rows} rows, not ${FULL_AUDIT_PAGE}`);
}

async function prepareSandbox(ctx: SectionContext, endpoints: Endpoint[], sb: SandboxChild): Promise<void> {
  const tenant = await createBenchTenant(sb, { name: 'bench load' });
  const auditTenant = await createBenchTenant(sb, { name: 'bench audit' });
  const api = clientFor(sb.baseUrl, tenant.apiKey);
  const auditApi = clientFor(sb.baseUrl, auditTenant.apiKey);
  const [search, job, audit, submit] = endpoints;
  search.key = job.key = submit.key = tenant.apiKey;
  audit.key = auditTenant.apiKey;

  const attempt = async (ep: Endpoint, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      ep.unavailable = errorMessage(err);
      ctx.log(`  ${ep.label}: not available on the sandbox: ${ep.unavailable}`);
    }
  };
  await attempt(search, () => captureSearch(api, search));
  await attempt(job, async () => {
    if (!search.captured) throw new Error('no search result to take a job id from');
    const id = JSON.parse(search.captured.body).jobs[0].id as string;
    const path = `/api/v1/jobs/${encodeURIComponent(id)}`;
    const res = expectStatus(await api('GET', path), 200, `GET ${path}`);
    job.path = path;
    job.captured = { status: 200, body: res.text };
  });
  await attempt(audit, async () => {
    const submits = await seedAudit(auditApi);
    const path = `/api/screening/v1/audit?limit=${FULL_AUDIT_PAGE}`;
    const res = expectStatus(await auditApi('GET', path), 200, `GET ${path}`);
    audit.path = path;
    audit.captured = { status: 200, body: res.text };
    ctx.log(`  audit tenant seeded with ${submits} submits`);
  });
  await attempt(submit, async () => {
    const res = expectStatus(await api('POST', '/api/screening/v1/screen', submitBody('probe')), 201, 'POST /api/screening/v1/screen');
    submit.path = '/api/screening/v1/screen';
    submit.captured = { status: 201, body: res.text };
  });
}

type Outcome = LoadResult | { skipped: string };

/** One timed run of one endpoint on one server. */
async function measureOnce(ctx: SectionContext, target: TargetName, origin: string, ep: Endpoint, path: string): Promise<Outcome> {
  const { connections, durationS, warmupS } = ctx.opts;
  const spec: LoadSpec = { origin, method: ep.method, path, headers: { authorization: `Bearer ${ep.key}` }, ...(ep.body ? { body: ep.body } : {}) };
  ctx.log(`  ${target.padEnd(7)} ${ep.method} ${path}`);
  try {
    return await measure(spec, { connections, durationS, warmupS });
  } catch (err) {
    return { skipped: `the load run failed: ${errorMessage(err)}` };
  }
}

/** The run with the median req/s (the lower middle of an even count); skipped when no run measured. */
function medianRun(runs: Outcome[]): Outcome {
  const ok = runs.filter(isLoad).sort((a, b) => a.rps - b.rps);
  if (ok.length === 0) return runs.find((r) => !isLoad(r)) ?? { skipped: 'not run' };
  return ok[Math.floor((ok.length - 1) / 2)];
}

function isLoad(r: Outcome | undefined): r is LoadResult {
  return !!r && 'rps' in r;
}

function why(r: LoadResult | { skipped: string } | undefined): string | null {
  if (!r) return 'not run';
  if (!isLoad(r)) return r.skipped;
  return unsound(r);
}

function summarise(ctx: SectionContext, endpoints: Endpoint[]): SectionOutput {
  const figures: Figure[] = [];
  const table: Table = {
    title: `Load: ${ctx.opts.connections} connections, ${ctx.opts.warmupS} s warm-up then ${repetitionsOf(ctx)} interleaved ${ctx.opts.durationS} s runs per row; the median run is shown`,
    columns: ['Endpoint', 'Server', 'req/s', 'p50 ms', 'p99 ms', 'bytes/resp', 'non-2xx', 'errors', 'note', 'req/s of each run'],
    rows: [],
  };
  for (const ep of endpoints) {
    for (const target of ['sandbox', 'prism', 'bare'] as const) {
      const r = ep.results[target];
      const problem = why(r);
      const each = (ep.runs[target] ?? []).map((v) => fmt(v, 0)).join(' / ');
      if (isLoad(r)) table.rows.push([ep.label, target, fmt(r.rps, 0), fmt(r.p50Ms, 2), fmt(r.p99Ms, 2), fmt(r.bytesPerResponse, 0), r.non2xx, r.errors + r.timeouts, short(problem ?? ''), each]);
      else table.rows.push([ep.label, target, '—', '—', '—', '—', '—', '—', short(problem ?? ''), each]);
    }
    const s = ep.results.sandbox;
    const sOk = isLoad(s) && !unsound(s);
    const ratio = (other: TargetName, id: string, label: string, target?: ReturnType<typeof atLeast>) => {
      const o = ep.results[other];
      const problem = !sOk ? `sandbox: ${why(s)}` : why(o) ? `${other}: ${why(o)}` : null;
      if (problem || !isLoad(o) || !isLoad(s)) return notMeasured(id, label, '×', short(problem ?? 'not run'), target);
      return figure(id, label, s.rps / o.rps, '×', target, `${fmt(s.rps, 0)} vs ${fmt(o.rps, 0)} req/s`);
    };
    // every GET at least 5× Prism and 0.6× the bare ceiling; the submit at least 3× Prism (the goal is 5×)
    const get = ep.method === 'GET';
    figures.push(ratio('prism', `http.${ep.id}.vsPrism`, `${ep.label}: sandbox / Prism req/s`, get ? atLeast(5, '≥ 5×') : atLeast(3, '≥ 3× (goal 5×)')));
    figures.push(ratio('bare', `http.${ep.id}.vsBare`, `${ep.label}: sandbox / bare node req/s`, get ? atLeast(0.6, '≥ 0.6× (60%)') : undefined));
  }
  const data = endpoints.map((ep) => ({ id: ep.id, label: ep.label, method: ep.method, path: ep.path, unavailable: ep.unavailable ?? null, results: ep.results, runs: ep.runs }));
  return {
    figures,
    tables: [table],
    notes: [
      'The sandbox ran as `tsx src/cli.ts --no-rate-limits` in a child process (rate limits LIFTED, no self-check, no request log); autocannon ran in the parent process, one server under load at a time while the others idled.',
      `Prism: \`prism mock <contract> ${PRISM_ARGS.join(' ')}\` (static examples, no request log, single process: \`-m\` was not faster here), one instance per contract. Prism answers with the contract's example, which may be much smaller than the sandbox's real answer (compare bytes/resp).`,
      'The bare node:http server answers each route with the exact bytes the sandbox returned for the same request (a 20-job search, one job, a full audit page, a 201 submit result) and reads request bodies before answering.',
      'Each submit carries a fresh idempotency key (autocannon setupRequest), so every request is a new charged screening request on a tenant with a large credit balance.',
      `Each row is the median of ${repetitionsOf(ctx)} runs, interleaved: endpoint by endpoint, each server in turn, the order of the servers rotating with each repetition. The load generator is single-threaded and shares the 2-core machine with the server, so the bare-node ceiling may be bounded by autocannon itself.`,
    ],
    data,
  };
}

const TARGETS: readonly TargetName[] = ['sandbox', 'bare', 'prism'];
const repetitionsOf = (ctx: SectionContext) => ctx.opts.repetitions ?? 3;

const FALLBACK: Record<Endpoint['id'], string> = {
  search: '/api/v1/jobs',
  job: '/api/v1/jobs/job_bench',
  audit: `/api/screening/v1/audit?limit=${FULL_AUDIT_PAGE}`,
  submit: '/api/screening/v1/screen',
};

/** Starts the bare server on the sandbox's captured answers; its origin, or null when nothing was captured. */
async function startBare(ctx: SectionContext, endpoints: Endpoint[], dir: string): Promise<string | null> {
  const captured = endpoints.filter((ep) => ep.captured && ep.path);
  if (!captured.length) return null;
  const routesFile = join(dir, 'routes.json');
  writeFileSync(routesFile, JSON.stringify(captured.map((ep) => ({ method: ep.method, path: ep.path!.split('?')[0], status: ep.captured!.status, body: ep.captured!.body }))));
  const port = await freePort();
  const bare = ctx.group.fork('bare node server', `${ROOT}bench/workers/bare-server.ts`, [String(port), routesFile], { cwd: ROOT });
  const origin = `http://127.0.0.1:${port}`;
  await waitFor('the bare server', async () => ((await request('GET', origin + '/', { timeoutMs: 1000 })).status ? true : undefined), { timeoutMs: 30_000, child: bare });
  return origin;
}

export const throughputSection: Section = {
  id: 'http',
  title: 'HTTP throughput and latency',
  budgetS: (o) => 12 * (o.repetitions ?? 3) * (o.durationS + o.warmupS + 3) + 240,
  async run(ctx) {
    const endpoints: Endpoint[] = [
      { id: 'search', label: 'GET /api/v1/jobs (20-job search)', method: 'GET', contract: JOBS, path: null, key: '', results: {}, runs: {} },
      { id: 'job', label: 'GET /api/v1/jobs/{id}', method: 'GET', contract: JOBS, path: null, key: '', results: {}, runs: {} },
      { id: 'audit', label: 'GET /api/screening/v1/audit (page of 100)', method: 'GET', contract: SCREENING, path: null, key: '', results: {}, runs: {} },
      { id: 'submit', label: 'POST /api/screening/v1/screen (new key each)', method: 'POST', contract: SCREENING, path: null, key: '', body: () => submitBody('load'), results: {}, runs: {} },
    ];

    ctx.log('starting the sandbox, the bare server and Prism');
    const sb = await startSandboxChild(ctx.group);
    await prepareSandbox(ctx, endpoints, sb);
    const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
    try {
      // the ceiling, on the very bytes the sandbox produced
      const bare = await startBare(ctx, endpoints, dir);
      // Prism, one instance per contract
      const prism = new Map<string, PrismChild | string>();
      for (const contract of [JOBS, SCREENING]) {
        try {
          prism.set(contract, await startPrism(ctx.group, contract, '/', 'bench'));
        } catch (err) {
          prism.set(contract, `Prism did not start: ${errorMessage(err)}`);
        }
      }
      const where = (ep: Endpoint, target: TargetName): { origin: string; path: string; key: string } | { skipped: string } => {
        if (target === 'sandbox') return ep.path ? { origin: sb.baseUrl, path: ep.path, key: ep.key } : { skipped: ep.unavailable ?? 'no path' };
        if (target === 'bare') return bare && ep.captured && ep.path ? { origin: bare, path: ep.path, key: ep.key } : { skipped: `no captured sandbox response: ${ep.unavailable ?? 'unavailable'}` };
        const p = prism.get(ep.contract)!;
        if (typeof p === 'string') return { skipped: p };
        return { origin: p.origin, path: prismPath(p, ep.path ?? FALLBACK[ep.id]), key: ep.key || 'rjk_live_bench' };
      };
      const outcomes = new Map<string, Outcome[]>();
      for (let rep = 0; rep < repetitionsOf(ctx); rep++) {
        const order = TARGETS.map((_, i) => TARGETS[(i + rep) % TARGETS.length]);
        for (const ep of endpoints) {
          for (const target of order) {
            const w = where(ep, target);
            const out = 'skipped' in w ? w : await measureOnce(ctx, target, w.origin, { ...ep, key: w.key }, w.path);
            const k = `${ep.id}/${target}`;
            outcomes.set(k, [...(outcomes.get(k) ?? []), out]);
            if (isLoad(out)) (ep.runs[target] ??= []).push(out.rps);
          }
        }
      }
      for (const ep of endpoints) for (const target of TARGETS) ep.results[target] = medianRun(outcomes.get(`${ep.id}/${target}`) ?? []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await ctx.group.stopAll();
    return summarise(ctx, endpoints);
  },
};
