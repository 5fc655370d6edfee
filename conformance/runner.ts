// The runner: selects the registered checks (--only, --replay), runs them side by side against the
// target (scheduler.ts: checks sharing a fixed key run in registry order, a check moving the target
// clock runs alone, a check waiting for the target lends its keys meanwhile), folds the response
// monitor's findings in, aggregates a status per requirement, and emits events. Results come out in
// registry order whatever order the checks finished in.

import type { Capabilities, Check, CheckContext } from './check.js';
import { CAPABILITY_REASONS } from './check.js';
import { settleBaseline } from './baseline.js';
import { coverageIndex } from './coverage.js';
import { CHECK_USES, jobOf, scheduleOrder } from './check-resources.js';
import { allChecks } from './checks/index.js';
import { baseCommand, type HarnessConfig } from './config.js';
import { loadHarnessContract } from './contract.js';
import {
  EventBus,
  type CheckResult,
  type HarnessEvent,
  type Reporter,
  type RequirementResult,
  type RunResult,
  type Tally,
} from './events.js';
import { FailureList, Skip, Violation, failureOf, type Failure } from './failure.js';
import { ResponseMonitor } from './monitor.js';
import { parseReplay, runProperty, type ReplayRequest } from './property.js';
import { loadRegressionFile, loadRegressions } from './regressions.js';
import { loadCatalogue, selected, type Catalogue } from './requirements.js';
import { Scheduler } from './scheduler.js';
import { ControlError } from './target/control.js';
import { createEnvironment } from './target/environment.js';
import type { ExchangeObserver } from './target/target.js';
import { watchedTenants } from './target/tenants.js';
import { validatorFor } from './validation.js';
import { checkOfCall, receiverFor, targetFor, type WhileWaiting } from './waits.js';

/** The pseudo-check under which the response monitor's findings are reported. */
export const MONITOR_CHECK: Pick<Check, 'id' | 'title' | 'requirements'> = {
  id: 'contract.responses',
  title: 'Every response of every check conforms to the contract (status, body, headers, error envelope)',
  requirements: [
    'SCR-ERR-1',
    'SCR-ERR-2',
    'SCR-ERR-3',
    'SCR-USAGE-4',
    'JOB-ERR-1',
    'JOB-RATE-1',
    'POL-ERR-1',
    'POL-MKT-1',
    'POL-ME-1',
  ],
};

const CHECK_TIMEOUT_MS = 180_000;

function resolveReplay(cfg: HarnessConfig): ReplayRequest | null {
  if (!cfg.replay) return null;
  const p = parseReplay(cfg.replay);
  if (p) return { kind: 'path', ...p };
  return { kind: 'file', regression: loadRegressionFile(cfg.replay) };
}

export function selectChecks(checks: readonly Check[], cfg: HarnessConfig, replay: ReplayRequest | null): Check[] {
  if (replay) {
    const id = replay.kind === 'path' ? replay.check : replay.regression.check;
    const c = checks.find((x) => x.id === id);
    if (!c) throw new Error(`--replay names check '${id}', which is not registered`);
    return [c];
  }
  const chosen = checks.filter((c) => selected(cfg.only, c.id, ...c.requirements));
  return [...chosen.filter((c) => !c.late), ...chosen.filter((c) => c.late)];
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>(
      (_, reject) => (t = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms)),
    ),
  ]).finally(() => clearTimeout(t));
}

function tally(rs: RequirementResult[]): Tally {
  const t: Tally = { pass: 0, fail: 0, skip: 0, error: 0, notCovered: 0, notObservable: 0, notRun: 0 };
  for (const r of rs) {
    const k = (
      {
        pass: 'pass',
        fail: 'fail',
        skip: 'skip',
        error: 'error',
        'not-covered': 'notCovered',
        'not-observable': 'notObservable',
        'not-run': 'notRun',
      } as const
    )[r.status];
    t[k]++;
  }
  return t;
}

