import { describe, expect, it } from 'vitest';
import { RateGovernor, resetMs, retryAfterMs } from './rate-governor.js';

/** The three rate-limit headers of one answer (reset as the target wrote it). */
const rateHeaders = (limit: number, remaining: number, reset: string) => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': reset,
});

describe('reading the rate-limit headers in every form the documents leave open', () => {
  const now = Date.parse('2026-11-23T12:00:00Z');

  it('Retry-After as seconds or as an HTTP-date', () => {
    expect(retryAfterMs('30', now)).toBe(30_000);
    expect(retryAfterMs('Mon, 23 Nov 2026 12:00:45 GMT', now)).toBe(45_000);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });

  it('X-RateLimit-Reset as seconds until the reset, or as a Unix time in seconds or milliseconds', () => {
    expect(resetMs('12', now)).toBe(12_000);
    expect(resetMs(String(now / 1000 + 20), now)).toBe(20_000);
    expect(resetMs(String(now + 5000), now)).toBe(5000);
    expect(resetMs('tomorrow', now)).toBeNull();
  });

  it('waits before a call only when the key has no calls left in a window it has, and retries after Retry-After', () => {
    const g = new RateGovernor();
    g.observe('Bearer a', 200, rateHeaders(60, 0, '0'));
    g.observe('Bearer b', 403, rateHeaders(0, 0, '50'));
    g.observe('Bearer c', 200, rateHeaders(60, 3, '50'));
    expect(g.retryDelay({ 'retry-after': '2' })).toBe(2000);
    expect(g.retryDelay({})).toBe(1000);
    return Promise.all([g.beforeCall('Bearer b'), g.beforeCall('Bearer c')]).then(() => expect(g.pausedMs).toBe(0));
  });

  it('calls in flight take their place in the window: concurrent calls of one key never overrun it', async () => {
    const g = new RateGovernor();
    g.observe('Bearer a', 200, rateHeaders(60, 2, '0.3'), 'jobs');
    const t0 = Date.now();
    const [one, two] = await Promise.all([g.beforeCall('Bearer a', 'jobs'), g.beforeCall('Bearer a', 'jobs')]);
    expect(g.pausedMs).toBe(0);
    // both places are taken until the answers come: a third call waits for the window's reset
    const third = g.beforeCall('Bearer a', 'jobs');
    g.observe('Bearer a', 200, rateHeaders(60, 1, '0.3'), 'jobs', one);
    g.observe('Bearer a', 200, rateHeaders(60, 0, '0.3'), 'jobs', two);
    await third;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(g.pausedMs).toBeGreaterThan(0);
  });

  it('keeps one count per window: a key whose screening window is full still calls the jobs API', async () => {
    const g = new RateGovernor();
    g.observe('Bearer a', 200, rateHeaders(600, 0, '0.3'), 'screening');
    g.observe('Bearer a', 200, rateHeaders(300, 200, '50'), 'jobs');
    // the MCP lane has reported nothing yet: it counts in the key's window reported last
    await Promise.all([g.beforeCall('Bearer a', 'jobs'), g.beforeCall('Bearer a', 'mcp')]);
    expect(g.pausedMs).toBe(0);
    let waited = false;
    const screeningCall = g.beforeCall('Bearer a', 'screening').then(() => (waited = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(waited).toBe(false);
    await screeningCall;
    expect(g.pausedMs).toBeGreaterThan(0);
  });

  it("learns nothing from a 401 or 403 (its numbers may be another window's, a per-IP one say), but does from a 400", async () => {
    const g = new RateGovernor();
    g.observe('Bearer a', 200, rateHeaders(60, 40, '50'), 'jobs');
    g.observe('Bearer a', 403, rateHeaders(60, 0, '50'), 'jobs');
    await g.beforeCall('Bearer a', 'jobs');
    expect(g.pausedMs).toBe(0);
    g.observe('Bearer b', 400, rateHeaders(60, 0, '0.2'), 'jobs');
    await g.beforeCall('Bearer b', 'jobs');
    expect(g.pausedMs).toBeGreaterThan(0);
  });
});
