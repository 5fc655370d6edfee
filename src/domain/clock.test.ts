import { describe, expect, it } from 'vitest';
import { Clock } from './clock.js';

describe('sandbox clock', () => {
  it('fires due timers in time order when advanced, and skips cancelled ones', () => {
    const base = 1_700_000_000_000;
    const clock = new Clock(() => base);
    const fired: string[] = [];
    clock.schedule(base + 3000, () => fired.push('c'));
    clock.schedule(base + 1000, () => fired.push('a'));
    const cancel = clock.schedule(base + 2000, () => fired.push('b'));
    clock.schedule(base + 1000, () => fired.push('a2'));
    clock.schedule(base + 10_000, () => fired.push('late'));
    cancel();
    expect(clock.pendingTimers()).toBe(4);
    clock.advance(5);
    expect(fired).toEqual(['a', 'a2', 'c']);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.now()).toBe(base + 5000);
    clock.clear();
    clock.advance(100);
    expect(fired).toEqual(['a', 'a2', 'c']);
  });

  it('refuses to move backwards', () => {
    const clock = new Clock(() => 0);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it('keeps scheduling and cancelling cheap for many timers', () => {
    const clock = new Clock(() => 0);
    const cancels = Array.from({ length: 100_000 }, (_, i) => clock.schedule(1000 + i, () => {}));
    for (const c of cancels) c();
    expect(clock.pendingTimers()).toBe(0);
    clock.clear();
  });
});
