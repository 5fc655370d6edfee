// Walking a free key's rate window: X-RateLimit-Remaining falls by one per call, one rollover of the window is
// tolerated (also one right after the walk's first call, which reads the limit minus one twice), and anything else
// is a JOB-RATE-4 violation.
import { describe, expect, it } from 'vitest';
import { Violation } from '../failure.js';
import type { Exchange } from '../target/http.js';
import { walkWindow } from './jobs-rate.js';

const request = { method: 'GET', url: 'http://127.0.0.1:1/api/v1/me', headers: {} };
const answer = (status: number, remaining: number): Exchange => ({
  request,
  response: {
    status,
    headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(remaining) },
    body: '{}',
    json: {},
  },
  durationMs: 1,
});
/** A walk answering `remaining` in turn, then 429. */
const walk = (remaining: number[]) => {
  const answers = [...remaining.map((r) => answer(200, r)), answer(429, 0)];
  return walkWindow(async () => answers.shift()!);
};
const down = (from: number) => Array.from({ length: from + 1 }, (_, i) => from - i);

describe('walkWindow', () => {
  it('passes a window spent call by call down to 0, then refused', async () => {
    expect((await walk(down(59))).refused.response?.status).toBe(429);
  });

  it('tolerates one rollover, after any number of calls: the first call of the new window reads 59', async () => {
    for (const before of [58, 30, 0])
      expect((await walk([...down(59).filter((r) => r >= before), ...down(59)])).refused).toBeDefined();
    // the window ended right after the walk's first call: 59, then 59 again
    expect((await walk([59, ...down(59)])).refused).toBeDefined();
  });

  it('fails a call that is not counted within a window, and a second rollover', async () => {
    for (const remaining of [
      [59, 58, 58, ...down(57)],
      [59, 58, 56, ...down(55)],
      [59, 58, 59, 58, 59, ...down(58)],
    ]) {
      const e = await walk(remaining).catch((x: unknown) => x);
      expect(e, remaining.slice(0, 5).join(' ')).toBeInstanceOf(Violation);
      expect((e as Violation).requirement).toBe('JOB-RATE-4');
    }
  });

  it('fails a call before the 429 that did not read 0', async () => {
    const e = await walk(down(59).slice(0, 50)).catch((x: unknown) => x);
    expect((e as Violation).requirement).toBe('JOB-RATE-4');
  });
});
