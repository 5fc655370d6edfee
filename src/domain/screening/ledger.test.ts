import { describe, expect, it } from 'vitest';
import { DomainError } from '../../errors/errors.js';
import { CursorCodec } from './cursor.js';
import { Ledger, type LedgerPayload, type LedgerRow, lowerBound, rowsOfChain, toAuditEvent } from './ledger.js';
import { isoOf } from './tenantRows.js';
import type { LazyList } from '../lazyList.js';

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

  it("numbers each tenant's rows on its own sequence, which a reset does not restart (D-147)", () => {
    const shared = new Ledger(5000);
    const alone = new Ledger(5000);
    for (let i = 0; i < 6; i++) {
      shared.append('ten_demoaaaaaaaaaaaa', `scr_${i}`, null, 'received', 'system', null, 1000 + i);
      alone.append('ten_demoaaaaaaaaaaaa', `scr_${i}`, null, 'received', 'system', null, 1000 + i);
      shared.append('ten_demobbbbbbbbbbbb', `scr_x${i}`, null, 'received', 'system', null, 1000 + i);
    }
    const ids = (l: Ledger, t: string) => l.rowsOf(t).map((r) => r.id);
    expect(ids(shared, 'ten_demoaaaaaaaaaaaa')).toEqual(ids(alone, 'ten_demoaaaaaaaaaaaa'));
    expect(shared.rowsOf('ten_demoaaaaaaaaaaaa').map((r) => r.seq)).toEqual([5001, 5002, 5003, 5004, 5005, 5006]);
    const all = [...ids(shared, 'ten_demoaaaaaaaaaaaa'), ...ids(shared, 'ten_demobbbbbbbbbbbb')];
    expect(new Set(all).size).toBe(12);
    shared.reset();
    shared.append('ten_demoaaaaaaaaaaaa', 'scr_9', null, 'received', 'system', null, 2000);
    expect(shared.rowsOf('ten_demoaaaaaaaaaaaa')[0].seq).toBe(5007);
  });

  it('finds positions by sequence and by time with binary searches', () => {
    const l = new Ledger();
    for (let i = 0; i < 100; i++)
      l.append(i % 2 ? 'odd' : 'even', `scr_${i}`, null, 'received', 'system', null, i * 10);
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
    for (const bad of [
      'garbage',
      '',
      '.',
      `${forged}.${tag}`,
      `${body}.${tag.slice(1)}`,
      new CursorCodec().encode('ten_a', 42),
    ]) {
      expect(
        field(() => codec.decode('ten_a', bad)),
        bad,
      ).toBe('invalid_request:cursor');
    }
    expect(field(() => codec.decode('ten_b', good))).toBe('invalid_request:cursor');
  });
});

