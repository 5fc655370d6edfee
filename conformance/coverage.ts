// The coverage index of a run: the share of `must` requirements this profile, these flags and this
// target let the run observe, beside the score (what passed of what was observed). Every `must`
// requirement the run did not observe is listed with the cause and the reasons its checks gave. Built
// from the run's own verdicts and the checks' `appliesTo.needs`; it restates no requirement data.

import type { Capabilities, Capability, Check } from './check.js';
import { CAPABILITY_REASONS } from './check.js';
import type { RequirementResult } from './events.js';

/**
 * Why a `must` requirement was not observed:
 * - `not-observable`: the catalogue says no API call shows it;
 * - `not-covered`: no check verifies it;
 * - `not-selected`: its checks were left out of this run (`--only`, `--replay`);
 * - `capability`: every check that covers it needs a capability this target and profile lack
 *   (an admin token, a webhook receiver, a key without a scope, the anonymous server…);
 * - `skipped`: its checks ran but could not observe it (a key the profile lacks, a flag such as
 *   `--no-rate-windows`, a precondition that did not hold): the checks' reasons say which;
 * - `error`: the check that covers it stopped on a harness error.
 */
export type UncoveredCause = 'not-observable' | 'not-covered' | 'not-selected' | 'capability' | 'skipped' | 'error';

export interface Uncovered {
  id: string;
  cause: UncoveredCause;
  /** For `capability`: the capabilities missing (every covering check needs one of them). */
  missing?: Capability[];
  reasons: string[];
}

export interface CoverageIndex {
  /** `must` requirements in the catalogue. */
  must: number;
  /** `must` requirements this run observed (passed or failed). */
  observed: number;
  /** observed / must, from 0 to 1. */
  index: number;
  /** `must` requirements observed and passed. */
  passed: number;
  /** passed / observed (null when nothing was observed). */
  score: number | null;
  /** Every `must` requirement not observed, with its cause. */
  unobserved: Uncovered[];
}

export const CAUSE_LABELS: Record<UncoveredCause, string> = {
  'not-observable': 'not observable through the API (catalogue)',
  'not-covered': 'not covered by any check',
  'not-selected': 'not selected (--only / --replay)',
  capability: 'a capability this profile lacks',
  skipped: 'skipped by its checks (profile keys, flags, preconditions)',
  error: 'harness error',
};

type CheckInfo = Pick<Check, 'id'> & { appliesTo?: Pick<Check['appliesTo'], 'needs'> };

function causeOf(r: RequirementResult, checks: ReadonlyMap<string, CheckInfo>, caps: Capabilities): Uncovered {
  switch (r.status) {
    case 'not-observable':
      return {
        id: r.id,
        cause: 'not-observable',
        reasons: ['no API call shows it (observable: false in the catalogue)'],
      };
    case 'not-covered':
      return { id: r.id, cause: 'not-covered', reasons: ['no check verifies it'] };
    case 'not-run':
      return {
        id: r.id,
        cause: 'not-selected',
        reasons: r.reasons.length ? r.reasons : ['its checks were not run (--replay runs one check)'],
      };
    case 'error':
      return { id: r.id, cause: 'error', reasons: r.reasons };
    default: {
      // skipped: a capability gap when every check covering it needs something this run lacks
      const missingPerCheck = r.checks.map((id) => (checks.get(id)?.appliesTo?.needs ?? []).filter((c) => !caps[c]));
      if (missingPerCheck.length && missingPerCheck.every((m) => m.length > 0)) {
        const missing = [...new Set(missingPerCheck.flat())];
        return { id: r.id, cause: 'capability', missing, reasons: missing.map((c) => CAPABILITY_REASONS[c]) };
      }
      return { id: r.id, cause: 'skipped', reasons: r.reasons };
    }
  }
}

/** The coverage index of a run, from its requirement verdicts, the checks that could cover them and the run's capabilities. */
export function coverageIndex(
  requirements: readonly RequirementResult[],
  checks: readonly CheckInfo[],
  caps: Capabilities,
): CoverageIndex {
  const must = requirements.filter((r) => r.level === 'must');
  const byId = new Map(checks.map((c) => [c.id, c]));
  const observed = must.filter((r) => r.status === 'pass' || r.status === 'fail');
  const passed = observed.filter((r) => r.status === 'pass').length;
  return {
    must: must.length,
    observed: observed.length,
    index: must.length ? observed.length / must.length : 0,
    passed,
    score: observed.length ? passed / observed.length : null,
    unobserved: must.filter((r) => r.status !== 'pass' && r.status !== 'fail').map((r) => causeOf(r, byId, caps)),
  };
}

/** A share as a percentage with one decimal (0.7777… → "77.8%"). */
export const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/** One line: "coverage index 80/126 must requirements observable (63.4%); score 78/80 passed (97.5%)". */
export function coverageLine(c: CoverageIndex): string {
  return `coverage index ${c.observed}/${c.must} must requirements observable with this profile and flags (${percent(c.index)}); score ${c.passed}/${c.observed} observed passed${c.score === null ? '' : ` (${percent(c.score)})`}`;
}

/** The unobserved requirements grouped by cause, in the order of CAUSE_LABELS. */
export function byCause(c: CoverageIndex): [UncoveredCause, Uncovered[]][] {
  return (Object.keys(CAUSE_LABELS) as UncoveredCause[])
    .map((k) => [k, c.unobserved.filter((u) => u.cause === k)] as [UncoveredCause, Uncovered[]])
    .filter(([, us]) => us.length > 0);
}
