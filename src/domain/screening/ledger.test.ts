import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { CursorCodec } from './cursor.js';
import { Ledger, lowerBound } from './ledger.js';

describe('Ledger', () => {
  it('keeps rows per tenant in sequence order and never lets createdAt go back', () => {
    const l = new Ledger();
    const a = l.append('t1', 'scr_1', null, 'received', 'system', null, 1000);
    l.append('t2', 'scr_2', null, 'received', 'system', null, 1000);
    const b = l.append('t1', 'scr_1', 'received', 'parsed', 'system', null, 900);
    expect(b.seq).toBeGreaterThan(a.seq);
    expect(b.at).toBe(1000);
    expect(l.rowsOf('t1').map((r) => r.requestId)).toEqual(['scr_1', 'scr_1']);
    expect(l.size).toBe(3);
  });

  it('finds positions by sequence and by time with binary searches', () => {
    const l = new Ledger();
    for (let i = 0; i < 100; i++) l.append(i % 2 ? 'odd' : 'even', `scr_${i}`, null, 'received', 'system', null, i * 10);
    const even = l.rowsOf('even');
    const i = l.indexAfterSeq('even', even[10].seq);
    expect(even[i]).toBe(even[11]);
    expect(l.rowsOf('even')[l.indexAtOrAfter('even', 505)].at).toBe(520);
    expect(l.indexAtOrAfter('even', 10_000)).toBe(even.length);
    expect(l.slice('even', 48, 10)).toMatchObject({ more: false });
    expect(l.slice('even', 40, 5)).toMatchObject({ more: true });
  });

  it('lowerBound finds the first index on the right side', () => {
    const xs = [1, 3, 3, 5, 8];
    expect(lowerBound(xs.length, (i) => xs[i] >= 3)).toBe(1);
    expect(lowerBound(xs.length, (i) => xs[i] > 8)).toBe(5);
    expect(lowerBound(0, () => true)).toBe(0);
  });
});

describe('CursorCodec', () => {
  const codec = new CursorCodec();
  const field = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return e instanceof DomainError ? `${e.code}:${e.details.field}` : 'other';
    }
    return 'no error';
  };

  it('round-trips a position for its tenant', () => {
    expect(codec.decode('ten_a', codec.encode('ten_a', 42))).toBe(42);
  });

  it('refuses garbage, tampered, foreign-process and other-tenant cursors, naming cursor', () => {
    const good = codec.encode('ten_a', 42);
    const [body, tag] = good.split('.');
    const forged = Buffer.from(JSON.stringify({ v: 1, t: 'ten_a', s: 1 })).toString('base64url');
    for (const bad of ['garbage', '', '.', `${forged}.${tag}`, `${body}.${tag.slice(1)}`, new CursorCodec().encode('ten_a', 42)]) {
      expect(field(() => codec.decode('ten_a', bad)), bad).toBe('invalid_request:cursor');
    }
    expect(field(() => codec.decode('ten_b', good))).toBe('invalid_request:cursor');
  });
});
