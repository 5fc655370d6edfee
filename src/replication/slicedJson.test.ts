// JSON text made in slices is JSON.stringify's, byte for byte (lists made when read included), and lets the
// event loop turn while it is made.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LazyList } from '../domain/lazyList.js';
import { slicedJson, slicedParse } from './slicedJson.js';

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

  it('refuses a value with no JSON text, as JSON.stringify gives none', async () => {
    await expect(slicedJson(undefined)).rejects.toThrow(/no JSON text/);
  });
});

describe('slicedJson with lines, read back by slicedParse', () => {
  it('is the same value for JSON.parse, and slicedParse reads it back as JSON.parse does', async () => {
    await fc.assert(
      fc.asyncProperty(tree, async (value) => {
        const whole = JSON.stringify(value) as string | undefined;
        fc.pre(whole !== undefined);
        const expected = JSON.parse(whole) as unknown;
        const lined = await slicedJson(value, 0, true);
        expect(JSON.parse(lined.toString('utf8'))).toEqual(expected);
        expect(await slicedParse(lined, 0)).toEqual(expected);
        expect(await slicedParse(lined)).toEqual(expected);
        // text without lines (a state stored before them) is read at once
        expect(await slicedParse(Buffer.from(whole, 'utf8'), 0)).toEqual(expected);
      }),
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
