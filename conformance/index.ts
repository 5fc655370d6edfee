// The harness's programmatic entry point: resolve a config once, run, get the result object.
// The CLI (cli.ts) is a thin wrapper around this.

import type { RawOptions } from './config.js';
import { resolveHarnessConfig } from './config.js';
import type { Reporter, RunResult } from './events.js';
import { baselineWriter } from './reporters/baseline-file.js';
import { consoleReporter } from './reporters/console.js';
import { fileReporter } from './reporters/files.js';
import { runConformance as run, type RunOptions } from './runner.js';

export { resolveHarnessConfig } from './config.js';
export type { HarnessConfig, RawOptions, Profile } from './config.js';
export type { RunResult, RequirementResult, CheckResult, HarnessEvent, Reporter } from './events.js';
export type { Baseline, BaselineEntry, BaselineOutcome, EntryState } from './baseline.js';
export type { CoverageIndex, Uncovered, UncoveredCause } from './coverage.js';
export { verifySignature, signatureFor } from './target/webhook-verify.js';
export type { ExchangeObserver } from './target/target.js';
export type { Exchange } from './target/http.js';

/**
 * Runs the conformance suite. Accepts raw options (resolved here) or an already resolved config.
 * Progress goes to stderr when `progress` is on; report files are written when `reportDir` is set;
 * `baseline` accepts known failures, `writeBaseline` writes this run's failures as a baseline file.
 */
export async function runConformance(
  options: RawOptions | ReturnType<typeof resolveHarnessConfig>,
  extra: RunOptions = {},
): Promise<RunResult> {
  const cfg = 'bases' in options ? options : resolveHarnessConfig(options);
  const reporters: Reporter[] = [...(extra.reporters ?? [])];
  if (cfg.progress) reporters.push(consoleReporter());
  if (cfg.reportDir) reporters.push(fileReporter(cfg.reportDir));
  if (cfg.writeBaseline) reporters.push(baselineWriter(cfg.writeBaseline));
  return run(cfg, { ...extra, reporters });
}
