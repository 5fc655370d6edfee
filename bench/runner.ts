// Runs the selected benchmark sections one after another, each bounded in time and followed by the
// shutdown of every child process it started, then writes the reports. A section that cannot run
// is reported as "not measured" with its reason instead of ending the run.

import { ChildGroup } from './lib/children.js';
import { errorMessage, type SectionResult } from './lib/figures.js';
import { machineInfo } from './lib/machine.js';
import { writeReports, type BenchReport } from './lib/report.js';
import type { BenchOptions, Section } from './lib/section.js';

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
  ]).finally(() => clearTimeout(timer));
}

export async function runSection(
  section: Section,
  opts: BenchOptions,
  log: (m: string) => void,
): Promise<SectionResult> {
  const group = new ChildGroup();
  const t0 = performance.now();
  const budget = section.budgetS(opts);
  const base = { id: section.id, title: section.title };
  try {
    const out = await withTimeout(
      section.run({ opts, group, log }),
      budget * 1000,
      `the section did not finish within its ${Math.round(budget)} s budget`,
    );
    return {
      ...base,
      figures: out.figures,
      tables: out.tables ?? [],
      notes: out.notes ?? [],
      durationS: (performance.now() - t0) / 1000,
      ...(out.data !== undefined ? { data: out.data } : {}),
    };
  } catch (err) {
    log(`  ${section.id}: not measured: ${errorMessage(err)}`);
    return {
      ...base,
      notMeasured: errorMessage(err),
      figures: [],
      tables: [],
      notes: [],
      durationS: (performance.now() - t0) / 1000,
    };
  } finally {
    await group.stopAll();
  }
}

export async function runBench(
  opts: BenchOptions,
  sections: Section[],
  log: (m: string) => void = () => {},
): Promise<{ report: BenchReport; files: { md: string; json: string } }> {
  const t0 = performance.now();
  const machine = machineInfo();
  const results: SectionResult[] = [];
  for (const section of sections.filter((s) => opts.sections.includes(s.id))) {
    log(`== ${section.title}`);
    results.push(await runSection(section, opts, log));
  }
  const report: BenchReport = {
    generatedAt: new Date().toISOString(),
    wallTimeS: (performance.now() - t0) / 1000,
    machine,
    options: opts,
    sections: results,
  };
  return { report, files: writeReports(report) };
}
