// The mutation report: score = detected / (run − errors), where detected = killed + timed out, and
// reviewed survivors (mutants/survivors.yaml) are not run, so they are outside the denominator. Written
// as report.json (everything) and report.md (per file, per requirement id, each survivor's diff).

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ratePassOn, type MutationRun, type MutantResult, type Outcome } from './run.js';

export interface Tally {
  mutants: number;
  killed: number;
  survived: number;
  timeout: number;
  error: number;
  /** (killed + timeout) / (mutants − error), null when nothing was judged. */
  score: number | null;
}

export function tally(rs: readonly Pick<MutantResult, 'outcome'>[]): Tally {
  const n = (o: Outcome) => rs.filter((r) => r.outcome === o).length;
  const t = {
    mutants: rs.length,
    killed: n('killed'),
    survived: n('survived'),
    timeout: n('timeout'),
    error: n('error'),
  };
  const judged = t.mutants - t.error;
  return { ...t, score: judged ? (t.killed + t.timeout) / judged : null };
}

export interface MutationReport {
  startedAt: string;
  durationS: number;
  settings: MutationRun['settings'];
  cleanRunS: number;
  timeoutS: number;
  files: string[];
  totalMutants: number;
  /** The files' mutants less their reviewed survivors. */
  pool: number;
  /** The reviewed survivors among the files' mutants (a sample draws from all, then leaves the reviewed ones out). */
  reviewedInFiles: number;
  /** Set while the run is still going (or was interrupted): chosen mutants not yet judged. */
  unfinished?: number;
  overall: Tally;
  byFile: Record<string, Tally & { reviewed: number }>;
  byOperator: Record<string, Tally>;
  /** Per `must` id: the mutants whose run failed it. */
  byRequirement: Record<string, { killed: number; mutants: string[] }>;
  /** The unmutated deployment, run again between the mutants. */
  controls: MutationRun['controls'];
  survivors: MutantResult[];
  timeouts: MutantResult[];
  errors: MutantResult[];
  reviewed: MutationRun['reviewedSkipped'];
  staleReviewed: MutationRun['staleReviewed'];
  mutants: MutantResult[];
}

const groupBy = <T>(xs: readonly T[], key: (x: T) => string) => {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
};