describe('Ledger column store', () => {
  const states = ['received', 'parsed', 'scored', 'pending_review', 'approved', 'delivered'] as const;

  it("writes each row's JSON exactly as JSON.stringify of its AuditEvent, across chunk boundaries", () => {
    const l = new Ledger();
    const times = [1_763_712_000_000, 1_763_712_000_999, 1_763_712_059_999, 1_763_712_060_000, 1_763_798_400_007];
    const payloads: (LedgerPayload | null)[] = [
      null,
      { a: 1 },
      { reason: 'quote " and \\ and \u2028 and 😀', n: -0, ok: true, none: null },
      { expiresAt: '2026-11-25T10:00:00.000Z' },
    ];
    for (let i = 0; i < 9000; i++) {
      const actor = i % 7 === 0 ? (`reviewer:rev "${i % 3}" ü` as const) : 'system';
      l.append(
        't',
        `scr_${i % 50}`,
        i % 5 === 0 ? null : states[i % states.length],
        states[(i + 1) % states.length],
        actor,
        payloads[i % payloads.length],
        times[Math.floor(i / 1800)] + (i % 3),
      );
    }
    const store = l.storeOf('t')!;
    const rows = l.rowsOf('t');
    expect(rows.length).toBe(9000);
    for (let i = 0; i < rows.length; i += 1) expect(store.json(i)).toBe(JSON.stringify(toAuditEvent(rows[i])));
    // and as a snapshot keeps it: the text the lazy export gives is JSON.stringify's of the row it reads (D-161)
    const kept = l.exportTenant('t', true) as LazyList<unknown>;
    expect(kept.blocks?.source).toBe(store);
    for (let i = 0; i < kept.length; i += 1) expect(kept.textOf!(i)).toBe(JSON.stringify(kept.at(i)));
    expect(store.jsonOfRun(4090, 4100)).toBe(
      rows
        .slice(4090, 4100)
        .map((r) => JSON.stringify(toAuditEvent(r)))
        .join(','),
    );
  });

  it('formats times exactly as Date#toISOString does', () => {
    const edges = [
      0, -0, 1, 59_999, 60_000, 951_782_400_000, 1_763_712_059_999, 253_402_300_799_999, 253_402_300_800_000, -1,
      -86_400_001, 1.5, 8.64e15, -8.64e15,
    ];
    let x = 12345;
    const random = Array.from({ length: 20_000 }, () => (x = (x * 48271) % 2147483647) * 117_999);
    for (const ms of [...edges, ...random]) expect(isoOf(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it("chains each request's rows in order, however they interleave", () => {
    const l = new Ledger();
    const store = l.rowsFor('t');
    const chains = Array.from({ length: 3 }, () => ({ firstRow: -1, lastRow: -1 }));
    for (let i = 0; i < 5000; i++)
      l.appendTo(store, chains[i % 3], `scr_${i % 3}`, null, states[i % states.length], 'system', { i }, 1000 + i);
    for (const [k, chain] of chains.entries()) {
      const mine = rowsOfChain(store, chain);
      expect(mine.every((r) => r.requestId === `scr_${k}`)).toBe(true);
      expect(mine.map((r) => r.payload?.i)).toEqual(Array.from({ length: mine.length }, (_, j) => k + 3 * j));
    }
    expect(rowsOfChain(store, { firstRow: -1, lastRow: -1 })).toEqual([]);
  });

  it('shares one frozen copy of equal payloads, so a caller changing its object changes no row', () => {
    const l = new Ledger();
    const mine: Record<string, number> = { score: 72 };
    const a = l.append('t', 'scr_1', null, 'received', 'system', mine, 1);
    const b = l.append('t', 'scr_2', null, 'received', 'system', { score: 72 }, 2);
    mine.score = 1;
    expect(a.payload).toBe(b.payload);
    expect(a.payload).toEqual({ score: 72 });
    expect(Object.isFrozen(a.payload)).toBe(true);
  });

  it('offers the rows as a live, read-only array', () => {
    const l = new Ledger();
    l.append('t', 'scr_1', null, 'received', 'system', null, 1);
    const rows = l.rowsOf('t');
    expect(Array.isArray(rows)).toBe(true);
    l.append('t', 'scr_1', 'received', 'parsed', 'system', null, 2);
    expect(rows.length).toBe(2);
    expect(rows[1]).toBe(rows[1]);
    expect(rows[2]).toBeUndefined();
    expect(1 in rows).toBe(true);
    expect(2 in rows).toBe(false);
    expect([...rows].map((r) => r.toState)).toEqual(['received', 'parsed']);
    expect(rows.map((r) => r.seq)).toEqual([1, 2]);
    expect(rows.findIndex((r) => r.toState === 'parsed')).toBe(1);
    expect(rows.at(-1)?.toState).toBe('parsed');
    expect(Object.keys(rows)).toEqual(['0', '1']);
    expect(() => ((rows as LedgerRow[])[0] = rows[1])).toThrow(TypeError);
    expect(() => (rows as LedgerRow[]).push(rows[0])).toThrow(TypeError);
    expect(l.rowsOf('nobody')).toEqual([]);
  });

  it('keeps page bytes until the ledger is reset', () => {
    const l = new Ledger();
    let made = 0;
    const make = () => `page ${++made}`;
    const first = l.pageBytes('k', make);
    expect(first.toString('utf8')).toBe('page 1');
    expect(l.pageBytes('k', make)).toBe(first);
    l.reset();
    expect(l.pageBytes('k', make).toString('utf8')).toBe('page 2');
  });
});
