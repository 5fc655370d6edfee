import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timeHi, timeLo, timeOf, timeOfSet } from './packedTime.js';

describe('a time kept as two small integers (D-199)', () => {
  it('comes back exactly, whatever the number, and null as null', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
          fc.integer({ min: 1_600_000_000_000, max: 2_100_000_000_000 }),
          fc.double({ noNaN: true }),
          fc.constantFrom(0, -1, -2, 2 ** 21, 2 ** 21 - 1, 2 ** 53, -0.5, Infinity, -Infinity),
        ),
        (t) => {
          expect(Object.is(timeOf(timeHi(t), timeLo(t)), t) || (t === 0 && timeOf(timeHi(t), timeLo(t)) === 0)).toBe(
            true,
          );
          expect(timeOfSet(timeHi(t), timeLo(t))).toBe(timeOf(timeHi(t), timeLo(t)));
        },
      ),
      { numRuns: 2000 },
    );
    expect(timeOf(timeHi(null), timeLo(null))).toBeNull();
  });

  it("splits a time of these years into two of the engine's small integers", () => {
    for (const t of [Date.UTC(2026, 10, 29, 12, 0, 0, 123), Date.UTC(2100, 0, 1), 0]) {
      const [hi, lo] = [timeHi(t), timeLo(t)];
      for (const part of [hi, lo]) expect(Number.isInteger(part) && part >= 0 && part < 2 ** 30).toBe(true);
    }
  });
});
