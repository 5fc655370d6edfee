// What a run reports while it goes and when it ends. The runner emits these events; reporters (console
// progress, JUnit, JSON, HTML) consume them. Nothing else in the harness writes output.

import type { BaselineOutcome } from './baseline.js';
import type { Capabilities } from './check.js';
import type { CoverageIndex } from './coverage.js';
import type { Failure } from './failure.js';
import type { Level } from './requirements.js';

export type CheckStatus = 'pass' | 'fail' | 'skip' | 'error';

export interface CheckResult {
  id: string;
  title: string;
  requirements: readonly string[];
  status: CheckStatus;
  failures: Failure[];
  skipReason?: string;
  error?: string;
  /** Requirements the check covers but could not observe on this target this time (never a pass). */
  unobserved?: { requirement: string; reason: string }[];
  durationMs: number;
}

export type RequirementStatus = 'pass' | 'fail' | 'skip' | 'error' | 'not-covered' | 'not-observable' | 'not-run';

export interface RequirementResult {
  id: string;
  level: Level;
  text: string;
  source?: string;
  decision?: string;
  status: RequirementStatus;
  /** Checks that verify it. */
  checks: string[];
  failures: Failure[];
  /** Why it was skipped (or errored), from its checks. */
  reasons: string[];
}

export interface Tally {
  pass: number;
  fail: number;
  skip: number;
  error: number;
  notCovered: number;
  notObservable: number;
  notRun: number;
}

export interface RunResult {
  /** True when every `must` requirement that ran passed (or failed only as the baseline expects). */
  ok: boolean;
  target: string;
  seed: number;
  runs: number;
  only: readonly string[];
  startedAt: string;
  durationMs: number;
  capabilities: Capabilities;
  notes: string[];
  checks: CheckResult[];
  requirements: RequirementResult[];
  counts: { must: Tally; policy: Tally };
  /** The share of `must` requirements this run could observe, the score, and why the rest were not observed. */
  coverage: CoverageIndex;
  /** How the run's failures compare with the baseline it was given (--baseline). */
  baseline?: BaselineOutcome;
  /** Inputs evaluated by every property of the run: saved counterexamples, generated cases and shrinks. */
  cases: number;
  /** Requirement ids named by checks but absent from the catalogue. */
  unknownRequirementIds: string[];
  regressions: { file: string; check: string; property: string; passed: boolean }[];
  /** The command line that reproduces this run (secrets as env references). */
  command: string;
  /**
   * Internal errors of the harness itself, each naming the check (or reporter) it happened in: a check
   * that threw something other than a violation or a skip, or a report that could not be written.
   * A run with any of them exits 2, whatever the requirements say.
   */
  harnessErrors: string[];
}

export type HarnessEvent =
  | { type: 'run-start'; target: string; seed: number; runs: number; checks: number; requirements: number }
  | { type: 'capabilities'; capabilities: Capabilities; notes: string[] }
  // checks run side by side: `index` counts the checks started (check-start) or finished (check-end)
  // before this one, so progress reads in order; reports list checks in registry order
  | { type: 'check-start'; id: string; title: string; index: number; total: number }
  | { type: 'check-end'; result: CheckResult; index: number; total: number }
  | { type: 'regression'; file: string; check: string; property: string; passed: boolean }
  | { type: 'run-end'; result: RunResult };

export type Reporter = (event: HarnessEvent) => void | Promise<void>;

export class EventBus {
  private readonly reporters: Reporter[] = [];

  add(r: Reporter): void {
    this.reporters.push(r);
  }

  /** Errors reporters threw; a reporter that fails never keeps the others from running. */
  readonly errors: string[] = [];

  async emit(e: HarnessEvent): Promise<void> {
    for (const r of this.reporters) {
      try {
        await r(e);
      } catch (err) {
        this.errors.push(`reporter (${e.type}): ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
}
