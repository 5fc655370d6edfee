import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SEQ_BLOCK, SeqMap, ShardedMap, SPLIT_AT } from './shardedMap.js';

type Op =
  | { kind: 'set'; key: string; value: number }
  | { kind: 'delete'; key: string }
  | { kind: 'bulk'; prefix: string; count: number }
  | { kind: 'clear' };

const key = fc.oneof(fc.constantFrom('', 'a', 'ab', 'abc', 'scr_1', 'idem-9'), fc.string({ maxLength: 12 }));
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key, value: fc.integer() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bulk' as const),
      prefix: fc.string({ maxLength: 4 }),
      count: fc.integer({ min: 1, max: SPLIT_AT }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

const sortedValues = (it: Iterable<number>) => [...it].sort((a, b) => a - b);

describe('a map split in shards (D-200)', () => {
  it('answers as a Map does, before and after it is split', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), fc.array(key, { maxLength: 20 }), (ops, probes) => {
        const mine = new ShardedMap<number>();
        const model = new Map<string, number>();
        let n = 0;
        for (const o of ops) {
          if (o.kind === 'set') {
            mine.set(o.key, o.value);
            model.set(o.key, o.value);
          } else if (o.kind === 'delete') expect(mine.delete(o.key)).toBe(model.delete(o.key));
          else if (o.kind === 'clear') {
            mine.clear();
            model.clear();
          } else
            for (let i = 0; i < o.count; i++) {
              const k = `${o.prefix}${i}`;
              mine.set(k, ++n);
              model.set(k, n);
            }
          expect(mine.size).toBe(model.size);
        }
        for (const k of [...probes, ...model.keys()].slice(0, 400)) {
          expect(mine.get(k)).toBe(model.get(k));
          expect(mine.has(k)).toBe(model.has(k));
        }
        expect(sortedValues(mine.values())).toEqual(sortedValues(model.values()));
      }),
      { numRuns: 60 },
    );
  });

  it("grows a shard at a time: no part holds much more than a 64th of a large map's entries", () => {
    const ids = new ShardedMap<number>();
    const keys = new ShardedMap<number>();
    for (let i = 0; i < 200_000; i++) {
      ids.set(`scr_${Math.random().toString(36).slice(2, 14)}`, i);
      keys.set(`burst-4242-${i}`, i);
    }
    expect(ids.size).toBe(200_000);
    expect(ids.largestPart).toBeLessThan((200_000 / 64) * 1.3);
    expect(keys.largestPart).toBeLessThan((200_000 / 64) * 1.6);
    const small = new ShardedMap<number>();
    for (let i = 0; i < SPLIT_AT - 1; i++) small.set(String(i), i);
    expect(small.largestPart).toBe(SPLIT_AT - 1);
  });
});

describe('a map of creation numbers kept in blocks (D-200)', () => {
  it('answers as a Map does, and iterates in its order while numbers are set in increasing order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 3 * SEQ_BLOCK }), fc.boolean()), { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 200_000 }), { maxLength: 20 }),
        (steps, stray) => {
          const mine = new SeqMap<number>();
          const model = new Map<number, number>();
          let seq = 0;
          for (const [gap, drop] of steps) {
            seq += gap;
            mine.set(seq, seq * 2);
            model.set(seq, seq * 2);
            // drop an earlier one now and then (a timer cancelled or fired)
            const earlier = [...model.keys()][Math.floor(model.size / 2)];
            if (drop && earlier !== undefined) expect(mine.delete(earlier)).toBe(model.delete(earlier));
            expect(mine.size).toBe(model.size);
          }
          expect([...mine.values()]).toEqual([...model.values()]);
          for (const k of stray) {
            expect(mine.get(k)).toBe(model.get(k));
            expect(mine.delete(k)).toBe(model.delete(k));
          }
          expect(sortedValues(mine.values())).toEqual(sortedValues(model.values()));
          mine.clear();
          expect([mine.size, [...mine.values()]]).toEqual([0, []]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('grows a block at a time', () => {
    const timers = new SeqMap<number>();
    for (let i = 0; i < 100_000; i++) timers.set(i, i);
    expect(timers.size).toBe(100_000);
    expect(timers.largestPart).toBe(SEQ_BLOCK);
  });
});
