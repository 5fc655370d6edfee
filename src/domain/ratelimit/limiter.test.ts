import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from './limiter.js';
import { isAddressBucket } from './rules.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

describe('FixedWindowLimiter: old windows of client addresses (D-193)', () => {
  it('drops the address windows two windows old at the first decision of a new window, and keeps the rest', () => {
    const l = FixedWindowLimiter.perMinute(isAddressBucket);
    for (let i = 0; i < 50; i++) l.hit(`ip:203.0.113.${i}`, 10, T0 + i);
    l.hit('key_a', 10, T0);
    l.hit('anon:198.51.100.1', 10, T0);
    // the next minute: the last minute's windows are kept (a real clock stepped back finds them)
    l.hit('ip:192.0.2.1', 10, T0 + MINUTE);
    expect(l.exportState().length).toBe(53);
    // two minutes on: every address window before the minute before is gone; the key's stays (its tenant's clock)
    l.hit('ip:192.0.2.2', 10, T0 + 2 * MINUTE + 5);
    expect(l.exportState().map(([bucket]) => bucket)).toEqual(['key_a', 'ip:192.0.2.1', 'ip:192.0.2.2']);
    // a key's call sweeps nothing: its clock is its tenant's, not the one the addresses count on
    l.hit('key_b', 10, T0 + 9 * MINUTE);
    expect(l.exportState().length).toBe(4);
  });

  it('counts an address across a sweep as without one', () => {
    const swept = FixedWindowLimiter.perMinute(isAddressBucket);
    const kept = FixedWindowLimiter.perMinute(() => false);
    const calls: [string, number][] = [];
    // eleven minutes of calls: seven addresses that come back, and one new address every other call
    for (let i = 0; i < 400; i++) calls.push([i % 2 ? `ip:10.0.0.${i % 7}` : `ip:10.1.${i}`, T0 + i * 1_700]);
    for (const [bucket, at] of calls) expect(swept.hit(bucket, 5, at)).toEqual(kept.hit(bucket, 5, at));
    expect(swept.peek('ip:10.0.0.3', 5, T0 + 400 * 1_700)).toEqual(kept.peek('ip:10.0.0.3', 5, T0 + 400 * 1_700));
    // at most two minutes of new addresses (71 calls, 36 of them new) beside the seven
    expect(kept.exportState().length).toBe(207);
    expect(swept.exportState().length).toBeLessThanOrEqual(7 + 36);
  });

  it('a day limiter keeps yesterday and today, and a reset starts over', () => {
    const DAY = 86_400_000;
    const l = FixedWindowLimiter.perUtcDay(() => true);
    l.hit('a', 3, T0);
    l.hit('b', 3, T0 + DAY);
    expect(l.exportState().length).toBe(2);
    l.hit('c', 3, T0 + 2 * DAY);
    expect(l.exportState().map(([bucket]) => bucket)).toEqual(['b', 'c']);
    l.reset();
    l.importState([['old', T0 - 5 * DAY, 3]]);
    l.hit('d', 3, T0 + 2 * DAY);
    expect(l.exportState().map(([bucket]) => bucket)).toEqual(['d']);
  });
});
