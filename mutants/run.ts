// The mutation run: lists the mutants of the alternate deployment's rule code, picks a seeded sample,
// checks that the unmutated deployment passes the harness with the same options, then runs the harness
// keys-only against each mutant (a fresh copy of the deployment and a child process per mutant, several
// at once) and classifies it: killed (a `must` requirement failed), survived, timed out or error (the
// deployment did not start). Mutants recorded in the reviewed-survivors file are not run.

import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { applyMutant, findSwitchFlags, mutantDiff, mutate, type Mutant } from './mutator.js';
import { ALT_DIR, RESULT_PREFIX, ROOT, type WorkerOptions, type WorkerResult } from './model.js';

/** Files of the alternate deployment that hold no rule of the documents: composition, start-up, the violation switches, test data and tests. */
// not rule code: wiring, start-up, fixtures, the planted violations and their probes, and the shape style
// (output formatting: with the default plain style every mutant of it would survive as equivalent)
export const NOT_RULE_CODE = [
  'index.ts',
  'serve.ts',
  'profile.ts',
  'violations.ts',
  'violations-jobs.ts',
  'planted-routes.ts',
  'test-support.ts',
  'corpus.ts',
  'timers.ts',
  'shape-style.ts',
];
const isProbe = (f: string) => f.endsWith('.probes.ts') || f.startsWith('probes-');
export const REVIEWED_FILE = path.join(ROOT, 'mutants/survivors.yaml');

export interface Reviewed {
  key: string;
  file: string;
  verdict: 'equivalent' | 'unobservable';
  reason: string;
  /** The change as it was reviewed (for a reader; the key is what matches). */
  change?: string;
}

export type Outcome = 'killed' | 'survived' | 'timeout' | 'error';

export interface MutantResult extends Mutant {
  outcome: Outcome;
  failed: string[];
  harnessErrors: string[];
  firstCheck?: string;
  why?: string;
  error?: string;
  durationMs: number;
  diff: string;
  /** On a survivor: `must` ids that pass on the clean deployment but were skipped on this mutant (the harness could not judge them). */
  unjudged?: string[];
  /** Set when a first run was killed by a broken connection and the mutant was run again (this result): that first failure. */
  rerunAfter?: string;
  /** Set when a first run timed out and the mutant was run again with twice the time limit (this result). */
  rerunAfterTimeout?: boolean;
  /** Set when the main run passed and the rate-window checks (RunSettings.ratePass) killed or timed out the mutant. */
  byRatePass?: boolean;
}

export interface RunSettings {
  files?: string[];
  sample: number | 'all';
  seed: number;
  concurrency: number;
  keys?: string[];
  includeReviewed: boolean;
  worker: WorkerOptions;
  /** A control run of the unmutated deployment after every this many mutants (default 20; 0: none). */
  controlEvery?: number;
  /** The reviewed-survivors file (default mutants/survivors.yaml). */
  reviewedFile?: string;
  /**
   * When the main run leaves the rate windows alone (the default): run a mutant that survives it once more, on a
   * fresh copy, through the checks that spend the fixed keys' windows and days (RATE_WINDOW_CHECKS), so the rate
   * limits are tested too. Default: on unless the main run spends the windows itself or is narrowed by `only`.
   */
  ratePass?: boolean;
  /** The checks of that pass (default RATE_WINDOW_CHECKS). */
  rateChecks?: string[];
  /** A mutant's run is stopped (timed out) after this long; default 3 × the clean run, at least 90 s. */
  timeoutMs?: number;
  log?: (line: string) => void;
  /** Called after each mutant with the run so far (the CLI rewrites the report, so an interrupted run keeps what it judged). */
  onResult?: (run: MutationRun) => void;
}

