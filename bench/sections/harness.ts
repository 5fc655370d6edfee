// The conformance harness against a local sandbox at default settings (rate limits on): the wall
// time of a full run, started as a child process exactly as a user would, and how many generated
// cases it ran, read from its JSON report. Then the full runs this project's own tests make (keys only
// against the alternate deployment, admin against this sandbox), beside their times before checks ran
// side by side (harness-runs.ts).

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { below, figure, notMeasured, short, type Figure } from '../lib/figures.js';
import { ROOT, startSandboxChild, TSX } from '../lib/sandbox.js';
import type { Section } from '../lib/section.js';
import { HARNESS_RUNS, measureHarnessRuns } from './harness-runs.js';

const HARNESS_TIMEOUT_MS = 300_000;

type Json = Record<string, unknown>;

/** The number of generated cases, wherever the report states it (a total, or per check/property). */
export function casesOf(report: Json): number | null {
  for (const k of ['cases', 'totalCases', 'generatedCases', 'casesRun'])
    if (typeof report[k] === 'number') return report[k];
  const counts = report.counts as Json | undefined;
  if (counts && typeof counts.cases === 'number') return counts.cases;
  let sum = 0;
  let found = false;
  const visit = (v: unknown, depth: number) => {
    if (depth > 4 || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach((x) => visit(x, depth + 1));
    const o = v as Json;
    for (const k of ['cases', 'numRuns', 'casesRun', 'generatedCases']) {
      if (typeof o[k] === 'number') {
        sum += o[k];
        found = true;
        return;
      }
    }
    for (const x of Object.values(o)) visit(x, depth + 1);
  };
  visit(report.checks, 0);
  return found ? sum : null;
}

export const harnessSection: Section = {
  id: 'harness',
  title: 'Conformance harness',
  budgetS: () => HARNESS_TIMEOUT_MS / 1000 + 120 + HARNESS_RUNS.length * 300,
  async run(ctx) {
    if (!existsSync(`${ROOT}conformance/cli.ts`)) throw new Error('conformance/cli.ts does not exist yet');
    ctx.log('starting the sandbox (default settings)');
    const sb = await startSandboxChild(ctx.group, { noRateLimits: false });
    const dir = mkdtempSync(join(tmpdir(), 'bench-conformance-'));
    try {
      const args = [
        'conformance/cli.ts',
        '--target',
        sb.baseUrl,
        '--admin-token',
        sb.adminToken,
        '--anon-mcp',
        sb.anonMcpUrl,
        '--report-dir',
        dir,
        '--no-save-regressions',
      ];
      ctx.log(`  tsx ${args.join(' ').replace(sb.adminToken, '<admin token>')}`);
      const t0 = performance.now();
      const child = ctx.group.spawn('conformance run', TSX, args, { cwd: ROOT });
      const exit = await new Promise<number | string>((resolve) => {
        const timer = setTimeout(() => {
          void ctx.group.stop(child);
          resolve('timeout');
        }, HARNESS_TIMEOUT_MS);
        child.proc.once('exit', (code, signal) => {
          clearTimeout(timer);
          resolve(code ?? signal ?? 'unknown');
        });
      });
      const wallS = (performance.now() - t0) / 1000;
      await ctx.group.stop(sb.child);
      const runs = await measureHarnessRuns(ctx);
      const target = below(60, '< 60 s');
      const figures: Figure[] = [];
      if (exit === 'timeout') {
        figures.push(
          figure(
            'harness.wall',
            'Full conformance run, wall time',
            wallS,
            's',
            target,
            `stopped after ${HARNESS_TIMEOUT_MS / 1000} s without finishing`,
          ),
        );
        return {
          figures: [...figures, ...runs.figures],
          tables: runs.tables,
          notes: [`Output tail: ${short(child.tail(), 600)}`],
          data: { runs: runs.data },
        };
      }
      const file = join(dir, 'report.json');
      if (!existsSync(file)) {
        figures.push(
          notMeasured(
            'harness.wall',
            'Full conformance run, wall time',
            's',
            `exit ${exit} and no report.json: ${short(child.tail(), 400)}`,
            target,
          ),
        );
        return { figures: [...figures, ...runs.figures], tables: runs.tables, data: { runs: runs.data } };
      }
      const report = JSON.parse(readFileSync(file, 'utf8')) as Json;
      const checks = Array.isArray(report.checks) ? (report.checks as { status?: string }[]) : [];
      const tally = (s: string) => checks.filter((c) => c.status === s).length;
      const outcome = `exit ${exit}; ${checks.length} checks: ${tally('pass')} passed, ${tally('fail')} failed, ${tally('skip')} skipped, ${tally('error')} errored; ${typeof report.runs === 'number' ? report.runs : '?'} runs per property, seed ${typeof report.seed === 'number' ? report.seed : '?'}`;
      figures.push(figure('harness.wall', 'Full conformance run, wall time', wallS, 's', target, outcome));
      const cases = casesOf(report);
      figures.push(
        cases === null
          ? notMeasured('harness.cases', 'Generated cases run', 'cases', 'report.json states no case count')
          : figure(
              'harness.cases',
              'Generated cases run',
              cases,
              'cases',
              undefined,
              `${(cases / wallS).toFixed(1)} cases/s over the whole run`,
            ),
      );
      return {
        figures: [...figures, ...runs.figures],
        tables: runs.tables,
        notes: [
          'Run as a user would: `tsx conformance/cli.ts --target <sandbox> --admin-token <token> --anon-mcp <anon MCP URL> --report-dir <tmp> --no-save-regressions`, against a sandbox child started with default settings (rate limits on, demo tenants).',
          'Wall time runs from spawning the harness to its exit, start-up included; `--no-save-regressions` keeps a benchmark run from writing counterexamples into fixtures/.',
          'The full runs below are made in a worker process exactly as test/harness-alt.test.ts and test/harness-selfrun.test.ts make them (bench/workers/harness-run.ts); "before" is the same run on the sequential runner (commit 77e1e92) on this machine, recorded in bench/sections/harness-runs.ts.',
        ],
        data: {
          exit,
          wallS,
          counts: report.counts ?? null,
          durationMs: report.durationMs ?? null,
          cases,
          runs: runs.data,
        },
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
