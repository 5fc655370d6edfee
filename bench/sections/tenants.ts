// Issue 24's figures for a shared sandbox on PostgreSQL with many tenants, measured black-box: every
// sandbox is the CLI in a child process with `--store postgres://…`, driven through HTTP and the
// control API, so the same section measures any storage behind `--store`. Runs only when named
// (`--only tenants`); every database lives on one throwaway cluster.
// - restart: process start to the first 200 of a keyed search, on a database holding N recorded calls
//   over T tenants, beside the same on an almost empty database (one tenant); the median of a few
//   starts, the databases' starts interleaved;
// - memory: resident memory of an instance started on a database where many tenants have history,
//   while ten of them are active;
// - capacity: submits per second over 50 tenants on one instance and on two instances of one shared
//   sandbox on the same database (driven at once, half the connections each);
// - burst: a second tenant's steady stream of calls (its own process, open loop), alone and during a
//   first tenant's burst at full rate; p50 and p99 compared;
// - submit vs Prism: submit on PostgreSQL (one instance, one tenant) beside Prism's mock;
// - moves: tenants whose calls went to one instance sent to the other, which skipped their steps, while a third
//   tenant's steady stream of calls runs there: how long the moved tenants' first calls took, and that stream's longest
//   wait (D-175);
// - follow: every tenant's submits sent to one instance while a tenant's sporadic searches go to the other: how long
//   those took (D-191);
// - take-over: the second instance killed while a third tenant's steady stream of calls runs on the first: how long
//   until the first has taken up the killed instance's tenants, and that stream's longest wait (D-188);
// - drop: on an instance that keeps one idle tenant, a tenant with a long history dropped from memory and loaded
//   by its next call, while a second tenant's steady stream of calls runs: that stream's longest wait (D-160).

import pg from 'pg';
import { startTestDatabase, type TestDatabase } from '../../test/support/postgres.js';
import { waitFor } from '../lib/children.js';
import {
  atLeast,
  atMost,
  below,
  errorMessage,
  figure,
  fmt,
  notMeasured,
  short,
  type Figure,
  type Table,
} from '../lib/figures.js';
import { SCREENING } from '../lib/endpoints.js';
import { createTenants, seedHistories, verifyHistory, type History, type HistoryTenant } from '../lib/history.js';
import { groupMembers, rssOf, sampleGroupRss } from '../lib/hostile.js';
import { expectStatus, request } from '../lib/http.js';
import { measure, measureSplit, unsound, type LoadResult, type LoadSpec } from '../lib/load.js';
import { prismPath, startPrism } from '../lib/prism.js';
import {
  createBenchTenant,
  residencyOf,
  snapshotsQuiet,
  SETTLED_AFTER_MS,
  settleRouting,
  type Settling,
  spawnSandboxChild,
  startSandboxChild,
  submitBody,
  type SandboxChild,
} from '../lib/sandbox.js';
import type { Section, SectionContext } from '../lib/section.js';
import { summarize } from '../lib/stats.js';
import { runWorker } from '../lib/worker.js';
import type { ProbeArgs, ProbeResult } from '../workers/probe.js';

const MB = 1024 * 1024;
const SEARCH = '/api/v1/jobs?q=engineer';
const SUBMIT = '/api/screening/v1/screen';
const USAGE = '/api/screening/v1/usage';
/** A clean shutdown may write state (snapshots) before it exits: it gets this long before SIGKILL. */
const SHUTDOWN_GRACE_MS = 120_000;
/** A start on a large database may replay a long history. */
const START_TIMEOUT_MS = 600_000;
const ISSUE_CALLS = 1_000_000;
/** Starts of one database stop early once they add up to this (a long replay is timed fewer times). */
const STARTS_BUDGET_MS = 150_000;

/**
 * A probe's longest wait and what its detail says of its calls: a call that failed waited until it failed (10 s for
 * one that timed out), so it counts as long as it waited; its answered calls' median beside it.
 */
export function probeWait(result: ProbeResult): { longest: number; p50: number; calls: number; said: string } {
  const { count: calls, p50, max } = summarize(result.latenciesMs);
  const failedLongest = result.failedAfterMs.length ? Math.max(...result.failedAfterMs) : 0;
  const longest = Math.max(calls ? max : 0, failedLongest);
  const failed = result.failures.length
    ? `, ${result.failures.length} failed (the longest after ${fmt(failedLongest, 0)} ms: ${short(result.failures[result.failedAfterMs.indexOf(failedLongest)] ?? result.failures[0])})`
    : '';
  return { longest, p50, calls, said: `its median ${fmt(p50, 1)} ms over ${calls} answered calls${failed}` };
}

interface Output {
  figures: Figure[];
  tables: Table[];
  notes: string[];
  data: Record<string, unknown>;
}

/** An instance on `url`; every instance of one database names the same public URL (part of its shared settings). */
function onDatabase(ctx: SectionContext, url: string, publicUrl: string | null, name: string) {
  return startSandboxChild(ctx.group, {
    name,
    args: ['--store', url],
    ...(publicUrl ? { env: { SANDBOX_PUBLIC_URL: publicUrl } } : {}),
  });
}

/** Spawns an instance and times spawn → the first 200 answer to `key`'s search. */
async function timedStart(
  ctx: SectionContext,
  url: string,
  publicUrl: string,
  key: string,
  name: string,
  env: Record<string, string> = {},
): Promise<{ ms: number; sb: SandboxChild }> {
  const t0 = performance.now();
  const sb = await spawnSandboxChild(ctx.group, {
    name,
    args: ['--store', url],
    env: { SANDBOX_PUBLIC_URL: publicUrl, ...env },
  });
  const ms = await waitFor(
    `${name} to answer a keyed search`,
    async () => {
      const res = await request('GET', sb.baseUrl + SEARCH, { token: key, timeoutMs: 5_000 });
      return res.status === 200 ? performance.now() - t0 : undefined;
    },
    { timeoutMs: START_TIMEOUT_MS, intervalMs: 20, child: sb.child },
  );
  return { ms, sb };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};

/** The database's size on disk (whatever its tables). */
async function databaseMb(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ b: string }>(`SELECT pg_database_size(current_database()) AS b`);
    return Number(rows[0].b) / MB;
  } finally {
    await c.end();
  }
}

