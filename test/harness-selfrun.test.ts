// The conformance harness against a clean in-process sandbox: every `must` requirement that runs passes,
// the reports cover every requirement id, the saved counterexamples replay, and a target offering only
// fixed keys (no admin token) gets the checks it cannot support skipped with a reason, never passed.

import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../conformance/index.js';
import { loadCatalogue } from '../conformance/requirements.js';
import { createTenant, useSandbox } from './support/sandbox.js';

const sb = useSandbox({ seedDemo: false });
const catalogue = loadCatalogue(path.resolve('contracts/requirements.yaml'));

describe('conformance harness, clean self-run', () => {
  it('passes every must requirement that runs, and writes JUnit, JSON and HTML covering every id', async () => {
    const reportDir = mkdtempSync(path.join(tmpdir(), 'conformance-report-'));
    const { baseUrl, anonMcpUrl, adminToken } = sb.get();
    const r = await runConformance({
      target: baseUrl,
      anonMcp: anonMcpUrl,
      adminToken,
      seed: 20261122,
      runs: 15,
      reportDir,
      regressionsDir: 'fixtures/regressions',
      saveRegressions: false,
      progress: false,
    });
    const broken = r.requirements.filter(
      (x) => x.level === 'must' && x.status !== 'pass' && x.status !== 'not-covered' && x.status !== 'not-observable',
    );
    expect(broken.map((x) => `${x.id} ${x.status}: ${x.failures[0]?.why ?? x.reasons[0]}`)).toEqual([]);
    expect(r.ok).toBe(true);
    expect(r.unknownRequirementIds).toEqual([]);
    // every property evaluated at least its saved and generated inputs (15 per property here)
    expect(r.cases).toBeGreaterThanOrEqual(15 * 10);
    // every saved counterexample was replayed and passes against a correct target
    expect(r.regressions.length).toBeGreaterThan(0);
    expect(r.regressions.filter((x) => !x.passed)).toEqual([]);

    const junit = readFileSync(path.join(reportDir, 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)?.length).toBe(catalogue.all.length);
    const json = JSON.parse(readFileSync(path.join(reportDir, 'report.json'), 'utf8'));
    expect(json.cases).toBe(r.cases);
    expect(json.requirements.map((x: { id: string }) => x.id).sort()).toEqual(catalogue.all.map((x) => x.id).sort());
    const html = readFileSync(path.join(reportDir, 'report.html'), 'utf8');
    for (const req of catalogue.all) expect(html).toContain(`<code>${req.id}</code>`);
  }, 90_000);

  it('with fixed keys and no admin token, checks needing fresh tenants or the clock are skipped with the reason', async () => {
    const { baseUrl } = sb.get();
    const keys = Object.fromEntries(
      await Promise.all(
        (['free', 'starter', 'pro', 'scale'] as const).map(async (tier) => [
          tier,
          (await createTenant(baseUrl, { planTier: tier })).apiKey,
        ]),
      ),
    );
    const r = await runConformance({
      target: baseUrl,
      keys,
      seed: 7,
      runs: 5,
      only: ['SCR-CREDIT', 'SCR-SUBMIT-1', 'JOB-RATE'],
      reportDir: null,
      saveRegressions: false,
      progress: false,
      rateWindows: false,
    });
    const byId = Object.fromEntries(r.checks.map((c) => [c.id, c]));
    expect(byId['screening.credits.exhausted'].status).toBe('skip');
    expect(byId['screening.credits.exhausted'].skipReason).toMatch(/admin token|control API/);
    // a fixed key's rate window is spent only when the run allows it (--no-rate-windows here)
    expect(byId['jobs.rate.window'].status).toBe('skip');
    expect(byId['jobs.rate.window'].skipReason).toMatch(/no-rate-windows/);
    expect(byId['screening.submit.valid'].status).toBe('pass');
    expect(r.requirements.find((x) => x.id === 'SCR-CREDIT-3')!.status).toBe('skip');
    expect(r.capabilities.freshTenants).toBe(false);
    expect(r.ok).toBe(true);
  }, 60_000);
});
