// One load measurement with autocannon: a warm-up run whose figures are discarded, then a timed run
// whose latencies are recorded per response at sub-millisecond resolution (autocannon's own histogram
// keeps whole milliseconds). The server under test runs in another process.

import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { processIds, processStat } from './machine.js';
import { summarize } from './stats.js';

export interface LoadSpec {
  /** Origin, e.g. http://127.0.0.1:4010 */
  origin: string;
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  /** Called once per request to build a fresh body (e.g. a new idempotency key). */
  body?: () => string;
  /** API keys taken in turn, one per request (traffic spread over many tenants); overrides `authorization`. */
  bearers?: readonly string[];
}

export interface LoadOptions {
  connections: number;
  durationS: number;
  warmupS: number;
  /**
   * Process groups of the servers under test (a bench child leads its own): their CPU over the timed run is
   * reported per answered request, beside this process's own (the load generator's), which gauges how fast the
   * machine ran meanwhile.
   */
  cpuOf?: readonly number[];
}

/** CPU time per answered request over the timed run, in microseconds (Linux only: null elsewhere). */
export interface CpuPerRequest {
  /** Every process of the servers' groups. */
  serverUs: number;
  /** The load generator: this process. */
  generatorUs: number;
}

export interface LoadResult {
  requests: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  statuses: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
  bytesPerSec: number;
  /** Mean response size, headers included. */
  bytesPerResponse: number;
  /** Given `cpuOf`: CPU per answered request. */
  cpu?: CpuPerRequest | null;
}

/** User and system CPU milliseconds of every process in the groups, from /proc; null where there is no /proc. */
export function groupCpuMs(pgids: readonly number[]): number | null {
  const ids = processIds();
  if (!ids) return null;
  const wanted = new Set(pgids);
  let ms = 0;
  for (const pid of ids) {
    const stat = processStat(pid);
    if (stat && wanted.has(stat.pgrp)) ms += stat.cpuMs;
  }
  return ms;
}

/**
 * autocannon ends a run at the first of its samples after `duration`, every second by default: a run of 0.3 s
 * lasted a whole second, and one of 1.5 s two. Samples that divide the duration end the run at its time (whole
 * seconds keep autocannon's default); only its own per-sample counts, unused here, change.
 */
export function sampleMs(durationS: number): number {
  return (durationS * 1000) / Math.max(1, Math.ceil(durationS));
}

function run(
  spec: LoadSpec,
  connections: number,
  durationS: number,
  onLatency?: (ms: number, status: number) => void,
): Promise<AutocannonResult> {
  const headers = { ...(spec.body ? { 'content-type': 'application/json' } : {}), ...spec.headers };
  const req: AutocannonRequest = { method: spec.method, path: spec.path, headers };
  const makeBody = spec.body;
  const bearers = spec.bearers?.length ? spec.bearers : null;
  if (makeBody) req.body = makeBody();
  if (bearers) req.headers = { ...headers, authorization: `Bearer ${bearers[0]}` };
  if (makeBody || bearers) {
    let turn = 0;
    req.setupRequest = (r) => ({
      ...r,
      ...(makeBody ? { body: makeBody() } : {}),
      ...(bearers ? { headers: { ...r.headers, authorization: `Bearer ${bearers[turn++ % bearers.length]}` } } : {}),
    });
  }
  return new Promise((resolve, reject) => {
    // autocannon stops itself after `duration`; the guard only covers a wedged run
    const guard = setTimeout(() => instance.stop(), (durationS + 15) * 1000);
    const instance = autocannon(
      {
        url: spec.origin,
        connections,
        duration: durationS,
        sampleInt: sampleMs(durationS),
        timeout: 10,
        requests: [req],
      },
      (err, result) => {
        clearTimeout(guard);
        if (err) reject(err);
        else resolve(result);
      },
    );
    if (onLatency)
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => onLatency(ms, status));
  });
}

export async function measure(spec: LoadSpec, opts: LoadOptions): Promise<LoadResult> {
  return measureSplit([spec], opts);
}

/**
 * One measurement of several servers at once (instances of one shared sandbox): the connections split
 * evenly between them, one autocannon run each in parallel, the figures summed and the latencies pooled.
 */
export async function measureSplit(specs: LoadSpec[], opts: LoadOptions): Promise<LoadResult> {
  const share = (i: number) =>
    Math.floor(opts.connections / specs.length) + (i < opts.connections % specs.length ? 1 : 0);
  if (opts.warmupS > 0) await Promise.all(specs.map((spec, i) => run(spec, share(i), opts.warmupS)));
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  const cpuBefore = opts.cpuOf ? { server: groupCpuMs(opts.cpuOf), self: process.cpuUsage() } : null;
  const results = await Promise.all(
    specs.map((spec, i) =>
      run(spec, share(i), opts.durationS, (ms) => {
        if (n === latencies.length) {
          const bigger = new Float64Array(latencies.length * 2);
          bigger.set(latencies);
          latencies = bigger;
        }
        latencies[n++] = ms;
      }),
    ),
  );
  let cpu: CpuPerRequest | null | undefined;
  if (cpuBefore) {
    const server = groupCpuMs(opts.cpuOf!);
    const self = process.cpuUsage(cpuBefore.self);
    cpu =
      server !== null && cpuBefore.server !== null && n > 0
        ? { serverUs: ((server - cpuBefore.server) * 1000) / n, generatorUs: (self.user + self.system) / n }
        : null;
  }
  const s = summarize(latencies.subarray(0, n));
  const statuses: Record<string, number> = {};
  for (const result of results)
    for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {}))
      statuses[code] = (statuses[code] ?? 0) + count;
  const durationS = Math.max(...results.map((r) => r.duration || opts.durationS));
  const sum = (f: (r: AutocannonResult) => number) => results.reduce((a, r) => a + f(r), 0);
  const bytes = sum((r) => r.throughput.total);
  return {
    requests: n,
    durationS,
    rps: n / durationS,
    p50Ms: s.p50,
    p99Ms: s.p99,
    meanMs: s.mean,
    statuses,
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    bytesPerSec: bytes / durationS,
    bytesPerResponse: n ? bytes / n : 0,
    ...(cpu === undefined ? {} : { cpu }),
  };
}

/** Why a measurement cannot stand as a figure (too many failures), or null when it is sound. */
export function unsound(r: LoadResult): string | null {
  if (r.requests === 0) return `no responses (${r.errors} connection errors, ${r.timeouts} timeouts)`;
  const bad = r.non2xx + r.errors + r.timeouts;
  if (bad / (r.requests + r.errors + r.timeouts) > 0.01) {
    const codes = Object.entries(r.statuses)
      .filter(([c]) => !c.startsWith('2'))
      .map(([c, k]) => `${k}× ${c}`)
      .join(', ');
    return `${bad} of ${r.requests} responses failed (${codes || 'no status'}${r.errors ? `, ${r.errors} errors` : ''}${r.timeouts ? `, ${r.timeouts} timeouts` : ''})`;
  }
  return null;
}
