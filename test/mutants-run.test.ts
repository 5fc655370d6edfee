// `npm run mutants` end to end on chosen mutants, through the real pipeline (a mutated copy of the
// alternate deployment per mutant, a child process each, the harness keys-only, restricted with --only to
// the jobs search and market checks so it takes seconds): a mutant that refuses every search page is
// killed under `must` ids, a mutant of the USD→IDR rate (a figure the documents never give) survives and
// is reported with its diff, and a control run of the unmutated deployment passes; a reviewed survivor is left out of the pool and listed, and a sample stays the same whatever is reviewed; a run past its
// time limit, and past twice that limit on a second run, is reported as timed out.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { figuresOf } from '../bench/sections/mutants.js';
import { mustIds } from '../mutants/model.js';
import { buildReport, reportMarkdown, writeReport } from '../mutants/report.js';
import { chooseMutants, listMutants, ruleFiles, runMutants, type RunSettings } from '../mutants/run.js';

const dir = mkdtempSync(path.join(tmpdir(), 'mutants-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { mutants } = listMutants(ruleFiles(['jobs-domain', 'market']));
const pick = (file: string, operator: string, original: string, replacement: string) => {
  const m = mutants.find(
    (x) => x.file.endsWith(file) && x.operator === operator && x.original === original && x.replacement === replacement,
  );
  if (!m)
    throw new Error(
      `no mutant ${operator} ${original} → ${replacement} in ${file} any more: choose another for this test`,
    );
  return m;
};
const pageCap = pick('jobs-domain.ts', 'condition', 'page >= cap', 'true');
const idrRate = pick('market.ts', 'number', '15_500', '15501');

const settings = (over: Partial<RunSettings>): RunSettings => ({
  sample: 'all',
  seed: 1,
  concurrency: 2,
  includeReviewed: false,
  files: ['jobs-domain', 'market'],
  reviewedFile: path.join(dir, 'none.yaml'),
  worker: {
    seed: 20261123,
    runs: 2,
    allowSpend: ['free'],
    rateWindows: false,
    failFast: true,
    only: ['jobs.search.valid', 'jobs.market.every-tier'],
  },
  ...over,
});

describe('npm run mutants, end to end on chosen mutants', () => {
  it('kills an observable mutant under must ids and reports a survivor with its diff', async () => {
    const run = await runMutants(settings({ keys: [pageCap.key, idrRate.key], controlEvery: 2, concurrency: 3 }));
    const by = Object.fromEntries(run.results.map((r) => [r.key, r]));
    expect(by[pageCap.key].outcome).toBe('killed');
    expect(by[pageCap.key].failed.length).toBeGreaterThan(0);
    const must = mustIds();
    for (const id of by[pageCap.key].failed) expect(must.has(id), id).toBe(true);
    expect(by[idrRate.key].outcome).toBe('survived');
    // one control run of the unmutated deployment after the two mutants, which passes
    expect(run.controls.map((c) => c.outcome)).toEqual(['survived']);

    const report = buildReport(run);
    expect(report.overall).toMatchObject({ mutants: 2, killed: 1, survived: 1, timeout: 0, error: 0, score: 0.5 });
    expect(report.byFile['test/alt-deployment/market.ts']).toMatchObject({ mutants: 1, survived: 1, killed: 0 });
    for (const id of by[pageCap.key].failed) expect(report.byRequirement[id].mutants).toEqual([pageCap.key]);
    const files = writeReport(report, dir);
    const md = readFileSync(files.md, 'utf8');
    expect(md).toContain('**Score 50.0%**');
    expect(md).toContain('Control runs: all 1 runs of the unmutated deployment between the mutants passed.');
    expect(md).toContain(`### ${idrRate.key} — test/alt-deployment/market.ts:${idrRate.line} (number)`);
    expect(md).toMatch(/^- .*15_500/m);
    expect(md).toMatch(/^\+ .*15501/m);
    // npm run bench reports the score against the 90% goal
    const score = figuresOf(JSON.parse(readFileSync(files.json, 'utf8')), 'the test', new Set()).figures.find(
      (f) => f.id === 'mutants.score',
    )!;
    expect([score.value, score.verdict]).toEqual([50, 'MISS']);
    expect(JSON.parse(readFileSync(files.json, 'utf8')).survivors.map((s: { key: string }) => s.key)).toEqual([
      idrRate.key,
    ]);
  }, 180_000);

  it('leaves reviewed survivors out of the pool and lists them; names stale entries', () => {
    const reviewedFile = path.join(dir, 'survivors.yaml');
    writeFileSync(
      reviewedFile,
      `reviewed:\n  - key: ${idrRate.key}\n    file: ${idrRate.file}\n    verdict: unobservable\n    reason: the documents give no exchange rate\n  - key: market-0000000000\n    file: test/alt-deployment/market.ts\n    verdict: equivalent\n    reason: gone\n`,
    );
    const c = chooseMutants(settings({ reviewedFile }));
    expect(c.chosen.map((m) => m.key)).not.toContain(idrRate.key);
    expect(c.chosen).toHaveLength(mutants.length - 1);
    expect(c.reviewedSkipped.map((r) => [r.key, r.verdict, r.original])).toEqual([
      [idrRate.key, 'unobservable', '15_500'],
    ]);
    expect(c.staleReviewed.map((r) => r.key)).toEqual(['market-0000000000']);
    expect(chooseMutants(settings({ reviewedFile, includeReviewed: true })).chosen).toHaveLength(mutants.length);
    writeFileSync(reviewedFile, `reviewed:\n  - key: ${idrRate.key}\n    verdict: fine\n    reason: x\n`);
    expect(() => chooseMutants(settings({ reviewedFile }))).toThrow(/verdict/);
  });

  it('draws the same sample whatever has been reviewed: a drawn reviewed survivor is set aside, the rest run', () => {
    const before = chooseMutants(settings({ sample: 12, seed: 5 }));
    expect(before.chosen).toHaveLength(12);
    const set = before.chosen[3];
    const reviewedFile = path.join(dir, 'one-reviewed.yaml');
    writeFileSync(
      reviewedFile,
      `reviewed:\n  - key: ${set.key}\n    file: ${set.file}\n    verdict: unobservable\n    reason: a reason\n`,
    );
    const after = chooseMutants(settings({ sample: 12, seed: 5, reviewedFile }));
    expect(after.chosen.map((m) => m.key)).toEqual(before.chosen.filter((m) => m !== set).map((m) => m.key));
    expect(after.reviewedSkipped.map((r) => r.key)).toEqual([set.key]);
    expect(after.reviewedInFiles).toBe(1);
  });

  it('runs a survivor through the rate-window checks: a talent_search without its daily limit is killed there', async () => {
    const noDailyLimit = listMutants(ruleFiles(['mcp-employer'])).mutants.find(
      (m) =>
        m.operator === 'condition' && m.original === 't.talentSearchDay.count >= perDay' && m.replacement === 'false',
    )!;
    expect(noDailyLimit).toBeDefined();
    const run = await runMutants(
      settings({
        files: ['mcp-employer'],
        keys: [noDailyLimit.key],
        controlEvery: 0,
        ratePass: true,
        rateChecks: ['mcp.tools.talent-daily-limit'],
      }),
    );
    // the main run (search and market checks only) passes; the pass through the daily limit kills it
    expect(run.results[0]).toMatchObject({ outcome: 'killed', byRatePass: true });
    expect(run.results[0].failed).toContain('MCP-TOOL-10');
  }, 180_000);

  it('reports a run past its time limit as timed out', async () => {
    const run = await runMutants(
      settings({
        keys: [idrRate.key],
        timeoutMs: 300,
        worker: { ...settings({}).worker, only: ['jobs.market.skills'] },
      }),
    );
    expect(run.results.map((r) => r.outcome)).toEqual(['timeout']);
    // it timed out twice: once at the limit and once, run again, at twice the limit
    expect(run.results[0].rerunAfterTimeout).toBe(true);
    expect(buildReport(run).overall).toMatchObject({ timeout: 1, score: 1 });
    expect(reportMarkdown(buildReport(run))).toContain('## Run again after a timeout (1)');
  }, 120_000);
});
