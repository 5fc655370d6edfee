// Baselines and the coverage index end to end, against this sandbox with a planted bug switched on
// (charge_twice_on_replay breaks SCR-IDEMP-3): through the CLI, --write-baseline writes the failure of
// a failing run (exit 1) and a run given a baseline listing it exits 0 and reports it known; through the
// programmatic API, the written file accepts the failure, an expired entry fails again, a failure the
// baseline does not list is new, a previous report.json is a baseline, and once the bug is gone the entry
// is reported fixed. The reports state the coverage index, with the cause of each unobserved requirement.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../conformance/index.js';
import type { RunResult } from '../conformance/index.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';

const BUG = 'charge_twice_on_replay';
const ONLY = 'SCR-IDEMP-3';
/** The one check each run runs (it finds the bug with this seed). */
const CHECK = 'screening.idempotency.replay';
const sb = useSandbox({ selfCheck: false, seedDemo: false });
const admin = () => client(sb.get().baseUrl, ADMIN_TOKEN);
const dir = mkdtempSync(path.join(tmpdir(), 'conformance-baseline-'));
const common = () => [
  '--target',
  sb.get().baseUrl,
  '--admin-token',
  ADMIN_TOKEN,
  '--runs',
  '3',
  '--seed',
  '1',
  '--no-save-regressions',
  '--quiet',
  '--only',
  CHECK,
];
const cli = (args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', ...args]).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (e: { code?: number; stderr?: string }) => ({ code: e.code ?? -1, stderr: e.stderr ?? '' }),
  );
const report = (d: string) => JSON.parse(readFileSync(path.join(d, 'report.json'), 'utf8')) as RunResult;
const run = (extra: Record<string, unknown> = {}) =>
  runConformance({
    target: sb.get().baseUrl,
    adminToken: ADMIN_TOKEN,
    seed: 1,
    runs: 3,
    only: [CHECK],
    reportDir: null,
    saveRegressions: false,
    progress: false,
    ...extra,
  });

beforeAll(async () => {
  expect((await admin()('PUT', `/sandbox/v1/bugs/${BUG}`)).status).toBe(200);
});
afterAll(async () => {
  await admin()('DELETE', `/sandbox/v1/bugs/${BUG}`);
});

