// The child side of the harness timing rows: one full conformance run, in process, against the
// alternate deployment in keys-only mode (its reviewer timed, or never deciding) or against this
// sandbox with an admin token, exactly as test/harness-alt.test.ts and test/harness-selfrun.test.ts
// run it. Reports the wall time and every verdict, so a faster run can be compared with a slower one.

import type { HarnessEvent } from '../../conformance/events.js';
import { runConformance, type RunResult } from '../../conformance/index.js';
import type { CallSpec } from '../../conformance/target/target.js';
import { checkOfCall } from '../../conformance/waits.js';
import { startSandbox } from '../../src/main.js';
import { startAltDeployment } from '../../test/alt-deployment/index.js';
import { freePort } from '../../test/support/alt-run.js';
import { runAsWorker } from './ipc.js';

export type HarnessRunKind = 'alt-keys' | 'alt-keys-no-review' | 'sandbox-admin';

export interface HarnessRunArgs {
  kind: HarnessRunKind;
  /** Options on top (e.g. concurrency). */
  extra?: Record<string, unknown>;
}

export interface HarnessRunResult {
  kind: HarnessRunKind;
  wallS: number;
  ok: boolean;
  checks: number;
  /** Requirement id → status. */
  requirements: Record<string, string>;
  /** Check id → status. */
  checkStatus: Record<string, string>;
  /** Check id → duration in milliseconds. */
  checkMs: Record<string, number>;
  harnessErrors: string[];
  notes: string[];
  cases: number;
  /** Calls per check and surface (where the time of a keys-only run goes: rate windows). */
  calls: Record<string, number>;
  /** Check id → [start, end] in seconds from the run's start (the schedule). */
  timeline: Record<string, [number, number]>;
}

const calls: Record<string, number> = {};
const timeline: Record<string, [number, number]> = {};
let runT0 = 0;
const at = () => Number(((performance.now() - runT0) / 1000).toFixed(1));
const scheduleReporter = (e: HarnessEvent) => {
  if (e.type === 'run-start') runT0 = performance.now();
  if (e.type === 'check-start') timeline[e.id] = [at(), -1];
  if (e.type === 'check-end' && timeline[e.result.id]) timeline[e.result.id][1] = at();
};
const count = (_ex: unknown, surface: string, spec: CallSpec) => {
  const k = `${checkOfCall(spec) ?? '-'} ${surface}`;
  calls[k] = (calls[k] ?? 0) + 1;
};

function summary(kind: HarnessRunKind, r: RunResult, wallS: number): HarnessRunResult {
  return {
    calls,
    timeline,
    kind,
    wallS,
    ok: r.ok,
    checks: r.checks.length,
    requirements: Object.fromEntries(r.requirements.map((x) => [x.id, x.status])),
    checkStatus: Object.fromEntries(r.checks.map((c) => [c.id, c.status])),
    checkMs: Object.fromEntries(r.checks.map((c) => [c.id, c.durationMs])),
    harnessErrors: r.harnessErrors,
    notes: r.notes,
    cases: r.cases,
  };
}

export async function harnessRun({ kind, extra = {} }: HarnessRunArgs): Promise<HarnessRunResult> {
  const t0 = performance.now();
  if (kind === 'sandbox-admin') {
    const sb = await startSandbox({
      host: '127.0.0.1',
      port: 0,
      anonMcpPort: 0,
      adminToken: 'sat_bench_admin_token',
      selfCheck: true,
      seedDemo: false,
    });
    try {
      const r = await runConformance(
        {
          target: sb.baseUrl,
          anonMcp: sb.anonMcpUrl,
          adminToken: 'sat_bench_admin_token',
          seed: 20261122,
          runs: 15,
          reportDir: null,
          regressionsDir: 'fixtures/regressions',
          saveRegressions: false,
          progress: false,
          ...extra,
        },
        { onExchange: count, reporters: [scheduleReporter] },
      );
      return summary(kind, r, (performance.now() - t0) / 1000);
    } finally {
      await sb.close();
    }
  }
  // as test/support/alt-run.ts does, with every check's calls counted
  const port = await freePort();
  const alt = await startAltDeployment({
    webhookUrl: `http://127.0.0.1:${port}/alt-hooks`,
    ...(kind === 'alt-keys-no-review' ? { reviewer: 'never' as const } : {}),
  });
  try {
    const result = await runConformance(
      {
        ...alt.profile,
        webhookListen: `127.0.0.1:${port}`,
        seed: 20261123,
        runs: 3,
        reportDir: null,
        saveRegressions: false,
        progress: false,
        allowSpend: ['free'],
        ...extra,
      },
      { onExchange: count, reporters: [scheduleReporter] },
    );
    return summary(kind, result, (performance.now() - t0) / 1000);
  } finally {
    await alt.stop();
  }
}

if (process.argv[1]?.endsWith('harness-run.ts')) runAsWorker(harnessRun);