/** The alternate deployment's rule files (relative to the repository), or those named by `files` (basename or path). */
export function ruleFiles(files?: string[]): string[] {
  const all = readdirSync(ALT_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !NOT_RULE_CODE.includes(f) && !isProbe(f))
    .sort();
  const chosen = files?.length
    ? all.filter((f) => files.some((x) => path.basename(x) === f || path.basename(x) === f.replace(/\.ts$/, '')))
    : all;
  if (files?.length && chosen.length !== files.length)
    throw new Error(
      `--files: not a rule file of test/alt-deployment: ${files.filter((x) => !all.some((f) => path.basename(x) === f || path.basename(x) === f.replace(/\.ts$/, ''))).join(', ')} (rule files: ${all.join(', ')})`,
    );
  return chosen.map((f) => path.relative(ROOT, path.join(ALT_DIR, f)));
}

/** The violation switch names, read from the lists of violations (violations.ts and the files it spreads in) without running them. */
export function switchNames(): Set<string> {
  const lists = readdirSync(ALT_DIR).filter(
    (f) => /^violations[\w-]*\.ts$/.test(f) && !f.endsWith('.test.ts') && !isProbe(f),
  );
  const text = lists.map((f) => readFileSync(path.join(ALT_DIR, f), 'utf8')).join('\n');
  return new Set([...text.matchAll(/\bname:\s*'([^']+)'/g)].map((m) => m[1]));
}

/** Every mutant of the given rule files. */
export function listMutants(files: string[]): { mutants: Mutant[]; sources: Map<string, string> } {
  const names = switchNames();
  const sources = new Map<string, string>();
  for (const f of readdirSync(ALT_DIR).filter((x) => x.endsWith('.ts') && !x.endsWith('.test.ts')))
    sources.set(path.relative(ROOT, path.join(ALT_DIR, f)), readFileSync(path.join(ALT_DIR, f), 'utf8'));
  const flags = new Set<string>();
  for (const text of sources.values()) for (const fl of findSwitchFlags(text, names)) flags.add(fl);
  const mutants = files.flatMap((f) => mutate(f, sources.get(f)!, { switchNames: names, switchFlags: flags }));
  return { mutants, sources };
}

export function loadReviewed(file = REVIEWED_FILE): Reviewed[] {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const list = ((doc as { reviewed?: unknown })?.reviewed ?? []) as Reviewed[];
  for (const r of list) {
    if (!r.key || !['equivalent', 'unobservable'].includes(r.verdict) || !r.reason)
      throw new Error(
        `${path.relative(ROOT, file)}: every entry needs key, verdict (equivalent | unobservable) and reason; got ${JSON.stringify(r)}`,
      );
  }
  return list;
}

/** A seeded Fisher–Yates shuffle (mulberry32): the same seed picks the same mutants from the same list. */
export function seededSample<T>(items: readonly T[], n: number, seed: number): T[] {
  let a = seed >>> 0;
  const rnd = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const xs = [...items];
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs.slice(0, Math.min(n, xs.length));
}

/** The harness checks that spend the fixed keys' rate windows and the anonymous and talent_search days. */
export const RATE_WINDOW_CHECKS = ['jobs.rate.window', 'mcp.anon.daily-limit', 'mcp.tools.talent-daily-limit'];

/** Whether a run adds the rate-window pass for its survivors (see RunSettings.ratePass). */
export const ratePassOn = (s: Pick<RunSettings, 'ratePass' | 'worker'>): boolean =>
  s.ratePass ?? (!s.worker.rateWindows && !s.worker.only?.length);

/** A failure reason that is a broken or timed-out connection rather than an answer. */
export const TRANSPORT_ERROR = /fetch failed|ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|other side closed/i;

const live = { children: new Set<import('node:child_process').ChildProcess>(), dirs: new Set<string>() };

/** Kills every worker still running and removes every copy (on Ctrl-C or a termination signal). */
export function stopAll(): void {
  for (const c of live.children) c.kill('SIGKILL');
  for (const d of live.dirs) rmSync(d, { recursive: true, force: true });
}

/** A copy of the deployment (with one mutant applied) in a fresh folder that resolves the repository's packages. */
function prepareCopy(sources: Map<string, string>, m: Mutant | null): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'mutant-'));
  live.dirs.add(dir);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const alt = path.join(dir, 'alt-deployment');
  mkdirSync(alt);
  cpSync(ALT_DIR, alt, { recursive: true, filter: (src) => !src.endsWith('.test.ts') });
  if (m) writeFileSync(path.join(dir, m.file.replace(/^test\//, '')), applyMutant(sources.get(m.file)!, m));
  return dir;
}

function removeCopy(dir: string) {
  rmSync(dir, { recursive: true, force: true });
  live.dirs.delete(dir);
}

/** Runs the worker on one copy; resolves with its result, or a timeout. */
function runWorker(
  dir: string,
  opts: WorkerOptions,
  timeoutMs: number,
): Promise<WorkerResult & { timedOut?: boolean }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'mutants/worker.ts'), path.join(dir, 'alt-deployment'), JSON.stringify(opts)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    live.children.add(child);
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      live.children.delete(child);
      const durationMs = Math.round(performance.now() - t0);
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (line) return resolve({ ...(JSON.parse(line.slice(RESULT_PREFIX.length)) as WorkerResult), durationMs });
      if (timedOut) return resolve({ outcome: 'error', timedOut: true, failed: [], harnessErrors: [], durationMs });
      resolve({
        outcome: 'error',
        failed: [],
        harnessErrors: [],
        error: `worker exited ${code ?? signal} without a result: ${err.trim().split('\n').slice(-5).join(' | ')}`,
        durationMs,
      });
    });
  });
}