describe('baselines through the CLI', () => {
  const written = path.join(dir, 'baseline.yaml');

  it('--write-baseline writes the failures of a failing run (exit 1); with a baseline listing the failure the run exits 0 and reports it known', async () => {
    const first = path.join(dir, 'first');
    const kept = path.join(dir, 'kept.yaml');
    writeFileSync(
      kept,
      YAML.stringify({
        version: 1,
        entries: [{ requirement: ONLY, reason: 'replay charges twice, fix tracked in PAY-123', expires: '2999-12-31' }],
      }),
    );
    const known = path.join(dir, 'known');
    // two processes side by side: each run provisions its own tenants
    const [a, b] = await Promise.all([
      cli([...common(), '--report-dir', first, '--write-baseline', written]),
      cli([...common(), '--report-dir', known, '--baseline', kept]),
    ]);

    expect(a.code, a.stderr).toBe(1);
    const entries = YAML.parse(readFileSync(written, 'utf8')).entries;
    expect(entries).toEqual([
      {
        requirement: ONLY,
        reason: expect.stringMatching(
          /^failing since \d{4}-\d{2}-\d{2} \(found by screening\.idempotency\.replay\): \d+ replay/,
        ),
      },
    ]);
    expect(report(first).requirements.find((r) => r.id === ONLY)!.status).toBe('fail');

    expect(b.code, b.stderr).toBe(0);
    const kb = report(known);
    expect(kb.ok).toBe(true);
    expect(kb.baseline).toMatchObject({
      known: [ONLY],
      new: [],
      expired: [],
      entries: [expect.objectContaining({ requirement: ONLY, state: 'known' })],
    });
    expect(kb.requirements.find((r) => r.id === ONLY)!.status).toBe('fail'); // still a failure, only accepted
    const junit = readFileSync(path.join(known, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuite name="must" tests="\d+" failures="0"/);
    expect(junit).toContain('<skipped message="known failure (baseline: replay charges twice, fix tracked in PAY-123)');
    expect(readFileSync(path.join(known, 'report.html'), 'utf8')).toContain('fail (known)');
  }, 60_000);

  it('the written baseline accepts the failure it lists', async () => {
    const r = await run({ baseline: written });
    expect(r.ok).toBe(true);
    expect(r.baseline).toMatchObject({ format: 'baseline', known: [ONLY] });
  }, 30_000);
});

describe('baselines from code', () => {
  it('an expired entry fails again; a failure the baseline does not list is new; a previous report.json is a baseline; a fixed failure is reported so the entry can be pruned', async () => {
    const expired = await run({
      baseline: { entries: [{ requirement: ONLY, reason: 'accepted until the fix ships', expires: '2020-01-31' }] },
    });
    expect(expired.ok).toBe(false);
    expect(expired.baseline).toMatchObject({
      known: [],
      expired: [ONLY],
      entries: [expect.objectContaining({ state: 'expired', expires: '2020-01-31' })],
    });
    const later = await run({
      baseline: { entries: [{ requirement: ONLY, reason: 'accepted until the fix ships', expires: '2999-01-31' }] },
    });
    expect(later.ok).toBe(true);

    const other = await run({ baseline: { entries: [{ requirement: 'SCR-IDEMP-1', reason: 'another one' }] } });
    expect(other.ok).toBe(false);
    expect(other.baseline).toMatchObject({ new: [ONLY], known: [] });
    // SCR-IDEMP-1 is observed by the same check and passes: its entry is fixed
    expect(other.baseline!.entries).toEqual([expect.objectContaining({ requirement: 'SCR-IDEMP-1', state: 'fixed' })]);

    const prev = path.join(dir, 'from-code');
    const failing = await run({ reportDir: prev });
    expect(failing.ok).toBe(false);
    const fromReport = await run({ baseline: path.join(prev, 'report.json') });
    expect(fromReport.ok).toBe(true);
    expect(fromReport.baseline).toMatchObject({ format: 'report', known: [ONLY] });

    await admin()('DELETE', `/sandbox/v1/bugs/${BUG}`);
    try {
      const fixed = await run({ baseline: path.join(prev, 'report.json') });
      expect(fixed.ok).toBe(true);
      expect(fixed.baseline!.entries).toEqual([expect.objectContaining({ requirement: ONLY, state: 'fixed' })]);
    } finally {
      await admin()('PUT', `/sandbox/v1/bugs/${BUG}`);
    }

    // the coverage index of these runs: what they observed, and why the rest was not observed
    const c = failing.coverage;
    expect(c.must).toBe(failing.requirements.filter((x) => x.level === 'must').length);
    expect(c.observed).toBe(failing.counts.must.pass + failing.counts.must.fail);
    expect(c.passed).toBe(failing.counts.must.pass);
    expect(c.index).toBeCloseTo(c.observed / c.must);
    const cause = (id: string) => c.unobserved.find((u) => u.id === id)?.cause;
    expect(cause(ONLY)).toBeUndefined();
    expect(cause('JOB-AUTH-4')).toBe('not-observable');
    expect(cause('SCR-HOOK-1')).toBe('not-selected');
    expect(JSON.parse(readFileSync(path.join(prev, 'report.json'), 'utf8')).coverage).toEqual(c);
  }, 90_000);

  it('keys only, no webhook receiver: the coverage index blames the webhook requirements on the missing capability', async () => {
    const { apiKey } = await createTenant(sb.get().baseUrl, { planTier: 'pro' });
    const keysOnly = await runConformance({
      target: sb.get().baseUrl,
      keys: { pro: apiKey },
      seed: 1,
      runs: 1,
      only: ['SCR-HOOK-1'],
      reportDir: null,
      saveRegressions: false,
      progress: false,
    });
    const hook = keysOnly.coverage.unobserved.find((u) => u.id === 'SCR-HOOK-1')!;
    expect(hook).toMatchObject({ cause: 'capability', missing: ['webhooks'] });
    expect(hook.reasons[0]).toMatch(/webhook receiver/);
  }, 30_000);
});
