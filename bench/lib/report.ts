// Renders the benchmark results as reports/bench.md (for people) and reports/bench.json (for tools).

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, type Figure, type SectionResult } from './figures.js';
import type { MachineInfo } from './machine.js';
import type { BenchOptions } from './section.js';

export interface BenchReport {
  generatedAt: string;
  wallTimeS: number;
  machine: MachineInfo;
  options: BenchOptions;
  sections: SectionResult[];
}

function value(f: Figure): string {
  if (f.value === null) return '—';
  const unit = f.unit === '×' ? '×' : f.unit ? ` ${f.unit}` : '';
  return `${fmt(f.value)}${unit}`;
}

const cell = (v: unknown) =>
  (v === null || v === undefined
    ? '—'
    : typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean'
        ? v.toString()
        : JSON.stringify(v)
  )
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

export function allFigures(report: BenchReport): Figure[] {
  return report.sections.flatMap((s) => s.figures);
}

export function renderMarkdown(r: BenchReport): string {
  const m = r.machine;
  const out: string[] = [];
  out.push('# Benchmarks', '');
  out.push(`Generated ${r.generatedAt} by \`npm run bench\` in ${fmt(r.wallTimeS, 0)} s.`, '');
  if (r.options.quick)
    out.push(
      '> **Quick mode**: reduced durations, sizes and counts. These figures are not comparable with the targets.',
      '',
    );
  out.push('| Machine | |', '|---|---|');
  out.push(
    `| CPU | ${cell(m.cpuModel)} |`,
    `| Cores | ${m.cores} |`,
    `| Memory | ${m.memoryGiB} GiB |`,
    `| Node | ${m.node} |`,
    `| OS | ${cell(m.platform)} |`,
    `| Load average at start (1/5/15 min) | ${m.loadAverage.join(' / ')} |`,
    '',
  );
  const reps = r.options.repetitions ?? 3;
  const runs =
    reps === 1
      ? '**one run per measurement** (not a median of several runs)'
      : `the median of ${reps} interleaved runs per measurement`;
  out.push(
    `Load settings: ${r.options.connections} connections, ${r.options.warmupS} s warm-up, ${r.options.durationS} s measured, ${runs}. ` +
      'Rate limits are **lifted** (`--no-rate-limits`) for the load and webhook measurements; the conformance run uses default settings.',
    '',
  );

  const targeted = allFigures(r).filter((f) => f.target);
  out.push('## Targets', '', '| Figure | Value | Target | Result |', '|---|---|---|---|');
  for (const f of targeted)
    out.push(
      `| ${cell(f.label)} | ${value(f)} | ${cell(f.target!.text)} | ${f.verdict === 'NOT MEASURED' ? `NOT MEASURED: ${cell(f.note)}` : `**${f.verdict}**`} |`,
    );
  const misses = targeted.filter((f) => f.verdict === 'MISS');
  const unmeasured = targeted.filter((f) => f.verdict === 'NOT MEASURED');
  out.push('');
  out.push(
    misses.length
      ? `**Missed targets (${misses.length}):** ${misses.map((f) => `${f.label} (${value(f)}, target ${f.target!.text})`).join('; ')}.`
      : '**No target missed** among the measured figures.',
    '',
  );
  if (unmeasured.length) out.push(`Targets not measured: ${unmeasured.length} (reasons in the table above).`, '');
  for (const s of r.sections.filter((x) => x.notMeasured))
    out.push(`Section **${s.title}** not measured: ${s.notMeasured}`, '');

  for (const s of r.sections) {
    out.push(`## ${s.title}`, '');
    if (s.notMeasured) {
      out.push(`Not measured: ${s.notMeasured}`, '');
      continue;
    }
    out.push('| Figure | Value | Target | Result | Note |', '|---|---|---|---|---|');
    for (const f of s.figures)
      out.push(
        `| ${cell(f.label)} | ${value(f)} | ${cell(f.target?.text ?? '—')} | ${f.verdict} | ${cell(f.note ?? '')} |`,
      );
    out.push('');
    for (const t of s.tables) {
      out.push(
        `**${t.title}**`,
        '',
        `| ${t.columns.map(cell).join(' | ')} |`,
        `|${t.columns.map(() => '---').join('|')}|`,
      );
      for (const row of t.rows) out.push(`| ${row.map(cell).join(' | ')} |`);
      out.push('');
    }
    for (const n of s.notes) out.push(`- ${n}`);
    if (s.notes.length) out.push('');
    out.push(`_Section wall time: ${fmt(s.durationS, 0)} s._`, '');
  }
  return out.join('\n');
}

export function writeReports(r: BenchReport): { md: string; json: string } {
  mkdirSync(r.options.outDir, { recursive: true });
  const md = join(r.options.outDir, 'bench.md');
  const json = join(r.options.outDir, 'bench.json');
  writeFileSync(md, renderMarkdown(r));
  writeFileSync(json, JSON.stringify(r, null, 2) + '\n');
  return { md, json };
}
