// JSON text made in slices is JSON.stringify's, byte for byte (lists made when read included), and lets the
// event loop turn while it is made.

import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { LazyList } from '../domain/lazyList.js';
import { gunzipSync } from 'node:zlib';
import {
  BACKGROUND,
  SNAPSHOT,
  slicedEach,
  slicedGunzip,
  slicedGzip,
  slicedJson,
  slicedParse,
  slicedWork,
  type Pace,
} from './slicedJson.js';

/** Values as an exported copy holds them, and what JSON.stringify leaves out or turns into null among them. */
const member = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.string({ unit: 'binary' }),
  fc.date({ noInvalidDate: true }),
  fc.constant(new Map([[1, 2]])),
);
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    member,
    // long arrays, of leaves and of long arrays: the ones taken apart
    fc.array(fc.oneof(member, tie('tree')), { minLength: 60, maxLength: 90 }),
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('tree'), { maxKeys: 6 }),
    fc.record({ toJSON: fc.constant(() => ({ replaced: true })), kept: tie('tree') }),
    // a list made when read (a snapshot's ledger rows), of any length
    fc.array(fc.oneof(member, tie('tree')), { maxLength: 90 }).map((a) => new LazyList(a.length, (i) => a[i])),
  ),
}));

/** What `work` returns, and the turns another task got meanwhile: it takes one whenever the event loop is free. */
async function turnsOthersGet<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const other = (async () => {
    while (!done) {
      await new Promise<void>((r) => setImmediate(r));
      turns++;
    }
  })();
  const value = await work();
  done = true;
  await other;
  return { value, turns };
}

