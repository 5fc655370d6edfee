// Throughput and latency under load (autocannon, N connections) of four endpoints, served five ways:
// the in-memory sandbox (a child process, rate limits lifted), the sandbox on PostgreSQL with one
// instance and with two instances of one shared sandbox (driven at once, half the connections each),
// `prism mock` on the same contract, and a bare node:http server returning the sandbox's own captured
// bytes (the ceiling). All servers stay up side by side; the runs are interleaved (endpoint by endpoint,
// the servers' order rotating each repetition) and each figure is the median of the repetitions, so a
// passing load spike on the shared machine hits every server alike. One server is under load at a time.
// The `postgres` section is the same rows without the bare server.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '../lib/children.js';
import { atLeast, errorMessage, figure, fmt, notMeasured, short, type Figure, type Table } from '../lib/figures.js';
import { request } from '../lib/http.js';
import {
  FULL_AUDIT_PAGE,
  JOBS,
  keyOf,
  loadEndpoints,
  prepareKeys,
  prepareSandbox,
  SCREENING,
  type EndpointPrep,
  type RowKeys,
} from '../lib/endpoints.js';
import { measureSplit, unsound, type LoadResult, type LoadSpec } from '../lib/load.js';
import { startPostgresSandboxes, type PostgresSandboxes } from '../lib/postgres.js';
import { prismPath, startPrism, PRISM_ARGS, type PrismChild } from '../lib/prism.js';
import { ROOT, startSandboxChild } from '../lib/sandbox.js';
import type { Section, SectionContext, SectionOutput } from '../lib/section.js';

type TargetName = 'sandbox' | 'postgres' | 'postgres2' | 'prism' | 'bare';

const SERVER_LABEL: Record<TargetName, string> = {
  sandbox: 'sandbox',
  postgres: 'postgres ×1',
  postgres2: 'postgres ×2',
  prism: 'prism',
  bare: 'bare',
};

interface Endpoint extends EndpointPrep {
  results: Partial<Record<TargetName, LoadResult | { skipped: string }>>;
  /** req/s of every repetition, per server, in run order. */
  runs: Partial<Record<TargetName, number[]>>;
}

type Outcome = LoadResult | { skipped: string };

