// Runs one fast-check property of a check: saved counterexamples first, then generated inputs with a
// seed derived from the run's seed and the property's name (so `--seed` reproduces it, and adding a
// check does not reshuffle the others), shrinking to a minimal failing input whose evidence (the
// exchanges of the minimal run) becomes the failure. A new counterexample is saved for later runs.

import fc from 'fast-check';
import type { HarnessConfig } from './config.js';
import { failureOf, Violation, type Counterexample, type Failure } from './failure.js';
import { saveRegression, type StoredRegression } from './regressions.js';

export interface PropertySpec<T> {
  /** Unique within the check; part of the replay id `<check>/<name>`. */
  name: string;
  arbitrary: fc.Arbitrary<T>;
  /** Throws a Violation when the target breaks a requirement for this input. */
  predicate: (value: T) => Promise<void>;
  /** Number of generated inputs (default: the run's --runs). */
  runs?: number;
  /** Inputs always tried first (e.g. the minimal and the full valid value). */
  examples?: T[];
  /** How an input is saved as JSON and read back (default: the input is JSON already). */
  toJson?: (value: T) => unknown;
  fromJson?: (json: unknown) => T;
}

export type ReplayRequest =
  { kind: 'file'; regression: StoredRegression } | { kind: 'path'; check: string; property: string; path: string };

export interface PropertyEnv {
  config: HarnessConfig;
  check: string;
  /** Saved counterexamples (all of them; filtered here by check and property). */
  regressions: readonly StoredRegression[];
  replay: ReplayRequest | null;
  onRegression?: (r: StoredRegression, passed: boolean) => void;
  /** Told how many inputs a property evaluated (saved, generated and shrunk). */
  onCases?: (n: number) => void;
}

/** FNV-1a, to derive stable per-property seeds. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

export const propertySeed = (runSeed: number, check: string, name: string) =>
  (runSeed ^ hash32(`${check}/${name}`)) | 0;

export function parseReplay(value: string): { check: string; property: string; path: string } | null {
  const m = /^([^/@]+)\/([^@]+)@([\d:]+)$/.exec(value);
  return m ? { check: m[1], property: m[2], path: m[3] } : null;
}

export async function runProperty<T>(env: PropertyEnv, spec: PropertySpec<T>): Promise<Failure[]> {
  const id = `${env.check}/${spec.name}`;
  const failures: Failure[] = [];
  let fatal: unknown = null;
  const guarded = async (value: T) => {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what a check threw, as it was
    if (fatal) throw fatal;
    try {
      await spec.predicate(value);
    } catch (e) {
      if (e instanceof Violation) throw e;
      fatal = e; // a harness error or a skip: stop generating and shrinking
      throw e;
    }
  };
  const asViolation = (e: unknown): Violation | null => (e instanceof Violation ? e : null);

  // 1. saved counterexamples of this property
  const saved =
    env.replay?.kind === 'file'
      ? [env.replay.regression].filter((r) => r.check === env.check && r.property === spec.name)
      : env.regressions.filter((r) => r.check === env.check && r.property === spec.name);
  for (const r of saved) {
    try {
      await guarded(spec.fromJson ? spec.fromJson(r.value) : (r.value as T));
      env.onRegression?.(r, true);
    } catch (e) {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what a check threw, as it was
      if (fatal) throw fatal;
      const v = asViolation(e)!;
      env.onRegression?.(r, false);
      failures.push(
        failureOf(env.check, v, {
          property: id,
          value: r.value,
          seed: r.seed,
          ...(r.path ? { path: r.path } : {}),
          regressionFile: r.file,
        }),
      );
    }
  }
  if (env.replay?.kind === 'file') {
    env.onCases?.(saved.length);
    return failures;
  }
  // replaying one counterexample path: the other properties of the check generate nothing
  if (env.replay?.kind === 'path' && !(env.replay.check === env.check && env.replay.property === spec.name))
    return failures;

  // 2. generated inputs (or the exact replay of one counterexample path)
  const seed = propertySeed(env.config.seed, env.check, spec.name);
  const replayPath = env.replay?.kind === 'path' ? env.replay.path : undefined;
  const details = await fc.check(fc.asyncProperty(spec.arbitrary, guarded), {
    seed,
    // fast-check counts examples within numRuns: they come on top of the generated cases
    numRuns: (spec.runs ?? env.config.runs) + (spec.examples?.length ?? 0),
    ...(spec.examples?.length ? { examples: spec.examples.map((e) => [e] as [T]) } : {}),
    ...(replayPath ? { path: replayPath, endOnFailure: true } : {}),
    interruptAfterTimeLimit: 45_000,
    markInterruptAsFailure: false,
  });
  env.onCases?.(saved.length + details.numRuns + details.numShrinks);
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows what a check threw, as it was
  if (fatal) throw fatal;
  if (details.failed && details.counterexample) {
    const v = asViolation(details.errorInstance);
    if (!v)
      throw details.errorInstance instanceof Error ? details.errorInstance : new Error(String(details.errorInstance));
    const value = spec.toJson ? spec.toJson(details.counterexample[0]) : details.counterexample[0];
    const cx: Counterexample = {
      property: id,
      value,
      seed,
      path: details.counterexamplePath ?? undefined,
      numRuns: details.numRuns,
      numShrinks: details.numShrinks,
    };
    if (env.config.saveRegressions && !replayPath) {
      cx.regressionFile = saveRegression(env.config.regressionsDir, {
        target: env.config.target,
        check: env.check,
        property: spec.name,
        requirement: v.requirement,
        why: v.why,
        value,
        seed,
        ...(cx.path ? { path: cx.path } : {}),
        savedAt: new Date().toISOString(),
      });
    }
    failures.push(failureOf(env.check, v, cx));
  }
  return failures;
}
