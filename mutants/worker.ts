// One mutant's run, in a child process of its own: starts the (mutated) alternate deployment from the
// folder given, runs the conformance harness keys-only against it as test/support/alt-run.ts does, and
// prints one line `MUTANT-RESULT {json}` as soon as a `must` requirement fails (the rest of the run is
// skipped: the process exits) or when the run ends. The parent kills the process at its time limit: a
// mutant that loops forever blocks this process's event loop, not the parent's.
// Usage: node --import tsx mutants/worker.ts <alt-deployment folder> '<json WorkerOptions>'

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { allChecks } from '../conformance/checks/index.js';
import { runConformance, type RawOptions } from '../conformance/index.js';
import { freePort, mustIds, RESULT_PREFIX, type WorkerOptions, type WorkerResult } from './model.js';

/** Checks that take most of a run go last, so a mutant another check already kills stops early. */
const SLOW_LAST = ['screening.stateful.fixed-key'];

let cleanup = () => {};

/** Writes the result (stdout is a pipe: the write is synchronous on Linux) and ends the process. */
function emit(r: WorkerResult): never {
  cleanup();
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(r)}\n`);
  process.exit(0);
}

async function main() {
  const [altDir, json] = process.argv.slice(2);
  const opts = JSON.parse(json ?? '{}') as WorkerOptions;
  const must = mustIds();
  const t0 = performance.now();
  const elapsed = () => Math.round(performance.now() - t0);
  const port = await freePort();
  let alt: { profile: object };
  try {
    const mod = (await import(
      pathToFileURL(path.join(altDir, 'index.ts')).href
    )) as typeof import('../test/alt-deployment/index.js');
    alt = await mod.startAltDeployment({
      violations: opts.violations ?? [],
      webhookUrl: `http://127.0.0.1:${port}/alt-hooks`,
    });
  } catch (e) {
    emit({
      outcome: 'error',
      failed: [],
      harnessErrors: [],
      error: `the deployment did not start: ${e instanceof Error ? e.message : String(e)}`,
      durationMs: elapsed(),
    });
  }
  const regressionsDir = mkdtempSync(path.join(tmpdir(), 'mutant-regressions-'));
  cleanup = () => rmSync(regressionsDir, { recursive: true, force: true });
  const checks = [
    ...allChecks.filter((c) => !SLOW_LAST.includes(c.id)),
    ...allChecks.filter((c) => SLOW_LAST.includes(c.id)),
  ];
  const raw: RawOptions = {
    ...(alt.profile as RawOptions),
    webhookListen: `127.0.0.1:${port}`,
    seed: opts.seed,
    runs: opts.runs,
    reportDir: null,
    regressionsDir,
    saveRegressions: false,
    progress: false,
    allowSpend: opts.allowSpend,
    rateWindows: opts.rateWindows,
    ...(opts.only?.length ? { only: opts.only } : {}),
  };
  const firstFailure = (failures: { requirement: string; why: string }[]) =>
    failures.find((f) => must.has(f.requirement))?.why;
  const result = await runConformance(raw, {
    checks,
    reporters: [
      (ev) => {
        if (ev.type !== 'check-end' || !opts.failFast) return;
        const failed = [...new Set(ev.result.failures.map((f) => f.requirement).filter((id) => must.has(id)))].sort();
        if (failed.length)
          emit({
            outcome: 'killed',
            failed,
            harnessErrors: [],
            firstCheck: ev.result.id,
            why: firstFailure(ev.result.failures),
            durationMs: elapsed(),
          });
      },
    ],
  });
  const failed = result.requirements.filter((r) => r.level === 'must' && r.status === 'fail').map((r) => r.id);
  const first = result.checks.find((c) => c.failures.some((f) => must.has(f.requirement)));
  emit({
    outcome: failed.length || result.harnessErrors.length ? 'killed' : 'survived',
    failed,
    harnessErrors: result.harnessErrors,
    passed: result.requirements.filter((r) => r.level === 'must' && r.status === 'pass').map((r) => r.id),
    ...(first ? { firstCheck: first.id, why: firstFailure(first.failures) } : {}),
    durationMs: elapsed(),
  });
}

main().catch((e) =>
  emit({
    outcome: 'error',
    failed: [],
    harnessErrors: [],
    error: e instanceof Error ? (e.stack ?? e.message) : String(e),
    durationMs: 0,
  }),
);
