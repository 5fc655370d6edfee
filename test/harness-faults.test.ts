// Proof that the harness can fail: the sandbox's planted bugs are switched on one at a time, and a run
// restricted to the requirement area each bug breaks must fail on that requirement. The same table
// (bug → requirement id) is in the README. Also: a failure replays exactly from its seed and path and
// from its saved counterexample file, and the CLI exits 1 on a broken must requirement, 0 otherwise.

import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runConformance } from '../conformance/index.js';
import { ADMIN_TOKEN, client, useSandbox } from './support/sandbox.js';

/** bug → [--only prefix, the requirement id the run must fail on] */
export const BUG_REQUIREMENTS: Record<string, [string, string]> = {
  charge_twice_on_replay: ['SCR-IDEMP-3', 'SCR-IDEMP-3'],
  replay_returns_201: ['SCR-IDEMP-1', 'SCR-IDEMP-1'],
  drop_ratelimit_remaining: ['JOB-RATE', 'JOB-RATE-1'],
  wrong_webhook_secret: ['SCR-HOOK-7', 'SCR-HOOK-7'],
  leak_audit_rows: ['SCR-AUDIT-3', 'SCR-AUDIT-3'],
  crash_on_empty_musthaves: ['SCR-SUBMIT-1', 'SCR-SUBMIT-1'],
  skip_ledger_row: ['SCR-LEDGER-1', 'SCR-LEDGER-1'],
  sponsored_on_paid: ['JOB-SEARCH-7', 'JOB-SEARCH-7'],
  no_retry_after: ['JOB-RATE-3', 'JOB-RATE-3'],
  since_on_every_page: ['SCR-AUDIT-5', 'SCR-AUDIT-5'],
  anon_exposes_apply: ['MCP-ANON-2', 'MCP-ANON-2'],
  usage_other_tenant: ['SCR-AUTH-4', 'SCR-AUTH-4'],
};

// raw responses, as a deployment with these bugs would send them (no self-check rewriting them)
const sb = useSandbox({ selfCheck: false, seedDemo: false });
const admin = () => client(sb.get().baseUrl, ADMIN_TOKEN);
const run = (only: string, extra: Record<string, unknown> = {}) =>
  runConformance({
    target: sb.get().baseUrl,
    anonMcp: sb.get().anonMcpUrl,
    adminToken: sb.get().adminToken,
    seed: 4242,
    runs: 6,
    only: [only],
    reportDir: null,
    saveRegressions: false,
    progress: false,
    ...extra,
  });

afterEach(async () => {
  for (const bug of Object.keys(BUG_REQUIREMENTS)) await admin()('DELETE', `/sandbox/v1/bugs/${bug}`);
});

describe('each planted bug fails the run on the requirement it breaks', () => {
  for (const [bug, [only, requirement]] of Object.entries(BUG_REQUIREMENTS)) {
    it(`${bug} → ${requirement}`, async () => {
      expect((await admin()('PUT', `/sandbox/v1/bugs/${bug}`)).status).toBe(200);
      const r = await run(only);
      expect(r.ok).toBe(false);
      const req = r.requirements.find((x) => x.id === requirement)!;
      expect(req.level).toBe('must');
      expect(
        req.status,
        `${bug}: ${r.requirements
          .filter((x) => x.status === 'fail')
          .map((x) => x.id)
          .join(', ')}`,
      ).toBe('fail');
      expect(req.failures[0].why.length).toBeGreaterThan(10);
      expect(req.failures[0].replay).toMatch(/^npm run conformance -- --target /);
    }, 30_000);
  }
});

describe('counterexamples replay', () => {
  it('the shrunk case replays exactly from seed and path, and from its saved file', async () => {
    await admin()('PUT', '/sandbox/v1/bugs/charge_twice_on_replay');
    const dir = mkdtempSync(path.join(tmpdir(), 'conformance-regressions-'));
    const first = await run('SCR-IDEMP-3', { saveRegressions: true, regressionsDir: dir });
    const f = first.requirements.find((x) => x.id === 'SCR-IDEMP-3')!.failures.find((x) => x.counterexample?.path)!;
    const cx = f.counterexample!;
    expect(f.evidence.length).toBeGreaterThan(0);
    expect(cx.regressionFile).toBeDefined();
    expect(readdirSync(dir).length).toBeGreaterThan(0);

    const byPath = await run('SCR-IDEMP-3', { replay: `${cx.property}@${cx.path}`, regressionsDir: dir });
    const again = byPath.requirements.find((x) => x.id === 'SCR-IDEMP-3')!;
    expect(again.status).toBe('fail');
    expect(again.failures.some((x) => JSON.stringify(x.counterexample?.value) === JSON.stringify(cx.value))).toBe(true);

    const byFile = await run('SCR-IDEMP-3', { replay: cx.regressionFile, regressionsDir: dir });
    expect(byFile.requirements.find((x) => x.id === 'SCR-IDEMP-3')!.status).toBe('fail');
    expect(byFile.checks).toHaveLength(2); // the replayed check and the response monitor

    await admin()('DELETE', '/sandbox/v1/bugs/charge_twice_on_replay');
    const fixed = await run('SCR-IDEMP-3', { replay: cx.regressionFile, regressionsDir: dir });
    expect(fixed.ok).toBe(true);
    expect(fixed.regressions).toEqual([expect.objectContaining({ passed: true })]);
  }, 60_000);
});

describe('the CLI', () => {
  const cli = (args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', ...args], {
      env: { ...process.env, SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN },
    }).then(
      () => 0,
      (e: { code?: number }) => e.code ?? -1,
    );

  it('exits 0 when every must requirement that ran passed and 1 when one failed', async () => {
    const base = [
      '--target',
      sb.get().baseUrl,
      '--admin-token',
      ADMIN_TOKEN,
      '--runs',
      '3',
      '--seed',
      '1',
      '--no-reports',
      '--no-save-regressions',
      '--quiet',
    ];
    expect(await cli([...base, '--only', 'SCR-IDEMP-3'])).toBe(0);
    await admin()('PUT', '/sandbox/v1/bugs/charge_twice_on_replay');
    expect(await cli([...base, '--only', 'SCR-IDEMP-3'])).toBe(1);
    expect(await cli(['--target', 'not a url'])).toBe(2);
  }, 60_000);
});