export function aggregate(
  catalogue: Catalogue,
  checks: readonly Pick<Check, 'id' | 'requirements'>[],
  results: CheckResult[],
  only: readonly string[],
): RequirementResult[] {
  const byReq = new Map<string, CheckResult[]>();
  for (const c of checks) for (const id of c.requirements) byReq.set(id, []);
  for (const r of results) for (const id of r.requirements) byReq.get(id)?.push(r);
  const allFailures = results.flatMap((r) => r.failures);
  const observable = (id: string) => catalogue.byId.get(id)?.observable !== false;
  return catalogue.all.map((req) => {
    const covering = checks.filter((c) => c.requirements.includes(req.id)).map((c) => c.id);
    const ran = byReq.get(req.id) ?? [];
    const failures = allFailures.filter((f) => f.requirement === req.id);
    let status: RequirementResult['status'];
    const reasons: string[] = [];
    if (failures.length) status = 'fail';
    else if (ran.some((r) => r.status === 'error')) {
      status = 'error';
      reasons.push(...ran.filter((r) => r.status === 'error').map((r) => `${r.id}: ${r.error}`));
    } else if (
      ran.some(
        (r) => (r.status === 'pass' || r.status === 'fail') && !r.unobserved?.some((u) => u.requirement === req.id),
      )
    )
      status = 'pass';
    else if (ran.length) {
      status = 'skip';
      reasons.push(
        ...ran.map((r) => `${r.id}: ${r.unobserved?.find((u) => u.requirement === req.id)?.reason ?? r.skipReason}`),
      );
    } else if (covering.length === 0) status = observable(req.id) ? 'not-covered' : 'not-observable';
    else status = 'not-run';
    if (status === 'not-run' && !selected(only, req.id, ...covering)) reasons.push('not selected by --only');
    return {
      id: req.id,
      level: req.level,
      text: req.text,
      ...(req.source ? { source: req.source } : {}),
      ...(req.decision ? { decision: req.decision } : {}),
      status,
      checks: covering,
      failures,
      reasons,
    };
  });
}

export interface RunOptions {
  reporters?: Reporter[];
  /** Sees every HTTP exchange the checks make (e.g. to look for a proxy's violation headers). */
  onExchange?: ExchangeObserver;
  /** The checks to choose from (default: the registry). */
  checks?: readonly Check[];
}

