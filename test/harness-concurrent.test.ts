// Two conformance runs at once against one sandbox, as two integrators (or two CI jobs) sharing one hosted
// sandbox would run them: each moves only its own tenants' clocks, and neither blames the target for the
// other's clock moves or calls (D-116). Both must pass every `must` requirement that runs.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../conformance/index.js';
import { useSandbox } from './support/sandbox.js';

const sb = useSandbox({ seedDemo: false });

type Result = Awaited<ReturnType<typeof runConformance>>;

/** Judged on a clock or a per-address count that another client can move: may say it could not judge (D-116). */
const SHARED_WINDOWS = ['JOB-RATE-4', 'MCP-TOOL-10', 'MCP-ANON-5'];

/** The `must` requirements of a run that did not pass, with the first reason. */
const brokenMusts = (r: Result) =>
  r.requirements
    .filter((x) => x.level === 'must' && x.status !== 'pass' && x.status !== 'not-covered' && x.status !== 'not-observable')
    .filter((x) => !(x.status === 'skip' && SHARED_WINDOWS.includes(x.id)))
    .map((x) => `${x.id} ${x.status}: ${x.failures[0]?.why ?? x.reasons[0]}`);

describe('two conformance runs at once against one in-memory sandbox', () => {
  it('both pass: neither blames the target for the other run\'s clock moves or calls', async () => {
    const { baseUrl, anonMcpUrl, adminToken } = sb.get();
    const run = (seed: number) =>
      runConformance({ target: baseUrl, anonMcp: anonMcpUrl, adminToken, seed, runs: 5, reportDir: null, regressionsDir: path.resolve('fixtures/regressions'), saveRegressions: false, progress: false });
    const [a, b] = await Promise.all([run(1), run(2)]);
    expect({ a: brokenMusts(a), b: brokenMusts(b) }).toEqual({ a: [], b: [] });
    expect(a.ok && b.ok).toBe(true);
    // the checks that judge a window on a clock did run in both (passed, or said why they could not judge)
    for (const r of [a, b]) {
      for (const id of SHARED_WINDOWS) {
        const req = r.requirements.find((x) => x.id === id)!;
        expect(['pass', 'skip'], `${id}: ${req.status} ${req.reasons.join('; ')}`).toContain(req.status);
        if (req.status === 'skip') expect(req.reasons.join(' ')).toMatch(/another client|other client/);
      }
    }
  }, 240_000);
});
