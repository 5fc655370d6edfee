// The mutation score of the harness (`npm run mutants`, D-130): read from the latest mutation report
// (reports/mutants/report.json) when there is one, since a default mutation run takes about 25 minutes
// and the whole bench must stay under 15; without one, a small seeded sample is run here (a few minutes)
// and its score reported as such.

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tally, type MutationReport } from '../../mutants/report.js';
import { loadReviewed } from '../../mutants/run.js';
import { atLeast, figure, notMeasured, short, type Figure } from '../lib/figures.js';
import { ROOT, TSX } from '../lib/sandbox.js';
import type { Section } from '../lib/section.js';

export const LATEST_REPORT = join(ROOT, 'reports/mutants/report.json');
const BENCH_SAMPLE = 6;
const RUN_TIMEOUT_MS = 9 * 60_000;

/**
 * The report's figures, with the survivors reviewed since it was written (mutants/survivors.yaml) taken
 * out of the score as a new run would (it would not draw them).
 */
export function figuresOf(
  r: MutationReport,
  source: string,
  reviewed: ReadonlySet<string> = new Set(loadReviewed().map((x) => x.key)),
): { figures: Figure[]; notes: string[] } {
  const judged0 = r.mutants.filter((m) => !(m.outcome === 'survived' && reviewed.has(m.key)));
  const lateReviewed = r.mutants.length - judged0.length;
  const o = lateReviewed ? tally(judged0) : r.overall;
  const judged = o.mutants - o.error;
  const size = r.settings.keys?.length
    ? `${r.settings.keys.length} chosen mutants`
    : r.settings.sample === 'all'
      ? 'every mutant'
      : `a sample of ${r.settings.sample} (seed ${r.settings.seed})`;
  const note = `${source}: ${size} of ${r.pool}; ${o.killed} killed, ${o.timeout} timed out, ${o.survived} survived, ${o.error} errors; ${r.reviewed.length + lateReviewed} reviewed survivors outside the score${lateReviewed ? ` (${lateReviewed} of them reviewed after the run)` : ''}; ${r.durationS} s${r.unfinished ? `; interrupted: ${r.unfinished} chosen mutants not judged` : ''}`;
  const figures = [
    judged
      ? figure(
          'mutants.score',
          'Mutation score of the harness on the alternate deployment',
          Math.round((o.score ?? 0) * 1000) / 10,
          '%',
          atLeast(90, '≥ 90%'),
          note,
        )
      : notMeasured(
          'mutants.score',
          'Mutation score of the harness on the alternate deployment',
          '%',
          `${note}: nothing judged`,
          atLeast(90, '≥ 90%'),
        ),
    figure(
      'mutants.survivors',
      'Surviving mutants (not reviewed)',
      o.survived,
      'mutants',
      undefined,
      'each listed with its diff in reports/mutants/report.md',
    ),
  ];
  const worst = Object.entries(r.byFile)
    .filter(([, t]) => t.survived)
    .sort((a, b) => b[1].survived - a[1].survived)
    .slice(0, 5)
    .map(([f, t]) => `${f.replace('test/alt-deployment/', '')} ${t.survived}`);
  return {
    figures,
    notes: [
      `Started ${r.startedAt}; clean run ${r.cleanRunS} s.`,
      ...(worst.length ? [`Most survivors: ${worst.join(', ')}.`] : []),
    ],
  };
}

export const mutantsSection: Section = {
  id: 'mutants',
  title: 'Mutation score (npm run mutants)',
  budgetS: () => RUN_TIMEOUT_MS / 1000 + 60,
  async run(ctx) {
    if (existsSync(LATEST_REPORT)) {
      ctx.log(`reading ${LATEST_REPORT}`);
      return figuresOf(
        JSON.parse(readFileSync(LATEST_REPORT, 'utf8')) as MutationReport,
        'the latest `npm run mutants` report',
      );
    }
    const dir = mkdtempSync(join(tmpdir(), 'bench-mutants-'));
    try {
      const args = ['mutants/cli.ts', '--sample', String(BENCH_SAMPLE), '--concurrency', '3', '--report-dir', dir];
      ctx.log(`no mutation report yet: tsx ${args.join(' ')}`);
      const child = ctx.group.spawn('mutation sample', TSX, args, { cwd: ROOT });
      const exit = await new Promise<number | string>((resolve) => {
        const timer = setTimeout(() => {
          void ctx.group.stop(child);
          resolve('timeout');
        }, RUN_TIMEOUT_MS);
        child.proc.once('exit', (code, signal) => {
          clearTimeout(timer);
          resolve(code ?? signal ?? 'unknown');
        });
      });
      const file = join(dir, 'report.json');
      if (!existsSync(file))
        return {
          figures: [
            notMeasured(
              'mutants.score',
              'Mutation score of the harness on the alternate deployment',
              '%',
              `exit ${exit}, no report: ${short(child.tail(), 400)}`,
              atLeast(90, '≥ 90%'),
            ),
          ],
        };
      return figuresOf(
        JSON.parse(readFileSync(file, 'utf8')) as MutationReport,
        `a small sample run by the bench (no reports/mutants/report.json; \`npm run mutants\` gives the real figure)`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