export async function runConformance(cfg: HarnessConfig, opts: RunOptions = {}): Promise<RunResult> {
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const bus = new EventBus();
  for (const r of opts.reporters ?? []) bus.add(r);
  const catalogue = loadCatalogue(cfg.requirementsFile);
  const contract = await loadHarnessContract();
  const validator = validatorFor(contract);
  const monitor = new ResponseMonitor(contract.operations, validator);
  const replay = resolveReplay(cfg);
  const registry = opts.checks ?? allChecks;
  const checks = selectChecks(registry, cfg, replay);
  const regressions = replay ? [] : loadRegressions(cfg.regressionsDir, cfg.target);
  const regressionLog: RunResult['regressions'] = [];

  // events go out one at a time, in the order they happen, whichever check raised them
  let emitted = Promise.resolve();
  const emit = (e: HarnessEvent) => (emitted = emitted.then(() => bus.emit(e)));

  await emit({
    type: 'run-start',
    target: cfg.target,
    seed: cfg.seed,
    runs: cfg.runs,
    checks: checks.length,
    requirements: catalogue.all.length,
  });
  const env = await createEnvironment(cfg);
  await emit({ type: 'capabilities', capabilities: env.capabilities, notes: env.notes });

  const stopObserving = env.target.observe((ex, surface, spec) => {
    monitor.observe(checkOfCall(spec) ?? '', ex, surface, spec);
    opts.onExchange?.(ex, surface, spec);
  });
  const results: CheckResult[] = new Array(checks.length);
  const monitorFailures: Failure[][] = checks.map(() => []);
  const undeclared = new Map<string, Set<string>>();
  let cases = 0;
  let started = 0;
  let finished = 0;
  try {
    const position = new Map(checks.map((c, i) => [c, i]));
    const jobs = scheduleOrder(checks).map((check, order) => jobOf(check, order, env.capabilities));
    await new Scheduler(jobs, cfg.concurrency).runAll(async ({ check, resources }, whileWaiting) => {
      const index = position.get(check)!;
      await emit({ type: 'check-start', id: check.id, title: check.title, index: started++, total: checks.length });
      const tenants = watchedTenants(env.tenants, (slot) => {
        if (resources.has(`key:${slot}`)) return;
        const seen = undeclared.get(check.id) ?? new Set<string>();
        undeclared.set(check.id, seen.add(slot));
      });
      const result = await runOne(check, cfg, env.capabilities, {
        contract,
        validator,
        whileWaiting,
        env: {
          ...env,
          tenants,
          target: targetFor(env.target, check.id),
          receiver: receiverFor(env.receiver, whileWaiting),
        },
        propertyEnv: {
          config: cfg,
          check: check.id,
          regressions,
          replay,
          onRegression: (r, passed) => {
            regressionLog.push({ file: r.file, check: r.check, property: r.property, passed });
            void emit({ type: 'regression', file: r.file, check: r.check, property: r.property, passed });
          },
          onCases: (n) => {
            cases += n;
          },
        },
      });
      for (const f of monitor.drain(check.id))
        monitorFailures[index].push({ ...f, check: MONITOR_CHECK.id, why: `${f.why} (seen during ${check.id})` });
      results[index] = result;
      await emit({ type: 'check-end', result, index: finished++, total: checks.length });
    });
  } finally {
    stopObserving();
    await env.close();
  }
  // exchanges made outside any check (set-up) are judged too
  monitorFailures.push(
    monitor.drain('').map((f) => ({ ...f, check: MONITOR_CHECK.id, why: `${f.why} (seen while setting up the run)` })),
  );
  for (const [id, slots] of undeclared) {
    const listed = checks.find((c) => c.id === id)?.uses ?? CHECK_USES[id];
    env.notes.push(
      `check ${id} used the profile key slot(s) ${[...slots].join(', ')}, which conformance/check-resources.ts does not list for it${listed ? ': it may have shared them with another check' : ' (the check is not listed there, so it ran alone)'}`,
    );
  }

  const g = env.target.governor;
  if (g.pausedMs > 0 || g.retries > 0) {
    const who = [...g.pausedBy].map(([k, ms]) => `${k} ${Math.round(ms / 1000)} s`).join(', ');
    const busiest = [...g.calls]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 4)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    env.notes.push(
      `the harness paced itself to the target's rate limits: waited ${Math.round(g.pausedMs / 1000)} s in all${who ? ` (before calls of ${who})` : ''}, retried ${g.retries} call(s) answered 429; calls per key: ${busiest}`,
    );
  }
  const monitorFound = monitorFailures.flat();
  const monitorResult: CheckResult = {
    ...MONITOR_CHECK,
    status: monitorFound.length ? 'fail' : 'pass',
    failures: monitorFound,
    durationMs: 0,
  };
  const allResults = [...results, monitorResult];
  const command = baseCommand(cfg);
  for (const r of allResults) for (const f of r.failures) f.replay = replayCommand(command, cfg, f);
  const known = [...registry, MONITOR_CHECK];
  const requirements = aggregate(catalogue, known, allResults, cfg.only);
  const unknownRequirementIds = [
    ...new Set([
      ...known.flatMap((c) => c.requirements),
      ...allResults.flatMap((r) => r.failures.map((f) => f.requirement)),
    ]),
  ].filter((id) => !catalogue.byId.has(id));
  const must = requirements.filter((r) => r.level === 'must');
  const baseline = cfg.baseline
    ? settleBaseline(cfg.baseline, requirements, allResults, new Date(startedAt))
    : undefined;
  const result: RunResult = {
    ok:
      must.every((r) => r.status !== 'error' && (r.status !== 'fail' || !!baseline?.known.includes(r.id))) &&
      !unknownRequirementIds.some((id) => allResults.some((r) => r.failures.some((f) => f.requirement === id))),
    target: cfg.target,
    seed: cfg.seed,
    runs: cfg.runs,
    only: cfg.only,
    startedAt,
    durationMs: Math.round(performance.now() - t0),
    capabilities: env.capabilities,
    notes: env.notes,
    checks: allResults,
    requirements,
    counts: { must: tally(must), policy: tally(requirements.filter((r) => r.level === 'policy')) },
    coverage: coverageIndex(requirements, known, env.capabilities),
    ...(baseline ? { baseline } : {}),
    cases,
    unknownRequirementIds,
    regressions: regressionLog,
    command,
    harnessErrors: results.filter((r) => r.status === 'error').map((r) => `check ${r.id}: ${r.error}`),
  };
  await emit({ type: 'run-end', result });
  result.harnessErrors.push(...bus.errors);
  return result;
}