export interface ControlRun {
  outcome: Outcome;
  failed: string[];
  firstCheck?: string;
  why?: string;
  durationMs: number;
}

export interface MutationRun {
  startedAt: string;
  durationMs: number;
  settings: Omit<RunSettings, 'log'>;
  clean: WorkerResult;
  timeoutMs: number;
  files: string[];
  totalMutants: number;
  /** The files' mutants less their reviewed survivors. */
  pool: number;
  /** The reviewed survivors among the files' mutants (drawn or not). */
  reviewedInFiles?: number;
  /** The reviewed survivors the sample drew: not run, outside the score. */
  reviewedSkipped: (Reviewed & { original?: string; replacement?: string; line?: number })[];
  staleReviewed: Reviewed[];
  results: MutantResult[];
  /** The unmutated deployment run again between mutants: each should pass. */
  controls: ControlRun[];
  /** Chosen mutants not yet judged (a report written during the run). */
  unfinished?: number;
}

/**
 * The mutants a run draws: by key, or a seeded sample (or all) of every mutant of the files, less the drawn ones
 * reviewed as equivalent or unobservable. The sample is drawn before the reviewed survivors are set aside, so a
 * review does not change which mutants a seed draws: after its survivors are reviewed, the same sample runs
 * again with every other mutant of it judged afresh.
 */
export function chooseMutants(
  s: Pick<RunSettings, 'files' | 'keys' | 'sample' | 'seed' | 'includeReviewed' | 'reviewedFile'>,
) {
  const files = ruleFiles(s.files);
  const { mutants, sources } = listMutants(files);
  const reviewed = loadReviewed(s.reviewedFile);
  const reviewedByKey = new Map(reviewed.map((r) => [r.key, r]));
  const allKeys = new Set(listMutants(ruleFiles()).mutants.map((m) => m.key));
  const staleReviewed = reviewed.filter((r) => !allKeys.has(r.key));
  const reviewedInFiles = mutants.filter((m) => reviewedByKey.has(m.key)).length;
  let chosen: Mutant[];
  let reviewedSkipped: MutationRun['reviewedSkipped'] = [];
  if (s.keys?.length) {
    const unknown = s.keys.filter((k) => !mutants.some((m) => m.key === k));
    if (unknown.length) throw new Error(`--keys: no such mutant in the chosen files: ${unknown.join(', ')}`);
    chosen = mutants.filter((m) => s.keys!.includes(m.key));
  } else {
    const drawn = s.sample === 'all' ? mutants : seededSample(mutants, s.sample, s.seed);
    chosen = s.includeReviewed ? drawn : drawn.filter((m) => !reviewedByKey.has(m.key));
    reviewedSkipped = s.includeReviewed
      ? []
      : drawn
          .filter((m) => reviewedByKey.has(m.key))
          .map((m) => ({
            ...reviewedByKey.get(m.key)!,
            original: m.original,
            replacement: m.replacement,
            line: m.line,
          }));
  }
  return { files, mutants, sources, chosen, reviewedSkipped, reviewedInFiles, staleReviewed };
}