describe('slicedJson', () => {
  it('makes the bytes JSON.stringify makes, for any value with JSON text', async () => {
    await fc.assert(
      fc.asyncProperty(tree, async (value) => {
        const whole = JSON.stringify(value) as string | undefined;
        fc.pre(whole !== undefined);
        // a slice of 0 ms turns the event loop at every chance, the default almost never on values this small
        expect((await slicedJson(value, 0)).equals(Buffer.from(whole, 'utf8'))).toBe(true);
        expect((await slicedJson(value)).equals(Buffer.from(whole, 'utf8'))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps a member whose text spans many chunks whole (characters outside the BMP included)', async () => {
    const value = { rows: Array.from({ length: 20_000 }, (_, i) => ({ i, text: `𝄞 naïve ${'x'.repeat(i % 50)}` })) };
    expect((await slicedJson(value, 0)).toString('utf8')).toBe(JSON.stringify(value));
  });

  it('lets the event loop turn while a long value is made', async () => {
    const value = { requests: Array.from({ length: 50_000 }, (_, i) => ({ id: `req_${i}`, scores: [i, i / 3] })) };
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    try {
      await slicedJson(value, 1);
    } finally {
      clearInterval(tick);
    }
    expect(turns).toBeGreaterThan(0);
  });

  it('with a rest ratio, leaves the event loop to other work after each slice, not one turn of it (D-166)', async () => {
    const value = { requests: Array.from({ length: 50_000 }, (_, i) => ({ id: `req_${i}`, scores: [i, i / 3] })) };
    const othersTurns = async (restRatio: number) => {
      const { value: text, turns } = await turnsOthersGet(() => slicedJson(value, 2, false, restRatio));
      expect(text.equals(Buffer.from(JSON.stringify(value), 'utf8'))).toBe(true);
      return turns;
    };
    const [turnOnly, resting] = [await othersTurns(0), await othersTurns(1)];
    // one turn per slice with a bare turn; a pause as long as the slice lets it run many times per slice
    expect(resting).toBeGreaterThan(5 * turnOnly);
  });

  it("a snapshot's part rests three times as long as each slice ran, other background work as long (D-194)", async () => {
    const value = { requests: Array.from({ length: 40_000 }, (_, i) => ({ id: `req_${i}`, scores: [i, i / 3] })) };
    /** The rests a run asks for, against the work before each: the time since the last rest ended. */
    const restPerWork = async (pace: Pace) => {
      const real = globalThis.setTimeout;
      let work = 0;
      let rest = 0;
      let since = performance.now();
      const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms: number) => {
        work += performance.now() - since;
        rest += ms;
        return real(() => {
          since = performance.now();
          fn();
        }, ms);
      }) as typeof setTimeout);
      try {
        const { pieces } = await slicedGzip(value, pace.sliceMs, true, pace.restRatio);
        expect(JSON.parse(gunzipSync(Buffer.concat(pieces)).toString('utf8'))).toEqual(value);
      } finally {
        spy.mockRestore();
      }
      expect(work).toBeGreaterThan(0);
      return rest / work;
    };
    expect(SNAPSHOT).toEqual({ sliceMs: 4, restRatio: 3 });
    // three times, less what this count adds to the work (the turns between a rest's end and the next slice)
    expect(await restPerWork(SNAPSHOT)).toBeGreaterThan(2);
    expect(await restPerWork(BACKGROUND)).toBeLessThan(1.5);
  });

  it('refuses a value with no JSON text, as JSON.stringify gives none', async () => {
    await expect(slicedJson(undefined)).rejects.toThrow(/no JSON text/);
  });
});

describe('slicedEach (D-168)', () => {
  it('encodes the values one after another, in order, resting between them only once a slice is used up', async () => {
    const values = Array.from({ length: 40 }, (_, i) => i);
    const run = async (sliceMs: number) => {
      let inFlight = 0;
      let most = 0;
      const { value: out, turns } = await turnsOthersGet(() =>
        slicedEach(values, { sliceMs, restRatio: 0 }, async (v, i) => {
          most = Math.max(most, ++inFlight);
          await Promise.resolve();
          inFlight--;
          return `${v}:${i}`;
        }),
      );
      return { out, most, turns };
    };
    const resting = await run(0);
    expect(resting.out).toEqual(values.map((v) => `${v}:${v}`));
    expect(resting.most).toBe(1);
    // a slice of 0 ms is used up by every value: the event loop turns after each
    expect(resting.turns).toBeGreaterThanOrEqual(values.length - 1);
    // a slice never used up: no value waits for a turn
    const unbounded = await run(Number.POSITIVE_INFINITY);
    expect(unbounded.most).toBe(1);
    expect(unbounded.turns).toBeLessThanOrEqual(1);
  });
});

describe('slicedWork (D-170)', () => {
  it('runs work to its end, the event loop turning at its pauses only once a slice is used up', async () => {
    const run = async (sliceMs: number) => {
      const done: number[] = [];
      function* work() {
        for (let i = 0; i < 40; i++) {
          done.push(i);
          yield;
        }
      }
      const { turns } = await turnsOthersGet(() => slicedWork(work(), sliceMs));
      return { done, turns };
    };
    const resting = await run(0);
    expect(resting.done).toEqual(Array.from({ length: 40 }, (_, i) => i));
    // a slice of 0 ms is used up at every pause
    expect(resting.turns).toBeGreaterThanOrEqual(39);
    const unbounded = await run(Number.POSITIVE_INFINITY);
    expect(unbounded.done).toHaveLength(40);
    expect(unbounded.turns).toBeLessThanOrEqual(1);
  });
  it('with a rest ratio, leaves the event loop to other work after each slice, not one turn of it (D-186)', async () => {
    const othersTurns = async (restRatio: number) => {
      function* work() {
        // 60 pauses, 2 ms of work between them: a slice of 1 ms is used up at each
        for (let i = 0; i < 60; i++) {
          const until = performance.now() + 2;
          while (performance.now() < until);
          yield;
        }
      }
      return (await turnsOthersGet(() => slicedWork(work(), 1, restRatio))).turns;
    };
    const [turnOnly, resting] = [await othersTurns(0), await othersTurns(1)];
    expect(resting).toBeGreaterThan(5 * turnOnly);
  });
});

describe('slicedJson with lines, read back by slicedParse', () => {
  it('with a rest ratio, leaves the event loop to other work after each slice, not one turn of it (D-186)', async () => {
    const value = { requests: Array.from({ length: 30_000 }, (_, i) => ({ id: `req_${i}`, scores: [i, i / 3] })) };
    const text = await slicedJson(value, 0, true);
    const othersTurns = async (restRatio: number) => {
      const { value: read, turns } = await turnsOthersGet(() => slicedParse(text, 1, restRatio));
      expect(read).toEqual(value);
      return turns;
    };
    const [turnOnly, resting] = [await othersTurns(0), await othersTurns(1)];
    expect(resting).toBeGreaterThan(5 * turnOnly);
  });

  it('is the same value for JSON.parse, and slicedParse reads it back as JSON.parse does', async () => {
    await fc.assert(
      fc.asyncProperty(
        tree,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }),
        async (value, cuts) => {
          const whole = JSON.stringify(value) as string | undefined;
          fc.pre(whole !== undefined);
          const expected = JSON.parse(whole) as unknown;
          const lined = await slicedJson(value, 0, true);
          // the same text in pieces cut anywhere (as it is decompressed, D-170): read piece after piece
          const at = [0, ...cuts.map((c) => Math.floor(c * lined.length)).sort((a, b) => a - b), lined.length];
          const pieces = at.slice(1).map((end, i) => lined.subarray(at[i], end));
          expect(await slicedParse(pieces, 0)).toEqual(expected);
          expect(JSON.parse(lined.toString('utf8'))).toEqual(expected);
          // compressed as it is made (a snapshot's part, a stored tenant): the same bytes once decompressed
          const zipped = await slicedGzip(value, 0, true);
          const data = Buffer.concat(zipped.pieces);
          expect(zipped.bytes).toBe(data.length);
          expect(gunzipSync(data).equals(lined)).toBe(true);
          // decompressed in pieces, never joined (D-170)
          expect(Buffer.concat(await slicedGunzip(data)).equals(lined)).toBe(true);
          expect(zipped.rawBytes).toBe(lined.length);
          expect(await slicedParse(lined, 0)).toEqual(expected);
          expect(await slicedParse(lined)).toEqual(expected);
          // text without lines (a state stored before them) is read at once
          expect(await slicedParse(Buffer.from(whole, 'utf8'), 0)).toEqual(expected);
          const bytes = Buffer.from(whole, 'utf8');
          expect(await slicedParse([bytes.subarray(0, 3), bytes.subarray(3)], 0)).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads names JSON.parse reads: escapes, quotes, brackets, and __proto__ as an own member', async () => {
    const value = {
      'a"b\\': [1],
      '[{]}': { ',:': 'x', '\\': null },
      __proto__: null,
      rows: Array.from({ length: 70 }, (_, i) => ({ ['__proto__']: i, 'x\ny': 'line\nfeed' })),
    };
    Object.defineProperty(value, '__proto__', { value: { own: true }, enumerable: true });
    const text = JSON.stringify(value);
    const read = (await slicedParse(await slicedJson(value, 0, true), 0)) as Record<string, unknown>;
    expect(read).toEqual(JSON.parse(text));
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(read, '__proto__')).toBe(true);
    expect(JSON.stringify(read)).toBe(text);
  });

  it('lets the event loop turn while a long text is read', async () => {
    const value = { requests: Array.from({ length: 50_000 }, (_, i) => ({ id: `req_${i}`, scores: [i, i / 3] })) };
    const text = await slicedJson(value, 8, true);
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    try {
      expect(await slicedParse(text, 1)).toEqual(value);
    } finally {
      clearInterval(tick);
    }
    expect(turns).toBeGreaterThan(0);
  });

  it('refuses text that is not whole', async () => {
    const text = (await slicedJson({ a: Array.from({ length: 70 }, (_, i) => i) }, 0, true)).toString('utf8');
    await expect(slicedParse(text.slice(0, -1))).rejects.toThrow(SyntaxError);
    await expect(slicedParse(text.slice(0, text.lastIndexOf('\n')))).rejects.toThrow(SyntaxError);
    await expect(slicedParse(`${text}\n1\n`)).rejects.toThrow(/more than one value/);
    await expect(slicedParse(text.replace(']', '}'))).rejects.toThrow(SyntaxError);
  });
});

describe("a list that gives its elements' text, and slicedGzip's kept blocks (D-161)", () => {
  /** An append-only store read as lists of its length at the time, each element's text counted as it is asked for. */
  function appendOnly(values: unknown[]) {
    const store = { values, asked: 0 };
    const list = () =>
      new LazyList(
        values.length,
        (i) => values[i],
        (i) => {
          store.asked++;
          return JSON.stringify(values[i]) ?? 'null';
        },
        { source: store },
      );
    return { store, list };
  }
  const unzipped = async (v: unknown, lines: boolean) => {
    const { pieces, rawBytes } = await slicedGzip(v, 0, lines);
    const text = gunzipSync(Buffer.concat(pieces));
    expect(rawBytes).toBe(text.length);
    return text.toString('utf8');
  };

  it('writes the text the list gives, as JSON.stringify writes its elements, with and without lines', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 9000 }), async (values) => {
        const { list } = appendOnly(values);
        const whole = JSON.stringify({ rows: values });
        expect((await slicedJson({ rows: list() }, 0)).toString('utf8')).toBe(whole);
        expect(await unzipped({ rows: list() }, false)).toBe(whole);
        const lined = (await slicedJson({ rows: list() }, 0, true)).toString('utf8');
        // JSON.stringify never writes a line feed of its own: without the lines, the text is the same
        expect(lined.replaceAll('\n', '')).toBe(whole);
        expect(await slicedParse(lined, 0)).toEqual(JSON.parse(whole));
        // compressed by blocks, twice (the second time from the kept blocks): the same text
        expect(await unzipped({ rows: list() }, true)).toBe(lined);
        expect(await unzipped({ rows: list() }, true)).toBe(lined);
      }),
      { numRuns: 15 },
    );
  });

  it('asks an append-only store again only for the elements after its last full block, and the text is unchanged', async () => {
    const values: unknown[] = Array.from({ length: 9000 }, (_, i) => ({ seq: i, note: `é ${i}` }));
    const { store, list } = appendOnly(values);
    const first = await unzipped({ rows: list(), after: 1 }, true);
    expect(first).toBe((await slicedJson({ rows: list(), after: 1 }, 0, true)).toString('utf8'));
    store.asked = 0;
    expect(await unzipped({ rows: list(), after: 1 }, true)).toBe(first);
    // two full blocks of 4,096 kept; the 808 after them asked for again
    expect(store.asked).toBe(9000 - 2 * 4096);
    // the store grows: the kept blocks are still its first ones, the third made now
    for (let i = 9000; i < 13_000; i++) values.push({ seq: i, note: `é ${i}` });
    store.asked = 0;
    const grown = await unzipped({ rows: list() }, true);
    expect(grown.replaceAll('\n', '')).toBe(JSON.stringify({ rows: values }));
    expect(store.asked).toBe(13_000 - 2 * 4096);
    // another store's list of the same length keeps its own blocks
    const other = appendOnly(values.map((v, i) => (i === 0 ? { other: true } : v)));
    const theirs = await unzipped({ rows: other.list() }, true);
    expect(theirs.replaceAll('\n', '')).toBe(JSON.stringify({ rows: [{ other: true }, ...values.slice(1)] }));
    expect(other.store.asked).toBe(13_000);
  });

  it("writes a block of a list whose elements change again as kept only while every element's token is the same", async () => {
    // elements with a version each: the token is the element's object, replaced when it changes
    const values = Array.from({ length: 8192 + 10 }, (_, i) => ({ i, v: 0 }));
    const source = {};
    let asked = 0;
    const list = () =>
      new LazyList(
        values.length,
        (i) => values[i],
        (i) => (asked++, JSON.stringify(values[i])),
        { source, token: (i, into) => void into.push(values[i]) },
      );
    const whole = () => JSON.stringify(values);
    expect(await unzipped(list(), true).then((t) => t.replaceAll('\n', ''))).toBe(whole());
    asked = 0;
    expect(await unzipped(list(), true).then((t) => t.replaceAll('\n', ''))).toBe(whole());
    expect(asked).toBe(10);
    // one element of the second block changes: that block is made again, the first is not
    values[5000] = { i: 5000, v: 1 };
    asked = 0;
    expect(await unzipped(list(), true).then((t) => t.replaceAll('\n', ''))).toBe(whole());
    expect(asked).toBe(4096 + 10);
    asked = 0;
    expect(await unzipped(list(), true).then((t) => t.replaceAll('\n', ''))).toBe(whole());
    expect(asked).toBe(10);
  });

  it('keeps no block without lines, nor of a list without a store, nor as plain text', async () => {
    const values = Array.from({ length: 5000 }, (_, i) => i);
    const { store, list } = appendOnly(values);
    await unzipped(list(), false);
    await unzipped(list(), false);
    await slicedJson(list(), 0, true);
    await slicedJson(list(), 0, true);
    expect(store.asked).toBe(20_000);
    let asked = 0;
    const loose = () =>
      new LazyList(
        values.length,
        (i) => values[i],
        (i) => (asked++, String(values[i])),
      );
    await unzipped(loose(), true);
    await unzipped(loose(), true);
    expect(asked).toBe(10_000);
  });
});