/** The largest resident set of the instance's process group (tsx starts node as a child). */
const rssNow = (sb: SandboxChild) => Math.max(0, ...groupMembers(sb.child.proc.pid!).map(rssOf));

/**
 * A history copied in SQL was never seen by a running instance, where one made live would have had
 * snapshots taken along the way: on a storage that keeps snapshots (a `sandbox_snapshots` table), the
 * copied database gets one untimed start and clean shutdown first. Its seconds, or null when skipped.
 */
async function settle(
  ctx: SectionContext,
  url: string,
  publicUrl: string,
  history: History,
  name: string,
): Promise<number | null> {
  if (history.method !== 'sql') return null;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let snapshots: boolean;
  try {
    snapshots = (await c.query<{ has: boolean }>(`SELECT to_regclass('sandbox_snapshots') IS NOT NULL AS has`)).rows[0]
      .has;
  } finally {
    await c.end();
  }
  if (!snapshots) return null;
  ctx.log(`  ${name}: one untimed start and clean shutdown, so the storage can snapshot the copied history`);
  const t0 = performance.now();
  // holding every tenant: the copied history has no snapshot, and its steps go round the tenants one by one, so an
  // instance holding only some would load and drop a tenant at every step (D-150); its clean stop's snapshot lists
  // the tenants a start loads at once all the same
  const { sb } = await timedStart(ctx, url, publicUrl, history.tenants[0].apiKey, `sandbox (settling ${name})`, {
    SANDBOX_RESIDENT_TENANTS: '0',
  });
  await ctx.group.stop(sb.child, SHUTDOWN_GRACE_MS);
  // what the timed starts load: the snapshot its clean stop wrote (said, and the instance's output when there is none)
  const after = new pg.Client({ connectionString: url });
  await after.connect();
  try {
    const { rows } = await after.query<{ seq: string; parts: number | null }>(
      `SELECT seq, parts FROM sandbox_snapshots ORDER BY seq DESC LIMIT 1`,
    );
    const head = (await after.query<{ seq: string }>(`SELECT max(seq) AS seq FROM sandbox_log`)).rows[0].seq;
    ctx.log(
      `  ${name}: ${rows.length ? `snapshot of step ${rows[0].seq} (${rows[0].parts} parts)` : 'NO snapshot'}, log head ${head}`,
    );
    if (!rows.length) ctx.log(sb.child.tail());
  } finally {
    await after.end();
  }
  return (performance.now() - t0) / 1000;
}

// ---------------------------------------------------------------------------------------------------
// restart

interface RestartDb {
  label: string;
  url: string;
  publicUrl: string;
  calls: number;
  history: History | null;
  key: string;
  seedS: number;
  /** The untimed first start after a copy, on a storage that keeps snapshots. */
  settleS: number | null;
  sizeMb: number;
  startsMs: number[];
  proof: string | null;
}