/** Runs the clean deployment, then every chosen mutant; returns everything the report needs. */
export async function runMutants(s: RunSettings): Promise<MutationRun> {
  const log = s.log ?? (() => {});
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const { files, mutants, sources, chosen, reviewedSkipped, reviewedInFiles, staleReviewed } = chooseMutants(s);
  log(
    `${mutants.length} mutants in ${files.length} files (${reviewedInFiles} reviewed survivors); ${reviewedSkipped.length} reviewed survivors drawn, not run; running ${chosen.length} (concurrency ${s.concurrency})`,
  );

  // the unmutated deployment must pass with the same options, or no mutant can be judged
  const cleanDir = prepareCopy(sources, null);
  let clean: WorkerResult;
  try {
    clean = await runWorker(cleanDir, { ...s.worker, failFast: false }, 600_000);
  } finally {
    removeCopy(cleanDir);
  }
  if (clean.outcome !== 'survived')
    throw new Error(
      `the unmutated deployment does not pass the harness (${clean.outcome}: ${clean.failed.join(', ') || clean.harnessErrors.join('; ') || clean.error}); no mutant can be judged`,
    );
  // the rate-window pass must pass on the unmutated deployment too
  const ratePass = ratePassOn(s);
  const rateOptions: WorkerOptions = {
    ...s.worker,
    rateWindows: true,
    only: s.rateChecks ?? RATE_WINDOW_CHECKS,
    failFast: false,
  };
  if (ratePass) {
    const rateDir = prepareCopy(sources, null);
    let cleanRate: WorkerResult;
    try {
      cleanRate = await runWorker(rateDir, rateOptions, 600_000);
    } finally {
      removeCopy(rateDir);
    }
    if (cleanRate.outcome !== 'survived')
      throw new Error(
        `the unmutated deployment does not pass the rate-window checks (${cleanRate.outcome}: ${cleanRate.failed.join(', ') || cleanRate.harnessErrors.join('; ') || cleanRate.error}); no mutant can be judged (--no-rate-pass runs without them)`,
      );
    log(`rate-window checks passed on the unmutated deployment in ${(cleanRate.durationMs / 1000).toFixed(1)} s`);
  }
  const timeoutMs = s.timeoutMs ?? Math.max(90_000, 3 * clean.durationMs);
  log(
    `clean run passed in ${(clean.durationMs / 1000).toFixed(1)} s; a mutant's run times out after ${(timeoutMs / 1000).toFixed(0)} s`,
  );

  const results: MutantResult[] = [];
  const controls: ControlRun[] = [];
  const { log: _log, onResult: _onResult, ...settings } = s;
  const snapshot = (): MutationRun => ({
    startedAt,
    durationMs: Math.round(performance.now() - t0),
    settings,
    clean,
    timeoutMs,
    files,
    totalMutants: mutants.length,
    pool: mutants.length - reviewedInFiles,
    reviewedInFiles,
    reviewedSkipped,
    staleReviewed,
    results: [...results].sort((a, b) => a.file.localeCompare(b.file) || a.start - b.start),
    controls: [...controls],
    ...(results.length < chosen.length ? { unfinished: chosen.length - results.length } : {}),
  });
  // control runs: the unmutated deployment again, between the mutants, under the same load; a control
  // that fails shows that kills under its ids may be false (a flaky check or an overloaded machine)
  const every = s.controlEvery ?? 20;
  const queue: (Mutant | null)[] = [];
  chosen.forEach((m, i) => {
    queue.push(m);
    if (every > 0 && (i + 1) % every === 0) queue.push(null);
  });
  let next = 0;
  const lane = async () => {
    while (next < queue.length) {
      const m = queue[next++];
      const dir = prepareCopy(sources, m);
      try {
        let r = await runWorker(dir, m ? s.worker : { ...s.worker, failFast: false }, timeoutMs);
        // a kill whose first failure is a broken connection may be the machine's load, not the mutant: run it again once
        let transportKill: string | undefined;
        if (m && r.outcome === 'killed' && TRANSPORT_ERROR.test(r.why ?? '')) {
          transportKill = r.why;
          r = await runWorker(dir, s.worker, timeoutMs);
        }
        // a run past the time limit may be a busy machine (other work on the same cores), not a hung deployment:
        // run it once more with twice the limit, and count it as timed out only if that one times out too
        let timedOutOnce = false;
        if (m && r.timedOut) {
          timedOutOnce = true;
          r = await runWorker(dir, s.worker, 2 * timeoutMs);
        }
        // a survivor of the main run (which leaves the rate windows alone) goes through the rate-window checks,
        // on a fresh copy of the same mutant; their waits for a window to turn are bounded, so twice the limit
        let byRatePass = false;
        if (m && ratePass && !r.timedOut && r.outcome === 'survived') {
          const rateDir = prepareCopy(sources, m);
          try {
            const r2 = await runWorker(rateDir, rateOptions, 2 * timeoutMs);
            if (r2.timedOut || r2.outcome === 'killed') {
              byRatePass = true;
              r = { ...r2, durationMs: r.durationMs + r2.durationMs };
            }
          } finally {
            removeCopy(rateDir);
          }
        }
        const outcome: Outcome = r.timedOut ? 'timeout' : r.outcome;
        if (!m) {
          controls.push({
            outcome,
            failed: r.failed,
            ...(r.why ? { why: r.why } : {}),
            ...(r.firstCheck ? { firstCheck: r.firstCheck } : {}),
            durationMs: r.durationMs,
          });
          log(
            `[control] ${outcome === 'survived' ? 'passed' : `FAILED (${outcome}${r.failed.length ? `: ${r.failed.join(', ')}` : ''})`} ${(r.durationMs / 1000).toFixed(0)} s`,
          );
          continue;
        }
        const unjudged =
          outcome === 'survived' && r.passed ? (clean.passed ?? []).filter((id) => !r.passed!.includes(id)) : [];
        results.push({
          ...m,
          ...r,
          outcome,
          diff: mutantDiff(sources.get(m.file)!, m),
          ...(unjudged.length ? { unjudged } : {}),
          ...(transportKill ? { rerunAfter: transportKill } : {}),
          ...(timedOutOnce ? { rerunAfterTimeout: true } : {}),
          ...(byRatePass ? { byRatePass: true } : {}),
        });
        s.onResult?.(snapshot());
        log(
          `[${results.length}/${chosen.length}] ${outcome.padEnd(8)} ${m.key} ${m.file}:${m.line} ${m.operator} ${JSON.stringify(m.original.slice(0, 50))} → ${JSON.stringify(m.replacement.slice(0, 30))}${r.failed.length ? ` (${r.failed.join(', ')})` : ''}${unjudged.length ? ` (${unjudged.length} must ids unjudged)` : ''} ${(r.durationMs / 1000).toFixed(0)} s`,
        );
      } finally {
        removeCopy(dir);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, s.concurrency) }, lane));
  return snapshot();
}