/** One timed run of one endpoint on one server. */
async function measureOnce(
  ctx: SectionContext,
  target: TargetName,
  origins: string[],
  ep: Endpoint,
  path: string,
): Promise<Outcome> {
  const { connections, durationS, warmupS } = ctx.opts;
  const specs: LoadSpec[] = origins.map((origin) => ({
    origin,
    method: ep.method,
    path,
    headers: { authorization: `Bearer ${ep.key}` },
    ...(ep.body ? { body: ep.body } : {}),
  }));
  ctx.log(`  ${SERVER_LABEL[target].padEnd(11)} ${ep.method} ${path}`);
  try {
    return await measureSplit(specs, { connections, durationS, warmupS });
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

function summarise(
  ctx: SectionContext,
  prefix: string,
  targets: readonly TargetName[],
  endpoints: Endpoint[],
): SectionOutput {
  const figures: Figure[] = [];
  const table: Table = {
    title: `Load: ${ctx.opts.connections} connections, ${ctx.opts.warmupS} s warm-up then ${repetitionsOf(ctx)} interleaved ${ctx.opts.durationS} s runs per row; the median run is shown`,
    columns: [
      'Endpoint',
      'Server',
      'req/s',
      'p50 ms',
      'p99 ms',
      'bytes/resp',
      'non-2xx',
      'errors',
      'note',
      'req/s of each run',
    ],
    rows: [],
  };
  const shown = ROW_ORDER.filter((t) => targets.includes(t));
  for (const ep of endpoints) {
    for (const target of shown) {
      const r = ep.results[target];
      const problem = why(r);
      const each = (ep.runs[target] ?? []).map((v) => fmt(v, 0)).join(' / ');
      const server = SERVER_LABEL[target];
      if (isLoad(r))
        table.rows.push([
          ep.label,
          server,
          fmt(r.rps, 0),
          fmt(r.p50Ms, 2),
          fmt(r.p99Ms, 2),
          fmt(r.bytesPerResponse, 0),
          r.non2xx,
          r.errors + r.timeouts,
          short(problem ?? ''),
          each,
        ]);
      else table.rows.push([ep.label, server, '—', '—', '—', '—', '—', '—', short(problem ?? ''), each]);
    }
    const ratio = (one: TargetName, other: TargetName, id: string, target?: ReturnType<typeof atLeast>) => {
      const label = `${ep.label}: ${SERVER_LABEL[one]} / ${SERVER_LABEL[other]} req/s`;
      const [a, o] = [ep.results[one], ep.results[other]];
      const problem = why(a) ? `${SERVER_LABEL[one]}: ${why(a)}` : why(o) ? `${SERVER_LABEL[other]}: ${why(o)}` : null;
      if (problem || !isLoad(o) || !isLoad(a))
        return notMeasured(`${prefix}.${ep.id}.${id}`, label, '×', short(problem ?? 'not run'), target);
      return figure(
        `${prefix}.${ep.id}.${id}`,
        label,
        a.rps / o.rps,
        '×',
        target,
        `${fmt(a.rps, 0)} vs ${fmt(o.rps, 0)} req/s`,
      );
    };
    const get = ep.method === 'GET';
    // every GET at least 5× Prism and 0.6× the bare ceiling; the submit at least 3× Prism (the goal is 5×)
    if (has(targets, 'sandbox', 'prism'))
      figures.push(ratio('sandbox', 'prism', 'vsPrism', get ? atLeast(5, '≥ 5×') : atLeast(3, '≥ 3× (goal 5×)')));
    if (has(targets, 'sandbox', 'bare'))
      figures.push(ratio('sandbox', 'bare', 'vsBare', get ? atLeast(0.6, '≥ 0.6× (60%)') : undefined));
    // on PostgreSQL (one instance, two cores shared with the load generator) the submit at least matches Prism; the goal is twice
    if (has(targets, 'postgres', 'prism'))
      figures.push(ratio('postgres', 'prism', 'postgresVsPrism', get ? undefined : atLeast(1, '≥ 1× (goal 2×)')));
    if (has(targets, 'postgres2', 'prism')) figures.push(ratio('postgres2', 'prism', 'postgres2VsPrism'));
    if (has(targets, 'postgres', 'sandbox')) figures.push(ratio('postgres', 'sandbox', 'postgresVsMemory'));
    if (has(targets, 'postgres2', 'postgres')) figures.push(ratio('postgres2', 'postgres', 'postgres2VsPostgres'));
  }
  const data = endpoints.map((ep) => ({
    id: ep.id,
    label: ep.label,
    method: ep.method,
    path: ep.path,
    unavailable: ep.unavailable ?? null,
    results: ep.results,
    runs: ep.runs,
  }));
  return {
    figures,
    tables: [table],
    notes: [
      'The sandbox ran as `tsx src/cli.ts --no-rate-limits` in a child process (rate limits LIFTED, no self-check, no request log); autocannon ran in the parent process, one server under load at a time while the others idled.',
      ...(has(targets, 'postgres')
        ? [
            'postgres ×1: the same command with `--store` on a database of a throwaway local cluster (fsync off, as the tests run it). postgres ×2: two such instances of one shared sandbox on another database of that cluster, driven at once by two autocannon runs in the same parent process, half the connections each; their req/s are summed and their latencies pooled. All three sandboxes, the cluster and the load generator share the same cores.',
          ]
        : []),
      ...(targets.includes('prism')
        ? [
            `Prism: \`prism mock <contract> ${PRISM_ARGS.join(' ')}\` (static examples, no request log, single process: \`-m\` was not faster here), one instance per contract. Prism answers with the contract's example, which may be much smaller than the sandbox's real answer (compare bytes/resp).`,
          ]
        : []),
      ...(targets.includes('bare')
        ? [
            'The bare node:http server answers each route with the exact bytes the sandbox returned for the same request (a 20-job search, one job, a full audit page, a 201 submit result) and reads request bodies before answering.',
          ]
        : []),
      'Each submit carries a fresh idempotency key (autocannon setupRequest), so every request is a new charged screening request on a tenant with a large credit balance.',
      `Each row is the median of ${repetitionsOf(ctx)} runs, interleaved: endpoint by endpoint, each server in turn, the order of the servers rotating with each repetition. The load generator is single-threaded and shares the 2-core machine with the server, so the bare-node ceiling may be bounded by autocannon itself.`,
    ],
    data,
  };
}

const has = (targets: readonly TargetName[], ...t: TargetName[]) => t.every((x) => targets.includes(x));
const ROW_ORDER: readonly TargetName[] = ['sandbox', 'postgres', 'postgres2', 'prism', 'bare'];
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
  writeFileSync(
    routesFile,
    JSON.stringify(
      captured.map((ep) => ({
        method: ep.method,
        path: ep.path!.split('?')[0],
        status: ep.captured!.status,
        body: ep.captured!.body,
      })),
    ),
  );
  const port = await freePort();
  const bare = ctx.group.fork('bare node server', `${ROOT}bench/workers/bare-server.ts`, [String(port), routesFile], {
    cwd: ROOT,
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitFor(
    'the bare server',
    async () => ((await request('GET', origin + '/', { timeoutMs: 1000 })).status ? true : undefined),
    { timeoutMs: 30_000, child: bare },
  );
  return origin;
}

/** The sandboxes on PostgreSQL, made ready for the rows: their origins and keys, or why they were skipped. */
type PostgresTargets = Map<'postgres' | 'postgres2', { origins: string[]; keys: RowKeys } | string>;

async function preparePostgres(ctx: SectionContext): Promise<{ targets: PostgresTargets; stop(): Promise<void> }> {
  const targets: PostgresTargets = new Map();
  let pg: PostgresSandboxes;
  try {
    pg = await startPostgresSandboxes(ctx.group);
  } catch (err) {
    const why = `PostgreSQL sandboxes did not start: ${errorMessage(err)}`;
    ctx.log(`  ${why}`);
    targets.set('postgres', why).set('postgres2', why);
    return { targets, stop: async () => {} };
  }
  for (const [target, instances] of [
    ['postgres', [pg.one]],
    ['postgres2', pg.two],
  ] as const) {
    try {
      ctx.log(`  ${SERVER_LABEL[target]}: preparing tenants`);
      targets.set(target, { origins: instances.map((i) => i.baseUrl), keys: await prepareKeys(instances[0], ctx.log) });
    } catch (err) {
      targets.set(target, `not prepared: ${errorMessage(err)}`);
    }
  }
  return { targets, stop: () => pg.stop() };
}

function loadSection(id: string, title: string, targets: readonly TargetName[]): Section {
  const postgres = has(targets, 'postgres') || has(targets, 'postgres2');
  return {
    id,
    title,
    budgetS: (o) => 4 * targets.length * (o.repetitions ?? 3) * (o.durationS + o.warmupS + 3) + (postgres ? 420 : 240),
    async run(ctx) {
      const endpoints: Endpoint[] = loadEndpoints().map((ep) => ({ ...ep, results: {}, runs: {} }));
      ctx.log(`starting the servers: ${targets.map((t) => SERVER_LABEL[t]).join(', ')}`);
      const sb = await startSandboxChild(ctx.group);
      await prepareSandbox(ctx.log, endpoints, sb);
      const dir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
      const pg = postgres ? await preparePostgres(ctx) : null;
      try {
        // the ceiling, on the very bytes the sandbox produced
        const bare = targets.includes('bare') ? await startBare(ctx, endpoints, dir) : null;
        // Prism, one instance per contract
        const prism = new Map<string, PrismChild | string>();
        for (const contract of targets.includes('prism') ? [JOBS, SCREENING] : []) {
          try {
            prism.set(contract, await startPrism(ctx.group, contract, '/', 'bench'));
          } catch (err) {
            prism.set(contract, `Prism did not start: ${errorMessage(err)}`);
          }
        }
        const where = (
          ep: Endpoint,
          target: TargetName,
        ): { origins: string[]; path: string; key: string } | { skipped: string } => {
          if (target === 'sandbox')
            return ep.path
              ? { origins: [sb.baseUrl], path: ep.path, key: ep.key }
              : { skipped: ep.unavailable ?? 'no path' };
          if (target === 'bare')
            return bare && ep.captured && ep.path
              ? { origins: [bare], path: ep.path, key: ep.key }
              : { skipped: `no captured sandbox response: ${ep.unavailable ?? 'unavailable'}` };
          if (target === 'postgres' || target === 'postgres2') {
            const t = pg!.targets.get(target)!;
            if (typeof t === 'string') return { skipped: t };
            return ep.path
              ? { origins: t.origins, path: ep.path, key: keyOf(ep, t.keys) }
              : { skipped: `no path from the in-memory sandbox: ${ep.unavailable ?? 'unavailable'}` };
          }
          const p = prism.get(ep.contract)!;
          if (typeof p === 'string') return { skipped: p };
          return {
            origins: [p.origin],
            path: prismPath(p, ep.path ?? FALLBACK[ep.id]),
            key: ep.key || 'rjk_live_bench',
          };
        };
        const outcomes = new Map<string, Outcome[]>();
        for (let rep = 0; rep < repetitionsOf(ctx); rep++) {
          const order = targets.map((_, i) => targets[(i + rep) % targets.length]);
          for (const ep of endpoints) {
            for (const target of order) {
              const w = where(ep, target);
              const out = 'skipped' in w ? w : await measureOnce(ctx, target, w.origins, { ...ep, key: w.key }, w.path);
              const k = `${ep.id}/${target}`;
              outcomes.set(k, [...(outcomes.get(k) ?? []), out]);
              if (isLoad(out)) (ep.runs[target] ??= []).push(out.rps);
            }
          }
        }
        for (const ep of endpoints)
          for (const target of targets) ep.results[target] = medianRun(outcomes.get(`${ep.id}/${target}`) ?? []);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        await ctx.group.stopAll();
        await pg?.stop();
      }
      return summarise(ctx, id, targets, endpoints);
    },
  };
}

export const throughputSection = loadSection('http', 'HTTP throughput and latency', [
  'sandbox',
  'postgres',
  'postgres2',
  'bare',
  'prism',
]);
/** The same rows on the sandboxes and Prism alone (`--only postgres`): no bare ceiling. */
export const postgresSection = loadSection('postgres', 'HTTP throughput and latency on PostgreSQL', [
  'sandbox',
  'postgres',
  'postgres2',
  'prism',
]);
