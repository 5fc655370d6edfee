// A batch of a shared sandbox's queue is fair between partitions (D-151): a partition alone fills whole batches;
// while several wait, a batch takes at most a few of each, oldest first, and every partition waiting gets a turn.
// Nothing is lost, repeated or reordered within a partition, and what stays queued keeps its order.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fairBatch } from './replica.js';

interface Queued {
  turn: string;
  n: number;
}

const queue = fc
  .array(fc.constantFrom('ten_a', 'ten_b', 'ten_c', 'global', 'all'), { maxLength: 400, size: 'max' })
  .map((turns) => turns.map((turn, n): Queued => ({ turn, n })));
const ofTurn = (items: Queued[], turn: string) => items.filter((i) => i.turn === turn).map((i) => i.n);
const ns = (items: Queued[]) => items.map((i) => i.n);

describe('fairBatch', () => {
  it('takes a partition waiting alone in whole batches, in order', () => {
    fc.assert(
      fc.property(fc.nat({ max: 600 }), (length) => {
        const q = Array.from({ length }, (_, n): Queued => ({ turn: 'ten_a', n }));
        const batch = fairBatch(q);
        expect(ns(batch)).toEqual([...Array(Math.min(length, 256)).keys()]);
        expect(ns(q)).toEqual([...Array(length).keys()].slice(256));
      }),
    );
  });

  it('while several partitions wait, takes at most 8 of each, the oldest, and each one at least one', () => {
    fc.assert(
      fc.property(queue, (items) => {
        const q = [...items];
        const turns = new Set(items.map((i) => i.turn));
        const batch = fairBatch(q);
        // nothing lost or repeated; the order kept in the batch and in what stays
        expect([...ns(batch), ...ns(q)].sort((a, b) => a - b)).toEqual(ns(items));
        expect(ns(batch)).toEqual([...ns(batch)].sort((a, b) => a - b));
        expect(ns(q)).toEqual([...ns(q)].sort((a, b) => a - b));
        if (items.length) expect(batch.length).toBeGreaterThan(0);
        if (turns.size < 2) return;
        for (const turn of turns) {
          const taken = ofTurn(batch, turn);
          expect(taken.length).toBeGreaterThanOrEqual(1);
          expect(taken.length).toBeLessThanOrEqual(8);
          // a partition's oldest first: what it took comes before what it left
          expect(taken).toEqual(ofTurn(items, turn).slice(0, taken.length));
          expect(taken.length === 8 || ofTurn(q, turn).length === 0).toBe(true);
        }
      }),
    );
  });

  it('empties any queue in batches, each partition in its own order', () => {
    fc.assert(
      fc.property(queue, (items) => {
        const q = [...items];
        const seen: Queued[] = [];
        for (let rounds = 0; q.length; rounds++) {
          expect(rounds).toBeLessThanOrEqual(items.length);
          seen.push(...fairBatch(q));
        }
        for (const turn of new Set(items.map((i) => i.turn))) expect(ofTurn(seen, turn)).toEqual(ofTurn(items, turn));
      }),
    );
  });
});