function replayCommand(base: string, cfg: HarnessConfig, f: Failure): string {
  const cx = f.counterexample;
  if (cx?.regressionFile) return `${base} --replay ${cx.regressionFile}`;
  if (cx?.path) return `${base} --only ${f.requirement} --seed ${cfg.seed} --replay ${cx.property}@${cx.path}`;
  return `${base} --only ${f.requirement} --seed ${cfg.seed}`;
}

interface RunDeps {
  contract: CheckContext['contract'];
  validator: CheckContext['validator'];
  env: Pick<Awaited<ReturnType<typeof createEnvironment>>, 'target' | 'tenants' | 'control' | 'receiver'>;
  whileWaiting?: WhileWaiting;
  propertyEnv: Parameters<typeof runProperty>[0];
}

async function runOne(check: Check, cfg: HarnessConfig, caps: Capabilities, deps: RunDeps): Promise<CheckResult> {
  const t0 = performance.now();
  const base = { id: check.id, title: check.title, requirements: check.requirements };
  const missing = (check.appliesTo.needs ?? []).filter((c) => !caps[c]);
  if (missing.length)
    return {
      ...base,
      status: 'skip',
      failures: [],
      skipReason: missing.map((c) => CAPABILITY_REASONS[c]).join('; '),
      durationMs: 0,
    };
  const failures = new FailureList(check.id);
  const unobserved: NonNullable<CheckResult['unobserved']> = [];
  const ctx: CheckContext = {
    config: cfg,
    contract: deps.contract,
    validator: deps.validator,
    target: deps.env.target,
    tenants: deps.env.tenants,
    control: deps.env.control,
    receiver: deps.env.receiver,
    capabilities: caps,
    check,
    failures,
    property: async (spec) => failures.push(...(await runProperty(deps.propertyEnv, spec))),
    runs: (scale = 1) => Math.max(1, Math.round(cfg.runs * scale)),
    need: (cap) => {
      if (!caps[cap]) throw new Skip(CAPABILITY_REASONS[cap]);
    },
    unobserved: (requirement, reason) => {
      if (!unobserved.some((u) => u.requirement === requirement)) unobserved.push({ requirement, reason });
    },
    ...(deps.whileWaiting ? { whileWaiting: deps.whileWaiting } : {}),
  };
  const done = (status: CheckResult['status'], extra: Partial<CheckResult> = {}): CheckResult => ({
    ...base,
    status,
    failures: failures.items,
    ...(unobserved.length ? { unobserved } : {}),
    durationMs: Math.round(performance.now() - t0),
    ...extra,
  });
  try {
    const returned = await withTimeout(check.run(ctx), CHECK_TIMEOUT_MS, check.id);
    if (Array.isArray(returned)) failures.push(...returned);
    return done(failures.items.length ? 'fail' : 'pass');
  } catch (e) {
    if (e instanceof Violation) {
      failures.push(failureOf(check.id, e));
      return done('fail');
    }
    if (e instanceof Skip)
      return failures.items.length ? done('fail', { skipReason: e.reason }) : done('skip', { skipReason: e.reason });
    const msg = e instanceof ControlError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return done('error', { error: msg });
  }
}