export function buildReport(run: MutationRun): MutationReport {
  const rs = run.results;
  const byFile: MutationReport['byFile'] = {};
  for (const f of run.files)
    byFile[f] = {
      ...tally(rs.filter((r) => r.file === f)),
      reviewed: run.reviewedSkipped.filter((r) => r.file === f).length,
    };
  const byOperator = Object.fromEntries([...groupBy(rs, (r) => r.operator)].sort().map(([k, v]) => [k, tally(v)]));
  const byRequirement: MutationReport['byRequirement'] = {};
  for (const r of rs.filter((x) => x.outcome === 'killed'))
    for (const id of r.failed) {
      const entry = (byRequirement[id] ??= { killed: 0, mutants: [] });
      entry.killed++;
      entry.mutants.push(r.key);
    }
  return {
    startedAt: run.startedAt,
    durationS: Math.round(run.durationMs / 1000),
    settings: run.settings,
    cleanRunS: Math.round(run.clean.durationMs / 100) / 10,
    timeoutS: Math.round(run.timeoutMs / 1000),
    files: run.files,
    totalMutants: run.totalMutants,
    pool: run.pool,
    reviewedInFiles: run.reviewedInFiles ?? run.totalMutants - run.pool,
    ...(run.unfinished ? { unfinished: run.unfinished } : {}),
    overall: tally(rs),
    byFile,
    byOperator,
    byRequirement: Object.fromEntries(Object.entries(byRequirement).sort(([a], [b]) => a.localeCompare(b))),
    controls: run.controls,
    survivors: rs.filter((r) => r.outcome === 'survived'),
    timeouts: rs.filter((r) => r.outcome === 'timeout'),
    errors: rs.filter((r) => r.outcome === 'error'),
    reviewed: run.reviewedSkipped,
    staleReviewed: run.staleReviewed,
    mutants: rs,
  };
}

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function reportMarkdown(r: MutationReport): string {
  const s = r.settings;
  const lines: string[] = [];
  const o = r.overall;
  lines.push('# Mutation report: the harness against mutants of the alternate deployment', '');
  lines.push(
    `Run ${r.startedAt}, ${r.durationS} s. ${s.keys?.length ? `Mutants chosen by key: ${s.keys.length} of the ${r.totalMutants} mutants in ${r.files.length} files` : `${s.sample === 'all' ? 'Every mutant' : `A sample of ${s.sample} (seed ${s.seed})`} of the ${r.totalMutants} mutants in ${r.files.length} files (${r.reviewedInFiles} of them reviewed survivors); the ${r.reviewed.length} reviewed survivors drawn are not run, the other ${r.mutants.length + (r.unfinished ?? 0)} are`}; ${s.concurrency} at a time. Harness: keys only, seed ${s.worker.seed}, ${s.worker.runs} runs per property, allow-spend ${s.worker.allowSpend.join(',') || 'none'}, rate windows ${s.worker.rateWindows ? 'spent' : ratePassOn(s) ? 'left alone, then spent by the rate-window checks on each survivor' : 'left alone'}, ${s.worker.failFast ? 'stopped at the first `must` failure' : 'run to the end'}. Clean run ${r.cleanRunS} s; a mutant's run times out after ${r.timeoutS} s.`,
    '',
  );
  if (r.unfinished)
    lines.push(
      `**Unfinished: ${r.unfinished} chosen mutants not judged yet** (the run is going on, or was interrupted); the figures below cover the judged ones.`,
      '',
    );
  lines.push(
    `**Score ${pct(o.score)}**: ${o.killed} killed + ${o.timeout} timed out of ${o.mutants - o.error} judged (${o.survived} survived, ${o.error} did not start; score = (killed + timed out) / (run − errors); reviewed survivors are not run).${r.survivors.some((m) => m.unjudged?.length) ? ` ${r.survivors.filter((m) => m.unjudged?.length).length} of the survivors made the harness skip \`must\` ids it passes on the clean deployment (it exits 0, but could not judge them; see each survivor).` : ''}`,
    '',
  );
  const failedControls = r.controls.filter((c) => c.outcome !== 'survived');
  if (r.controls.length)
    lines.push(
      failedControls.length
        ? `**Control runs: ${failedControls.length} of ${r.controls.length} runs of the unmutated deployment between the mutants FAILED** (${failedControls.map((c) => `${c.outcome}${c.failed.length ? ` under ${c.failed.join(', ')}` : ''}${c.why ? `: ${cell(c.why.slice(0, 200))}` : ''}`).join('; ')}): kills under those ids may be false.`
        : `Control runs: all ${r.controls.length} runs of the unmutated deployment between the mutants passed.`,
      '',
    );
  lines.push(
    '## Per file',
    '',
    '| File | Mutants run | Killed | Timed out | Survived | Errors | Score | Reviewed (not run) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const [f, t] of Object.entries(r.byFile))
    lines.push(
      `| ${f} | ${t.mutants} | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.error} | ${pct(t.score)} | ${t.reviewed} |`,
    );
  lines.push(
    '',
    '## Per operator',
    '',
    '| Operator | Mutants run | Killed | Timed out | Survived | Errors | Score |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const [k, t] of Object.entries(r.byOperator))
    lines.push(`| ${k} | ${t.mutants} | ${t.killed} | ${t.timeout} | ${t.survived} | ${t.error} | ${pct(t.score)} |`);
  lines.push('', '## Per requirement id (the `must` ids whose checks failed on a killed mutant)', '');
  if (!Object.keys(r.byRequirement).length) lines.push('None.');
  else {
    lines.push('| Requirement | Mutants killed | Mutants |', '|---|---:|---|');
    for (const [id, x] of Object.entries(r.byRequirement))
      lines.push(`| ${id} | ${x.killed} | ${x.mutants.join(', ')} |`);
  }
  const section = (title: string, xs: MutantResult[], extra: (m: MutantResult) => string) => {
    lines.push('', `## ${title} (${xs.length})`, '');
    if (!xs.length) return void lines.push('None.');
    for (const m of xs)
      lines.push(`### ${m.key} — ${m.file}:${m.line} (${m.operator})`, '', extra(m), '', '```diff', m.diff, '```', '');
  };
  section(
    'Survivors: a stronger check should kill each, or it is reviewed in mutants/survivors.yaml',
    r.survivors,
    (m) =>
      `Survived a full run (${(m.durationMs / 1000).toFixed(0)} s).${m.unjudged?.length ? ` The harness could not judge ${m.unjudged.length} \`must\` ids that pass on the clean deployment (skipped): ${m.unjudged.join(', ')}.` : ''}`,
  );
  const reruns = r.mutants.filter((m) => m.rerunAfter);
  if (reruns.length) {
    lines.push(
      '',
      `## Run again after a broken connection (${reruns.length})`,
      '',
      "Each was killed first by a failure that was a broken connection, not an answer; the result above is the second run's.",
      '',
    );
    for (const m of reruns)
      lines.push(`- ${m.key} (${m.file}:${m.line}): now ${m.outcome}; first run: ${cell(m.rerunAfter!.slice(0, 200))}`);
  }
  const slow = r.mutants.filter((m) => m.rerunAfterTimeout);
  if (slow.length)
    lines.push(
      '',
      `## Run again after a timeout (${slow.length})`,
      '',
      `Each had no result within ${r.timeoutS} s at first and was run again with twice the limit; the result above is the second run's.`,
      '',
      ...slow.map((m) => `- ${m.key} (${m.file}:${m.line}): now ${m.outcome}`),
    );
  section(
    'Timed out (counted as detected)',
    r.timeouts,
    () =>
      `No result within ${r.timeoutS} s, nor within ${2 * r.timeoutS} s on a second run (the deployment hung or looped).`,
  );
  section('Errors (the deployment did not start; outside the score)', r.errors, (m) => cell(m.error ?? ''));
  lines.push('', `## Reviewed survivors drawn (not run, outside the score: ${r.reviewed.length})`, '');
  if (!r.reviewed.length) lines.push('None.');
  else {
    lines.push('| Key | File | Line | Change | Verdict | Reason |', '|---|---|---:|---|---|---|');
    for (const x of r.reviewed)
      lines.push(
        `| ${x.key} | ${x.file} | ${x.line ?? ''} | \`${cell(`${x.original ?? ''} → ${x.replacement ?? ''}`)}\` | ${x.verdict} | ${cell(x.reason)} |`,
      );
  }
  if (r.staleReviewed.length)
    lines.push(
      '',
      `Stale entries in mutants/survivors.yaml (no such mutant any more; delete them): ${r.staleReviewed.map((x) => x.key).join(', ')}`,
    );
  lines.push(
    '',
    '## Killed',
    '',
    '| Key | File:line | Operator | Change | Failed | First check | Time |',
    '|---|---|---|---|---|---|---:|',
  );
  for (const m of r.mutants.filter((x) => x.outcome === 'killed'))
    lines.push(
      `| ${m.key} | ${m.file}:${m.line} | ${m.operator} | \`${cell(`${m.original.slice(0, 60)} → ${m.replacement.slice(0, 40)}`)}\` | ${m.failed.join(', ') || (m.harnessErrors.length ? 'harness error' : '')} | ${m.firstCheck ?? ''} | ${(m.durationMs / 1000).toFixed(0)} s |`,
    );
  return `${lines.join('\n')}\n`;
}

export function writeReport(r: MutationReport, dir: string): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const json = path.join(dir, 'report.json');
  const md = path.join(dir, 'report.md');
  writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(md, reportMarkdown(r));
  return { json, md };
}