async function restart(ctx: SectionContext, pgc: TestDatabase, out: Output): Promise<void> {
  const { historyTenants, historyCalls, restartStarts } = ctx.opts;
  const dbs: RestartDb[] = [];
  // the baseline: one tenant, nothing else
  {
    const url = await pgc.another();
    const sb = await onDatabase(ctx, url, null, 'sandbox (PostgreSQL, empty database)');
    const t0 = performance.now();
    const [tenant] = await createTenants(sb, 1);
    const seedS = (performance.now() - t0) / 1000;
    await ctx.group.stop(sb.child, SHUTDOWN_GRACE_MS);
    dbs.push({
      label: 'empty (one tenant)',
      url,
      publicUrl: sb.baseUrl,
      calls: 1,
      history: null,
      key: tenant.apiKey,
      seedS,
      settleS: null,
      sizeMb: await databaseMb(url),
      startsMs: [],
      proof: null,
    });
  }
  for (const perTenant of historyCalls) {
    const url = await pgc.another();
    const sb = await onDatabase(ctx, url, null, `sandbox (PostgreSQL, seeding ${perTenant} calls per tenant)`);
    ctx.log(`  restart: seeding ${historyTenants} tenants × ${perTenant} calls`);
    const t0 = performance.now();
    const history = await seedHistories(
      sb,
      url,
      () => ctx.group.stop(sb.child, SHUTDOWN_GRACE_MS),
      { tenants: historyTenants, callsPerTenant: perTenant },
      ctx.log,
    );
    const seedS = (performance.now() - t0) / 1000;
    const calls = historyTenants * perTenant;
    const label = `${fmt(calls, 0)} calls over ${fmt(historyTenants, 0)} tenants`;
    dbs.push({
      label,
      url,
      publicUrl: sb.baseUrl,
      calls,
      history,
      key: history.tenants[history.tenants.length - 1].apiKey,
      seedS,
      settleS: await settle(ctx, url, sb.baseUrl, history, label),
      sizeMb: await databaseMb(url),
      startsMs: [],
      proof: null,
    });
  }
  for (let rep = 0; rep < restartStarts; rep++) {
    for (let i = 0; i < dbs.length; i++) {
      const d = dbs[(i + rep) % dbs.length];
      if (d.startsMs.reduce((a, b) => a + b, 0) >= STARTS_BUDGET_MS) continue;
      const { ms, sb } = await timedStart(ctx, d.url, d.publicUrl, d.key, `sandbox (restart on ${d.label})`);
      d.startsMs.push(ms);
      ctx.log(`  restart on ${d.label}: first answer after ${fmt(ms, 0)} ms`);
      if (d.history && d.proof === null) {
        // the proof that the seeded history replays: the last tenant (copied) and the template (recorded)
        const last = d.history.tenants[d.history.tenants.length - 1];
        d.proof = [
          await verifyHistory(sb.baseUrl, d.history, last),
          await verifyHistory(sb.baseUrl, d.history, d.history.tenants[0]),
        ].join('; ');
      }
      await ctx.group.stop(sb.child, SHUTDOWN_GRACE_MS);
    }
  }
  const empty = dbs[0];
  const emptyMs = median(empty.startsMs);
  out.tables.push({
    title: `Restart: process start (tsx) to the first 200 answer to a keyed search; the median of up to ${restartStarts} starts per database, interleaved (a database whose starts add up to ${STARTS_BUDGET_MS / 1000} s is not started again)`,
    columns: [
      'database',
      'recorded calls',
      'size MB',
      'seed s',
      'how seeded',
      'untimed first start s',
      'median start ms',
      '× empty',
      'each start ms',
      'replay proof',
    ],
    rows: dbs.map((d) => [
      d.label,
      d.calls,
      fmt(d.sizeMb, 0),
      fmt(d.seedS, 1),
      d.history
        ? `${d.history.method === 'sql' ? 'template through HTTP, copied per tenant in SQL' : 'every tenant through HTTP'} (create ${fmt(d.history.createS, 1)} s, template ${fmt(d.history.templateS, 1)} s, copy ${fmt(d.history.copyS, 1)} s)`
        : 'one tenant through the control API',
      d.settleS === null ? '—' : fmt(d.settleS, 1),
      fmt(median(d.startsMs), 0),
      d === empty ? '1' : fmt(median(d.startsMs) / emptyMs, 2),
      d.startsMs.map((v) => fmt(v, 0)).join(' / '),
      d.proof ?? '—',
    ]),
  });
  const sized = dbs.slice(1);
  out.figures.push(figure('tenants.restart.empty', 'Restart on an empty database: first answer', emptyMs, 'ms'));
  sized.forEach((d, i) => {
    const largest = i === sized.length - 1;
    const full = d.calls >= ISSUE_CALLS;
    out.figures.push(
      figure(
        `tenants.restart.${d.calls}`,
        `Restart with ${d.label}: first answer / empty database${largest && !full ? ` (below the issue's ${fmt(ISSUE_CALLS, 0)} calls)` : ''}`,
        median(d.startsMs) / emptyMs,
        '×',
        largest ? atMost(2, '≤ 2× the empty database') : undefined,
        `${fmt(median(d.startsMs), 0)} vs ${fmt(emptyMs, 0)} ms; seeded in ${fmt(d.seedS, 1)} s`,
      ),
    );
  });
  if (sized.length >= 2) {
    // the trend between the two largest sizes, for judging the issue's size when it was not measured
    const [a, b] = sized.slice(-2);
    const perCallMs = (median(b.startsMs) - median(a.startsMs)) / (b.calls - a.calls);
    out.figures.push(
      figure(
        'tenants.restart.perMillion',
        `Restart: start time added per ${fmt(ISSUE_CALLS, 0)} recorded calls (slope between the two largest databases)`,
        perCallMs * ISSUE_CALLS,
        'ms',
      ),
    );
  }
  out.data.restart = dbs.map(({ url: _url, key: _key, ...d }) => ({
    ...d,
    history: d.history ? { ...d.history, tenants: d.history.tenants.length } : null,
  }));
}

// ---------------------------------------------------------------------------------------------------
// memory

async function memory(ctx: SectionContext, pgc: TestDatabase, out: Output): Promise<void> {
  const { memoryTenants, memoryCalls, durationS } = ctx.opts;
  const url = await pgc.another();
  const seeder = await onDatabase(ctx, url, null, 'sandbox (PostgreSQL, seeding the memory database)');
  ctx.log(`  memory: seeding ${memoryTenants} tenants × ${memoryCalls} calls`);
  const t0 = performance.now();
  const history = await seedHistories(
    seeder,
    url,
    () => ctx.group.stop(seeder.child, SHUTDOWN_GRACE_MS),
    { tenants: memoryTenants, callsPerTenant: memoryCalls },
    ctx.log,
  );
  const seedS = (performance.now() - t0) / 1000;
  const settleS = await settle(ctx, url, seeder.baseUrl, history, 'the memory database');
  const active = history.tenants.slice(-10);
  const { ms, sb } = await timedStart(ctx, url, seeder.baseUrl, active[0].apiKey, 'sandbox (memory)');
  const proof = await verifyHistory(sb.baseUrl, history, active[0]);
  const rssAfterStart = rssNow(sb);
  const rss = sampleGroupRss(sb.child.proc.pid!);
  const keys = active.map((t) => t.apiKey);
  const runs: Record<string, LoadResult | string> = {};
  for (const [id, spec] of [
    ['search', { origin: sb.baseUrl, method: 'GET', path: SEARCH, bearers: keys }],
    ['submit', { origin: sb.baseUrl, method: 'POST', path: SUBMIT, bearers: keys, body: () => submitBody('memory') }],
  ] as [string, LoadSpec][]) {
    try {
      runs[id] = await measure(spec, { connections: ctx.opts.connections, durationS, warmupS: 0 });
    } catch (err) {
      runs[id] = errorMessage(err);
    }
  }
  const peak = rss.stop();
  const rssAfter = rssNow(sb);
  const label = `Resident memory with ${fmt(memoryTenants, 0)} tenants with history (${fmt(history.calls, 0)} recorded calls), 10 active: peak`;
  const target = below(400, '< 400 MB');
  out.figures.push(
    peak > 0
      ? figure('tenants.memory.rss', label, peak / MB, 'MB', target, `after the start ${fmt(rssAfterStart / MB, 0)} MB`)
      : notMeasured('tenants.memory.rss', label, 'MB', 'no resident size could be read', target),
  );
  out.tables.push({
    title: `Memory: an instance started on ${fmt(memoryTenants, 0)} tenants × ${memoryCalls} calls, then ${durationS} s of searches and ${durationS} s of submits spread over 10 of the tenants (${ctx.opts.connections} connections)`,
    columns: [
      'seed s',
      'untimed first start s',
      'start ms',
      'RSS after start MB',
      'peak RSS MB',
      'RSS after traffic MB',
      'traffic',
      'replay proof',
    ],
    rows: [
      [
        fmt(seedS, 1),
        settleS === null ? '—' : fmt(settleS, 1),
        fmt(ms, 0),
        fmt(rssAfterStart / MB, 0),
        fmt(peak / MB, 0),
        fmt(rssAfter / MB, 0),
        Object.entries(runs)
          .map(([id, r]) =>
            typeof r === 'string'
              ? `${id}: ${short(r, 80)}`
              : `${id}: ${fmt(r.rps, 0)} req/s${unsound(r) ? ` (${short(unsound(r)!, 80)})` : ''}`,
          )
          .join('; '),
        proof,
      ],
    ],
  });
  out.data.memory = {
    tenants: memoryTenants,
    callsPerTenant: memoryCalls,
    calls: history.calls,
    method: history.method,
    seedS,
    settleS,
    startMs: ms,
    rssAfterStartBytes: rssAfterStart,
    peakRssBytes: peak,
    rssAfterBytes: rssAfter,
    runs,
  };
  await ctx.group.stop(sb.child, SHUTDOWN_GRACE_MS);
}

// ---------------------------------------------------------------------------------------------------
// capacity, burst, submit vs Prism: one database, one or two instances

const isLoad = (r: LoadResult | string | undefined): r is LoadResult => typeof r === 'object';

/** The process groups of bench children (each leads its own): whose CPU a load row reports. */
function groupsOf(children: readonly { child: { proc: { pid?: number } } }[]): number[] {
  return children.flatMap((c) => (c.child.proc.pid === undefined ? [] : [c.child.proc.pid]));
}

function loadRow(label: string, r: LoadResult | string | undefined, each: number[]): (string | number)[] {
  if (!isLoad(r)) return [label, '—', '—', '—', '—', '—', short(r ?? 'not run'), ''];
  return [
    label,
    fmt(r.rps, 0),
    fmt(r.p50Ms, 2),
    fmt(r.p99Ms, 2),
    r.cpu ? fmt(r.cpu.serverUs, 0) : '—',
    r.cpu ? fmt(r.cpu.generatorUs, 0) : '—',
    short(unsound(r) ?? ''),
    each.map((v) => fmt(v, 0)).join(' / '),
  ];
}

function medianOf(runs: (LoadResult | string)[]): LoadResult | string {
  const ok = runs.filter(isLoad).sort((a, b) => a.rps - b.rps);
  return ok.length ? ok[Math.floor((ok.length - 1) / 2)] : (runs[0] ?? 'not run');
}

function ratioFigure(
  id: string,
  label: string,
  a: LoadResult | string,
  b: LoadResult | string,
  target: ReturnType<typeof atLeast>,
): Figure {
  const problem = !isLoad(a) ? a : (unsound(a) ?? (!isLoad(b) ? b : unsound(b)));
  if (problem || !isLoad(a) || !isLoad(b)) return notMeasured(id, label, '×', short(problem ?? 'not run'), target);
  return figure(id, label, a.rps / b.rps, '×', target, `${fmt(a.rps, 0)} vs ${fmt(b.rps, 0)} req/s`);
}

async function shared(ctx: SectionContext, pgc: TestDatabase, out: Output): Promise<void> {
  const { connections, durationS, warmupS } = ctx.opts;
  const repetitions = ctx.opts.repetitions ?? 3;
  const url = await pgc.another();
  const first = await onDatabase(ctx, url, null, 'sandbox (PostgreSQL, instance 1 of 2)');
  const second = await onDatabase(ctx, url, first.baseUrl, 'sandbox (PostgreSQL, instance 2 of 2)');
  ctx.log('  capacity: creating 50 tenants');
  const tenants: HistoryTenant[] = [];
  for (let i = 0; i < 50; i += 10)
    tenants.push(
      ...(await Promise.all(
        Array.from({ length: 10 }, (_, j) => createBenchTenant(first, { name: `capacity ${i + j}` })),
      )),
    );
  const keys = tenants.map((t) => t.apiKey);
  const spec = (origin: string, bearers: readonly string[] = keys): LoadSpec => ({
    origin,
    method: 'POST',
    path: SUBMIT,
    bearers,
    body: () => submitBody('capacity'),
  });

  // 1. one instance vs two instances of one shared sandbox, interleaved: each tenant's calls sent to one of the two
  // (`two`, as a balancer that routes by key does: each instance skips the other's tenants' steps, D-172), and every
  // tenant's calls spread over both (`spread`: both apply every step); and one instance sent half the connections
  // (`half`: what each of the two is sent), which tells the cost of smaller batches from the cost of sharing (D-179)
  const KINDS = ['one', 'two', 'spread', 'half'] as const;
  type Kind = (typeof KINDS)[number];
  const capacity: Record<Kind, (LoadResult | string)[]> = { one: [], two: [], spread: [], half: [] };
  const settled: Record<Kind, Settling[]> = { one: [], two: [], spread: [], half: [] };
  const half = Math.ceil(keys.length / 2);
  const halfConnections = Math.ceil(connections / 2);
  const specsOf: Record<Kind, () => LoadSpec[]> = {
    one: () => [spec(first.baseUrl)],
    two: () => [spec(first.baseUrl, keys.slice(0, half)), spec(second.baseUrl, keys.slice(half))],
    spread: () => [spec(first.baseUrl), spec(second.baseUrl)],
    half: () => [spec(first.baseUrl)],
  };
  const oneInstance = (k: Kind) => k === 'one' || k === 'half';
  for (let rep = 0; rep < repetitions; rep++) {
    for (const which of rep % 2 ? [...KINDS].reverse() : KINDS) {
      ctx.log(
        `  capacity: ${oneInstance(which) ? `one instance${which === 'half' ? `, ${halfConnections} connections` : ''}` : `two instances (${which})`}, submits over 50 tenants`,
      );
      try {
        const conns = which === 'half' ? halfConnections : connections;
        // untimed first: an instance left idle applies what the other wrote meanwhile, and the tenants this routing
        // moved between the instances (the previous run routed them otherwise) are loaded, replayed and dropped under
        // load: the run measures the routing, a move is the moves part's figure (D-179)
        const settling = await settleRouting([first, second], () =>
          measureSplit(specsOf[which](), { connections: conns, durationS: 1, warmupS: 0 }),
        );
        settled[which].push(settling);
        const cpuOf = groupsOf(oneInstance(which) ? [first] : [first, second]);
        capacity[which].push(await measureSplit(specsOf[which](), { connections: conns, durationS, warmupS, cpuOf }));
      } catch (err) {
        capacity[which].push(errorMessage(err));
      }
    }
  }
  // what each run waited for, untimed: the idle instance's catch-up, then the routing's tenants settled
  const untimed = (k: Kind) =>
    `before each run, untimed: caught up in ${settled[k].map((v) => fmt(v.catchUpMs, 0)).join(' / ')} ms, tenants settled (none loaded, dropped or replaying for ${fmt(SETTLED_AFTER_MS / 1000, 0)} s) in ${settled[k].map((v) => `${fmt(v.ms / 1000, 1)} s${v.settled ? '' : ' (not settled: its bound)'}`).join(' / ')}`;
  await follow(ctx, first, second, out);
  await moves(ctx, first, second, keys.slice(half), specsOf.two, out);
  await takeOver(ctx, first, second, specsOf.two, out);
  await ctx.group.stop(second.child, SHUTDOWN_GRACE_MS);
  const one = medianOf(capacity.one);
  const two = medianOf(capacity.two);
  const spread = medianOf(capacity.spread);
  out.figures.push(
    ratioFigure(
      'tenants.capacity.twoVsOne',
      "Submits over 50 tenants: two instances (each tenant's calls to one) / one instance req/s",
      two,
      one,
      atLeast(1, '≥ 1×'),
    ),
  );

  // 2. a second tenant's calls, alone and during a first tenant's burst
  const [burster, prober] = [
    await createBenchTenant(first, { name: 'burst' }),
    await createBenchTenant(first, { name: 'probe' }),
  ];
  const probeS = Math.max(5, durationS * 2);
  // enough calls for their p99 to hold still: at 20 a second (about 600 calls a phase, its p99 the sixth slowest) the
  // ratio of one code read 1.15-2.00× from run to run; at 100, 1.87-2.21× (D-195)
  const probeRate = 100;
  const probe = (): Promise<ProbeResult> =>
    runWorker<ProbeResult>(
      ctx.group,
      'probe (second tenant)',
      'probe.ts',
      {
        url: first.baseUrl + SEARCH,
        apiKey: prober.apiKey,
        ratePerS: probeRate,
        durationS: probeS,
      } satisfies ProbeArgs,
      { timeoutMs: (probeS + 60) * 1000 },
    );
  const phases: Record<'alone' | 'burst', number[]> = { alone: [], burst: [] };
  // how late the probe sent a call in each phase: its own process held up (the two cores are shared with the load
  // generator), which its latencies do not count (D-195)
  const late: Record<'alone' | 'burst', number[]> = { alone: [], burst: [] };
  // each run's p99 beside the pooled one: how far one run's figure is from another's, of the same code on the same
  // machine (the pooled alone p99 read 6.6 to 128 ms from run to run of the part, D-200)
  const p99s: Record<'alone' | 'burst', number[]> = { alone: [], burst: [] };
  const failures: string[] = [];
  const bursts: (LoadResult | string)[] = [];
  // one untimed run first: the capacity runs served only submits, so the searches' code and caches are cold, and
  // the first phase, an alone one, would otherwise carry that into the baseline (a dev script, 20 searches a second:
  // the first alone phase's p99 read 21-23 ms, the later ones 9.5-14.3 ms)
  const burstSpec: LoadSpec = {
    origin: first.baseUrl,
    method: 'POST',
    path: SUBMIT,
    headers: { authorization: `Bearer ${burster.apiKey}` },
    body: () => submitBody('burst'),
  };
  // the first instance's snapshot of what the parts before changed (the tenants moved and taken up: seconds of a core,
  // and a collector's pass over hundreds of megabytes) is written before the phases, so that it lands in neither
  // (D-189): an untimed burst makes it due, then the instance is left until it writes nothing for 2 s
  ctx.log("  burst: the first tenant's burst once, untimed, then the first instance's snapshots written");
  await measure(burstSpec, { connections, durationS, warmupS: 0 });
  const quiet = await snapshotsQuiet(first);
  ctx.log("  burst: the second tenant's stream once, untimed (warm-up)");
  await probe();
  for (let rep = 0; rep < repetitions; rep++) {
    for (const phase of rep % 2 ? (['burst', 'alone'] as const) : (['alone', 'burst'] as const)) {
      ctx.log(`  burst: second tenant's stream ${phase === 'alone' ? 'alone' : "during the first tenant's burst"}`);
      let result: ProbeResult;
      if (phase === 'alone') result = await probe();
      else {
        // the burst covers the probe's whole run, its worker's start-up included
        const burst = measure(burstSpec, { connections, durationS: probeS + 8, warmupS: 0 }).catch((err: unknown) =>
          errorMessage(err),
        );
        await new Promise((r) => setTimeout(r, 1000));
        result = await probe();
        bursts.push(await burst);
      }
      phases[phase].push(...result.latenciesMs);
      if (result.latenciesMs.length) p99s[phase].push(summarize(result.latenciesMs).p99);
      late[phase].push(result.maxLateMs);
      failures.push(...result.failures);
    }
  }
  const alone = summarize(phases.alone);
  const during = summarize(phases.burst);
  const burstRps = bursts.filter(isLoad).map((r) => r.rps);
  for (const q of ['p50', 'p99'] as const) {
    const label = `Second tenant's ${q} during a first tenant's burst / alone`;
    const target = atMost(1.5, '≤ 1.5×');
    out.figures.push(
      alone.count && during.count
        ? figure(
            `tenants.burst.${q}`,
            label,
            during[q] / alone[q],
            '×',
            target,
            `${fmt(during[q], 1)} vs ${fmt(alone[q], 1)} ms`,
          )
        : notMeasured(`tenants.burst.${q}`, label, '×', short(failures[0] ?? 'no calls answered'), target),
    );
  }

  // 3. submit on PostgreSQL (one instance, one tenant) beside Prism's mock
  const submitTenant = await createBenchTenant(first, { name: 'submit' });
  const prism = await startPrism(ctx.group, SCREENING, '/', 'bench').catch((err: unknown) => errorMessage(err));
  const versus: Record<'postgres' | 'prism', (LoadResult | string)[]> = { postgres: [], prism: [] };
  for (let rep = 0; rep < repetitions; rep++) {
    for (const which of rep % 2 ? (['prism', 'postgres'] as const) : (['postgres', 'prism'] as const)) {
      ctx.log(`  submit: ${which === 'postgres' ? 'PostgreSQL ×1' : 'Prism'}`);
      if (which === 'prism' && typeof prism === 'string') {
        versus.prism.push(`Prism did not start: ${prism}`);
        continue;
      }
      const target =
        which === 'postgres'
          ? { origin: first.baseUrl, path: SUBMIT, key: submitTenant.apiKey }
          : typeof prism === 'string'
            ? null
            : { origin: prism.origin, path: prismPath(prism, SUBMIT), key: 'rjk_live_bench' };
      try {
        versus[which].push(
          await measure(
            {
              origin: target!.origin,
              method: 'POST',
              path: target!.path,
              headers: { authorization: `Bearer ${target!.key}` },
              body: () => submitBody('versus'),
            },
            {
              connections,
              durationS,
              warmupS,
              cpuOf: groupsOf(which === 'postgres' ? [first] : typeof prism === 'string' ? [] : [prism]),
            },
          ),
        );
      } catch (err) {
        versus[which].push(errorMessage(err));
      }
    }
  }
  const pgSubmit = medianOf(versus.postgres);
  const prismSubmit = medianOf(versus.prism);
  out.figures.push(
    ratioFigure(
      'tenants.submit.postgresVsPrism',
      'Submit (new key each): PostgreSQL ×1 / Prism req/s',
      pgSubmit,
      prismSubmit,
      atLeast(2, '≥ 2×'),
    ),
  );
  const runsOf = (rs: (LoadResult | string)[]) => rs.filter(isLoad).map((r) => r.rps);
  out.tables.push({
    title: `Load on one database: ${connections} connections, ${warmupS} s warm-up then ${repetitions} interleaved ${durationS} s runs per row, the median run shown (two instances: half the connections each, req/s summed, latencies pooled); CPU per answered request over that run: the servers' process groups (two instances summed; Prism with its forked server; PostgreSQL's own processes not counted) and the load generator's, a gauge of how fast the machine ran meanwhile`,
    columns: [
      'row',
      'req/s',
      'p50 ms',
      'p99 ms',
      'server CPU µs/req',
      'load generator CPU µs/req',
      'note',
      'req/s of each run',
    ],
    rows: [
      loadRow(`submits over 50 tenants, one instance (${untimed('one')})`, one, runsOf(capacity.one)),
      loadRow(
        `submits over 50 tenants, two instances, each tenant's calls to one (${untimed('two')})`,
        two,
        runsOf(capacity.two),
      ),
      loadRow(
        `submits over 50 tenants, two instances, every tenant's calls to both (${untimed('spread')})`,
        spread,
        runsOf(capacity.spread),
      ),
      loadRow(
        `submits over 50 tenants, one instance sent half the connections (${halfConnections}: what each of the two instances is sent; ${untimed('half')})`,
        medianOf(capacity.half),
        runsOf(capacity.half),
      ),
      loadRow('submit, one tenant, PostgreSQL ×1', pgSubmit, runsOf(versus.postgres)),
      loadRow('submit, Prism', prismSubmit, runsOf(versus.prism)),
    ],
  });
  out.tables.push({
    title: `Burst isolation: a second tenant's keyed searches at ${probeRate}/s for ${probeS} s (open loop, its own process), alone and during a first tenant's submits at full rate (${connections} connections); ${repetitions} runs of each, interleaved, latencies pooled; before them, an untimed burst and the first instance's snapshots written (${quiet.quiet ? `quiet after ${fmt(quiet.ms / 1000, 1)} s` : `still writing after ${fmt(quiet.ms / 1000, 0)} s: its bound`})`,
    columns: [
      'phase',
      'calls',
      'p50 ms',
      'p99 ms',
      'max ms',
      'failures',
      'p99 ms of each run',
      'probe sent late, ms (most, each run)',
      "first tenant's burst req/s",
    ],
    rows: [
      [
        'alone',
        alone.count,
        fmt(alone.p50, 1),
        fmt(alone.p99, 1),
        fmt(alone.max, 1),
        '',
        p99s.alone.map((v) => fmt(v, 1)).join(' / '),
        late.alone.map((v) => fmt(v, 0)).join(' / '),
        '',
      ],
      [
        'during the burst',
        during.count,
        fmt(during.p50, 1),
        fmt(during.p99, 1),
        fmt(during.max, 1),
        failures.length ? `${failures.length} (${short(failures[0], 60)})` : '0',
        p99s.burst.map((v) => fmt(v, 1)).join(' / '),
        late.burst.map((v) => fmt(v, 0)).join(' / '),
        burstRps.map((v) => fmt(v, 0)).join(' / '),
      ],
    ],
  });
  out.data.capacity = { ...capacity, settled };
  out.data.burst = {
    alone,
    during,
    p99s,
    late,
    failures: failures.length,
    bursts,
    quietMs: quiet.ms,
    quiet: quiet.quiet,
  };
  out.data.submit = versus;
  await ctx.group.stop(first.child, SHUTDOWN_GRACE_MS);
}

/**
 * A tenant's keyed searches at `ratePerS` (100/s by default) for `durationS` (open loop, its own process), answered
 * once 3 s of them ran (past the worker's start-up): what is measured against them starts then.
 */
async function steadyProbe(
  ctx: SectionContext,
  name: string,
  baseUrl: string,
  apiKey: string,
  durationS: number,
  ratePerS = 100,
): Promise<{ result: Promise<ProbeResult> }> {
  const probe = runWorker<ProbeResult>(
    ctx.group,
    name,
    'probe.ts',
    { url: baseUrl + SEARCH, apiKey, ratePerS, durationS } satisfies ProbeArgs,
    { timeoutMs: (durationS + 60) * 1000 },
  );
  // awaited by the caller; a failure before then must not end the process
  probe.catch(() => undefined);
  await new Promise((r) => setTimeout(r, 3000));
  return { result: probe };
}

/**
 * An idle instance following another (D-191): 20 new tenants' submits go to the first instance (the second never
 * served them: it skips their steps, D-172) while a tenant's keyed searches go to the second at 2/s (open loop, its own
 * process): each waits there for the steps the first committed since the second last applied the log. Their median
 * and longest wait.
 */
async function follow(ctx: SectionContext, first: SandboxChild, second: SandboxChild, out: Output): Promise<void> {
  const { connections, durationS } = ctx.opts;
  const prober = await createBenchTenant(second, { name: 'follow probe' });
  const writers: string[] = [];
  for (let i = 0; i < 20; i++) writers.push((await createBenchTenant(first, { name: `follow ${i}` })).apiKey);
  const toFirst: LoadSpec = {
    origin: first.baseUrl,
    method: 'POST',
    path: SUBMIT,
    bearers: writers,
    body: () => submitBody('follow'),
  };
  const probeS = Math.max(10, durationS * 4);
  ctx.log(
    `  follow: 20 tenants' submits to the first instance, a tenant's searches at 2/s to the second for ${probeS} s`,
  );
  const load = measure(toFirst, { connections, durationS: probeS + 4, warmupS: 0 }).catch((err: unknown) =>
    errorMessage(err),
  );
  const result = await (await steadyProbe(ctx, 'probe (follow)', second.baseUrl, prober.apiKey, probeS, 2)).result;
  const writer = await load;
  const { longest, p50, calls, said } = probeWait(result);
  const wrote = isLoad(writer)
    ? `the first instance served ${fmt(writer.rps, 0)} submits/s`
    : `the submits: ${short(writer)}`;
  out.figures.push(
    figure(
      'tenants.follow.p50',
      "An idle instance's sporadic calls while another writes: median",
      p50,
      'ms',
      undefined,
      `${said}, the longest ${fmt(longest, 0)} ms; ${wrote}`,
    ),
  );
  out.data.follow = { p50, longest, calls, failures: result.failures, writerRps: isLoad(writer) ? writer.rps : null };
}

/**
 * Tenants moved between instances (D-175): each instance serves its half of the tenants for a run, so the first
 * drops the second's tenants and skips their steps; then those tenants' calls go to the first while a third tenant's
 * keyed searches run there at 100/s (open loop, its own process). How long the moved tenants' first calls took (their
 * skipped steps applied first), and the longest the third tenant's calls waited meanwhile beside their median.
 */
async function moves(
  ctx: SectionContext,
  first: SandboxChild,
  second: SandboxChild,
  moving: readonly string[],
  routed: () => LoadSpec[],
  out: Output,
): Promise<void> {
  const { connections, durationS } = ctx.opts;
  const prober = await createBenchTenant(first, { name: 'move probe' });
  ctx.log(`  moves: each instance's tenants' calls to it for ${durationS} s (untimed)`);
  await measureSplit(routed(), { connections, durationS, warmupS: 0 });
  const residency = () => residencyOf(first);
  // the first instance applies what the second wrote meanwhile (skipping the moving tenants' steps), untimed
  const before = await residency();
  const probe = (await steadyProbe(ctx, 'probe (moves)', first.baseUrl, prober.apiKey, 8)).result;
  ctx.log(`  moves: ${moving.length} tenants' calls to the first instance`);
  const t0 = performance.now();
  const firstCalls = await Promise.all(
    moving.map((key) =>
      request('POST', first.baseUrl + SUBMIT, { token: key, body: submitBody('moved'), timeoutMs: 120_000 }).then(
        (res) => (expectStatus(res, 201, "a moved tenant's first call"), performance.now() - t0),
      ),
    ),
  );
  const result = await probe;
  const after = await residency();
  const steps = after.replayed - before.replayed;
  const { longest, p50, calls, said } = probeWait(result);
  const allMoved = Math.max(...firstCalls);
  out.figures.push(
    figure(
      'tenants.move.longestWait',
      "Tenants moved to an instance: another tenant's longest wait there meanwhile",
      longest,
      'ms',
      undefined,
      `${said}; the ${moving.length} moved tenants' first calls all answered in ${fmt(allMoved, 0)} ms, ${fmt(steps, 0)} skipped steps applied; the probe sent its calls at most ${fmt(result.maxLateMs, 0)} ms late`,
    ),
  );
  out.data.moves = {
    steps,
    firstCallsMs: firstCalls,
    p50,
    longest,
    calls,
    failures: result.failures,
    skipped: before.skipped,
  };
}

/**
 * An instance killed (D-188): each instance serves its half of the tenants again (settled, D-179), so the first skips
 * the second's tenants' steps; then the second is killed (SIGKILL) while a third tenant's keyed searches run on the
 * first at 100/s (open loop, its own process). The first notices it gone once its reports stop (5 sweeps of 2 s) and
 * takes its tenants up with no call of them: how long until every one is in memory with its skipped steps applied,
 * and the longest the third tenant's calls waited meanwhile beside their median.
 */
async function takeOver(
  ctx: SectionContext,
  first: SandboxChild,
  second: SandboxChild,
  routed: () => LoadSpec[],
  out: Output,
): Promise<void> {
  const { connections, durationS } = ctx.opts;
  const prober = await createBenchTenant(first, { name: 'take-over probe' });
  ctx.log(`  take-over: each instance's tenants' calls to it, settled (untimed)`);
  await settleRouting([first, second], () => measureSplit(routed(), { connections, durationS: 1, warmupS: 0 }));
  await measureSplit(routed(), { connections, durationS, warmupS: 0 });
  const before = await residencyOf(first);
  // the probe covers the sweeps that notice the kill (10 s) and most of the take-up; the take-up is waited for longer
  const probeS = 40;
  const takeUpBoundS = 120;
  const probe = (await steadyProbe(ctx, 'probe (take-over)', first.baseUrl, prober.apiKey, probeS)).result;
  ctx.log(`  take-over: the second instance killed, ${before.behind} of its tenants behind on the first`);
  const t0 = performance.now();
  second.child.proc.kill('SIGKILL');
  let takenUpMs: number | null = null;
  let after = before;
  while (performance.now() - t0 < takeUpBoundS * 1000) {
    after = await residencyOf(first);
    if (after.behind === 0 && after.replaying === 0) {
      takenUpMs = performance.now() - t0;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  const result = await probe;
  const { longest, p50, calls, said } = probeWait(result);
  const steps = after.replayed - before.replayed;
  out.figures.push(
    figure(
      'tenants.takeOver.longestWait',
      "An instance killed: another tenant's longest wait on the instance that takes its tenants up",
      longest,
      'ms',
      undefined,
      `${said}; the killed instance's ${before.behind} tenants ${takenUpMs === null ? `not all taken up within ${takeUpBoundS} s (${after.behind} still behind, ${after.replaying} replaying)` : `all taken up ${fmt(takenUpMs, 0)} ms after the kill (noticed after 5 sweeps of 2 s)`}, ${fmt(steps, 0)} skipped steps applied; the probe sent its calls at most ${fmt(result.maxLateMs, 0)} ms late`,
    ),
  );
  out.data.takeOver = {
    behind: before.behind,
    takenUpMs,
    steps,
    p50,
    longest,
    calls,
    failures: result.failures,
  };
}

/**
 * An instance that keeps one idle tenant (`--resident-tenants 1`); a tenant with a long history (screenings with
 * long summaries: tens of megabytes of stored state) is dropped for two tenants made after it. A second tenant's
 * keyed searches run at 100/s (open loop, its own process) while the dropped tenant's next call loads it: how long
 * that call takes, and the longest the second tenant's calls waited meanwhile beside their median.
 */
async function dropAndLoad(ctx: SectionContext, pgc: TestDatabase, out: Output): Promise<void> {
  const url = await pgc.another();
  const sb = await startSandboxChild(ctx.group, {
    name: 'sandbox (drop and load)',
    args: ['--store', url, '--resident-tenants', '1'],
  });
  const big = await createBenchTenant(sb, { name: 'long history' });
  const screenings = ctx.opts.quick ? 500 : 3_000;
  const summary = 'Backend engineer: TypeScript, PostgreSQL, AWS. '.repeat(200);
  ctx.log(`  drop and load: ${screenings} screenings of one tenant`);
  for (let i = 0; i < screenings; i += 50)
    for (const res of await Promise.all(
      Array.from({ length: 50 }, (_, k) =>
        request('POST', sb.baseUrl + SUBMIT, {
          token: big.apiKey,
          body: {
            idempotencyKey: `drop-${i + k}`,
            candidate: { kind: 'structured', fullName: 'Sari Wulandari', summary, skills: ['TypeScript'] },
            jobSpec: { title: 'Senior Backend Engineer', mustHaves: ['TypeScript'] },
          },
        }),
      ),
    ))
      expectStatus(res, 201, 'submit');
  await createBenchTenant(sb, { name: 'idle' });
  const prober = await createBenchTenant(sb, { name: 'probe' });
  // every read of the report is a turn of the queue, after which idle tenants are dropped
  await waitFor(
    'the tenant with a long history to be dropped',
    async () => ((await residencyOf(sb)).resident <= 1 ? true : undefined),
    { timeoutMs: 60_000, intervalMs: 200, child: sb.child },
  );
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const stored = await db
    .query<{ raw: string }>(`SELECT max(raw_bytes) AS raw FROM sandbox_tenant_states`)
    .finally(() => db.end());
  const storedMb = Number(stored.rows[0].raw) / 1048576;
  const probe = (await steadyProbe(ctx, 'probe (tenant in memory)', sb.baseUrl, prober.apiKey, 6)).result;
  const t0 = performance.now();
  const first = await request('GET', sb.baseUrl + USAGE, { token: big.apiKey, timeoutMs: 60_000 });
  const firstMs = performance.now() - t0;
  expectStatus(first, 200, "the dropped tenant's first call");
  const result = await probe;
  const { longest, p50, calls, said } = probeWait(result);
  out.figures.push(
    figure(
      'tenants.drop.longestWait',
      "A dropped tenant's first call: another tenant's longest wait meanwhile",
      longest,
      'ms',
      undefined,
      `${said}; the first call took ${fmt(firstMs, 0)} ms for ${fmt(storedMb, 1)} MB of stored state`,
    ),
  );
  out.data.drop = { screenings, storedMb, firstMs, p50, longest, calls, failures: result.failures };
  await ctx.group.stop(sb.child, SHUTDOWN_GRACE_MS);
}

export const tenantsSection: Section = {
  id: 'tenants',
  title: 'A shared sandbox with many tenants (PostgreSQL, issue 24)',
  // seeding and replaying the largest database dominate; the load parts are fixed
  budgetS: (o) => (o.quick ? 600 : 1800),
  async run(ctx) {
    const pgc = await startTestDatabase();
    const partS: Record<string, number> = {};
    const out: Output = { figures: [], tables: [], notes: [], data: { partS } };
    try {
      for (const [id, name, part] of [
        ['load', 'capacity, burst and submit', shared],
        ['memory', 'memory', memory],
        ['restart', 'restart', restart],
        ['drop', 'drop and load', dropAndLoad],
      ] as const) {
        if (!ctx.opts.tenantsParts.includes(id)) continue;
        const t0 = performance.now();
        try {
          await part(ctx, pgc, out);
        } catch (err) {
          ctx.log(`  ${name}: not measured: ${errorMessage(err)}`);
          out.notes.push(`The ${name} part was not measured: ${short(errorMessage(err), 400)}`);
        }
        ctx.log(`  ${name}: ${fmt((performance.now() - t0) / 1000, 0)} s`);
        partS[name] = (performance.now() - t0) / 1000;
        await ctx.group.stopAll();
      }
    } finally {
      await ctx.group.stopAll();
      await pgc.stop();
    }
    out.notes.push(
      'Every sandbox is `tsx src/cli.ts --no-rate-limits --store postgres://…` in a child process on a throwaway local cluster (fsync off, as the tests run it); all instances of one database name the same public URL. The load generator (autocannon), the cluster and the sandboxes share the same cores, and the machine may be shared: see the load average.',
      "Histories: each tenant is created through the control API (scale plan), one template tenant makes its history through HTTP (keyed searches, a submit every hundredth call), and on D-112's log that history is copied to every other tenant in SQL with the key replaced, interleaved round by round; on any other storage every tenant makes its history through HTTP. Each restarted database is checked: a copied tenant and the template show every submit of their history paid and their audit events.",
      'A restart is timed from spawning the process (tsx compiles the sources on the fly: about a second of every start, empty database included) to the first 200 answer to a keyed search; the previous instance was stopped with SIGTERM (a clean shutdown).',
    );
    return out;
  },
};
