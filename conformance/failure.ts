// Failures are typed values carrying their evidence: which requirement broke, why, and the HTTP or MCP
// exchanges that show it. Checks throw `Violation` (inside fast-check properties, so shrinking keeps the
// evidence of the minimal case) or return `Failure` values; `Skip` marks a check that cannot run here.

import type { Exchange } from './target/http.js';

/** A fast-check counterexample, with what it takes to replay it. */
export interface Counterexample {
  /** `<check id>/<property name>`. */
  property: string;
  /** The minimal failing input (JSON). */
  value: unknown;
  seed: number;
  /** fast-check replay path of the shrunk case; absent for a replayed saved regression. */
  path?: string;
  numRuns?: number;
  numShrinks?: number;
  /** The saved regression file this came from or was written to. */
  regressionFile?: string;
}

export interface Failure {
  /** The requirement id this failure breaks. */
  requirement: string;
  /** The check that found it. */
  check: string;
  why: string;
  evidence: Exchange[];
  counterexample?: Counterexample;
  /** How many times the same problem was seen (the monitor folds repeats). */
  occurrences?: number;
  /** The shell command that replays it (filled in by the runner). */
  replay?: string;
}

/** Thrown to report one broken requirement, with the exchanges that show it. */
export class Violation extends Error {
  constructor(
    readonly requirement: string,
    readonly why: string,
    readonly evidence: Exchange[] = [],
  ) {
    super(`${requirement}: ${why}`);
    this.name = 'Violation';
  }
}

/** Thrown when a check cannot run against this target (a missing capability, key or precondition). */
export class Skip extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'Skip';
  }
}

export const violation = (requirement: string, why: string, ...evidence: (Exchange | undefined)[]) =>
  new Violation(
    requirement,
    why,
    evidence.filter((e): e is Exchange => e !== undefined),
  );

export const skip = (reason: string) => new Skip(reason);

export function failureOf(check: string, v: Violation, counterexample?: Counterexample): Failure {
  return {
    requirement: v.requirement,
    check,
    why: v.why,
    evidence: v.evidence,
    ...(counterexample ? { counterexample } : {}),
  };
}

/** Collects failures inside a check; `expect` records one when the condition is false. */
export class FailureList {
  readonly items: Failure[] = [];
  constructor(private readonly check: string) {}

  add(requirement: string, why: string, ...evidence: (Exchange | undefined)[]): void {
    this.items.push(failureOf(this.check, violation(requirement, why, ...evidence)));
  }

  expect(ok: boolean, requirement: string, why: string, ...evidence: (Exchange | undefined)[]): boolean {
    if (!ok) this.add(requirement, why, ...evidence);
    return ok;
  }

  /** Runs a step; a Violation it throws is recorded instead of ending the check. */
  async step(fn: () => Promise<void> | void): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (e instanceof Violation) this.items.push(failureOf(this.check, e));
      else throw e;
    }
  }

  push(...fs: Failure[]): void {
    this.items.push(...fs);
  }
}
