// In-process benchmark of job search: builds the corpus and index at a given size, then times a fixed,
// seeded mix of queries (free text of one to three terms, filters, locations, deep offsets, free and
// paid tiers, misses) through the domain's search, which is what every REST and MCP search runs.
// Run alone: `tsx bench/search.ts [--corpus 100000] [--queries 3000] [--seed N]`.

import { pathToFileURL } from 'node:url';
import { resolveConfig } from '../src/config.js';
import { createCore } from '../src/domain/core.js';
import type { JobsTier } from '../src/domain/plans.js';
import { Rng } from '../src/domain/rng.js';
import { JOB_TYPES, OPPORTUNITY_TYPES, REMOTE_TYPES } from '../src/domain/jobs/types.js';
import { vocabulary } from '../src/domain/jobs/vocab.js';
import { openMemoryStore } from '../src/store/memory.js';

export interface SearchBenchOptions {
  /** Active jobs in the corpus (default 100,000). */
  corpus?: number;
  /** Timed queries (default 3,000, after 300 untimed warm-up queries). */
  queries?: number;
  seed?: number;
}

export interface SearchBenchResult {
  corpus: number;
  queries: number;
  medianMs: number;
  p95Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  /** Corpus generation + index + market precomputation. */
  buildMs: number;
  generateMs: number;
  indexMs: number;
  /** The whole sandbox core (contracts, corpus, index, market), as a start-up would take. */
  createCoreMs: number;
  terms: number;
  /** Median per query kind. */
  byKind: Record<string, { queries: number; medianMs: number; meanResults: number }>;
}

type Query = { kind: string; tier: JobsTier; params: Record<string, unknown> };

const quantile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

function queryMix(rng: Rng, count: number): Query[] {
  const vocab = vocabulary();
  const titleWords = [
    ...new Set(
      vocab.families.flatMap((f) =>
        f.titles.flatMap((t) => t.toLowerCase().split(/[^a-z.]+/)).filter((w) => w.length > 2),
      ),
    ),
  ];
  const skills = [...new Set(vocab.families.flatMap((f) => f.skills))];
  const places = ['remote', 'indonesia', 'jakarta', 'apac', 'utc+7', 'bali', 'worldwide'];
  const tiers: JobsTier[] = ['free', 'starter', 'pro'];
  const kinds: Array<(tier: JobsTier) => Query> = [
    (tier) => ({ kind: 'browse', tier, params: { offset: rng.int(0, 4) * 20 } }),
    (tier) => ({ kind: 'one term', tier, params: { q: rng.pick(titleWords) } }),
    (tier) => ({ kind: 'skill', tier, params: { q: rng.pick(skills) } }),
    (tier) => ({
      kind: 'two terms',
      tier,
      params: { q: `${rng.pick(['senior', 'junior', 'lead', 'remote'])} ${rng.pick(titleWords)}` },
    }),
    (tier) => ({
      kind: 'three terms',
      tier,
      params: { q: `${rng.pick(titleWords)} ${rng.pick(skills)} ${rng.pick(['team', 'remote', 'experience'])}` },
    }),
    (tier) => ({
      kind: 'filters',
      tier,
      params: { remote_type: rng.pick(REMOTE_TYPES), job_type: rng.pick(JOB_TYPES), limit: 50 },
    }),
    (tier) => ({
      kind: 'term + filters',
      tier,
      params: {
        q: rng.pick(titleWords),
        remote_type: rng.pick(REMOTE_TYPES),
        opportunity_type: rng.pick(OPPORTUNITY_TYPES),
      },
    }),
    (tier) => ({
      kind: 'location',
      tier,
      params: { location: rng.pick(places), q: rng.chance(0.5) ? rng.pick(skills) : undefined },
    }),
    () => ({ kind: 'deep page', tier: 'pro', params: { limit: 50, offset: rng.int(0, 49) * 50 } }),
    (tier) => ({ kind: 'miss', tier, params: { q: `${rng.pick(titleWords)} zzyzx` } }),
  ];
  return Array.from({ length: count }, () => rng.pick(kinds)(rng.pick(tiers)));
}

export async function benchSearch(options: SearchBenchOptions = {}): Promise<SearchBenchResult> {
  const corpus = options.corpus ?? 100_000;
  const count = options.queries ?? 3_000;
  const t0 = performance.now();
  const core = await createCore(
    resolveConfig({
      corpusSize: corpus,
      seedDemo: false,
      noRateLimits: true,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
    }),
    openMemoryStore,
  );
  const { stats } = core.jobs;
  const createMs = performance.now() - t0;
  const rng = new Rng(options.seed ?? 1).fork('search-bench');
  for (const q of queryMix(rng, 300)) core.jobs.search(q.tier, q.params);
  const queries = queryMix(rng, count);
  const times = new Float64Array(count);
  const perKind = new Map<string, { times: number[]; results: number }>();
  queries.forEach((q, i) => {
    const start = performance.now();
    const res = core.jobs.search(q.tier, q.params);
    times[i] = performance.now() - start;
    const k = perKind.get(q.kind) ?? { times: [], results: 0 };
    k.times.push(times[i]);
    k.results += res.jobs.length;
    perKind.set(q.kind, k);
  });
  const sorted = Float64Array.from(times).sort();
  const byKind: SearchBenchResult['byKind'] = {};
  for (const [kind, k] of [...perKind].sort()) {
    byKind[kind] = {
      queries: k.times.length,
      medianMs: quantile(Float64Array.from(k.times).sort(), 0.5),
      meanResults: k.results / k.times.length,
    };
  }
  return {
    corpus,
    queries: count,
    medianMs: quantile(sorted, 0.5),
    p95Ms: quantile(sorted, 0.95),
    p99Ms: quantile(sorted, 0.99),
    meanMs: times.reduce((a, b) => a + b, 0) / count,
    maxMs: sorted[sorted.length - 1],
    buildMs: stats.generateMs + stats.indexMs + stats.marketMs,
    generateMs: stats.generateMs,
    indexMs: stats.indexMs,
    terms: stats.terms,
    createCoreMs: Math.round(createMs),
    byKind,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    if (i < 0) return undefined;
    const n = Number(process.argv[i + 1]);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} needs a non-negative integer`);
    return n;
  };
  const r = await benchSearch({ corpus: arg('corpus'), queries: arg('queries'), seed: arg('seed') });
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  console.log(`search over ${r.corpus.toLocaleString('en-US')} active jobs (${r.terms} distinct terms)`);
  console.log(
    `  build        ${r.buildMs} ms (generate ${r.generateMs} ms, index ${r.indexMs} ms; whole core ${r.createCoreMs} ms)`,
  );
  console.log(`  queries      ${r.queries}`);
  console.log(`  median       ${ms(r.medianMs)}   (target < 2 ms)`);
  console.log(`  p95 / p99    ${ms(r.p95Ms)} / ${ms(r.p99Ms)}`);
  console.log(`  mean / max   ${ms(r.meanMs)} / ${ms(r.maxMs)}`);
  console.log('  by kind:');
  for (const [kind, k] of Object.entries(r.byKind)) {
    console.log(
      `    ${kind.padEnd(16)} ${String(k.queries).padStart(5)} queries  median ${ms(k.medianMs)}  ~${k.meanResults.toFixed(1)} results`,
    );
  }
}
