// Turns between callers in a running sandbox (D-165): while another tenant calls, one tenant's calls beyond
// `--calls-per-caller` wait for one of its own to end. A latency fault on the first tenant's searches makes each of
// its calls hold its turn for a known time, so the calls' answers come in waves of the limit. The latency stays below
// the longest a call may hold its turn (250 ms, then the sweep gives it back): a wave can then start no sooner than
// the one before it ended, so three waves take at least three latencies however the sweep falls.

import { describe, expect, it } from 'vitest';
import { CALLS_PER_CALLER } from '../src/config.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';

const LATENCY_MS = 200;
const CALLS = 12;
const SEARCH = '/api/v1/jobs?q=engineer&limit=1';

/** The slowest of the first tenant's calls sent at once while the second tenant calls, in ms. */
async function slowestWhileContended(baseUrl: string): Promise<{ slowest: number; statuses: number[] }> {
  const [first, second] = [await createTenant(baseUrl), await createTenant(baseUrl)];
  const rule = await client(baseUrl, ADMIN_TOKEN)('POST', '/sandbox/v1/faults', {
    mode: 'latency',
    latencyMs: LATENCY_MS,
    path: '/api/v1/jobs',
    tenantId: first.tenantId,
  });
  expect(rule.status).toBe(201);
  // the second tenant is calling: two calls (one alone would make no other caller wait, D-171)
  for (let i = 0; i < 2; i++) expect((await client(baseUrl, second.apiKey)('GET', SEARCH)).status).toBe(200);
  const t0 = performance.now();
  const answers = await Promise.all(
    Array.from({ length: CALLS }, async () => {
      const res = await client(baseUrl, first.apiKey)('GET', SEARCH);
      return { status: res.status, ms: performance.now() - t0 };
    }),
  );
  return { slowest: Math.max(...answers.map((a) => a.ms)), statuses: answers.map((a) => a.status) };
}

describe('turns between callers in a sandbox (D-165)', () => {
  const limited = useSandbox({ noRateLimits: true });
  const unlimited = useSandbox({ noRateLimits: true, callsPerCaller: 0 });

  it("answers a tenant's calls beyond the default limit only as its earlier calls end, while another tenant calls", async () => {
    const { slowest, statuses } = await slowestWhileContended(limited.get().baseUrl);
    expect(statuses).toEqual(Array(CALLS).fill(200));
    // waves of the default limit (6 of 2), each held LATENCY_MS by the fault
    const waves = Math.ceil(CALLS / CALLS_PER_CALLER);
    expect(waves).toBeGreaterThan(3);
    expect(slowest).toBeGreaterThanOrEqual(waves * LATENCY_MS - 10);
  });

  it('starts them all at once with --calls-per-caller 0', async () => {
    const { slowest, statuses } = await slowestWhileContended(unlimited.get().baseUrl);
    expect(statuses).toEqual(Array(CALLS).fill(200));
    expect(slowest).toBeLessThan(3 * LATENCY_MS - 10);
  });
});
