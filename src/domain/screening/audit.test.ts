import { describe, expect, it } from 'vitest';
import type { CoreContext } from '../context.js';
import { type AuditQuery, auditPage, auditPageBody } from './audit.js';
import { CursorCodec } from './cursor.js';
import { Ledger } from './ledger.js';
import { PlantedBugs } from '../bugs.js';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');

function setup() {
  const bugs = new Set<string>();
  const ctx = {
    faults: { bug: (name: string) => bugs.has(name), planted: new PlantedBugs((name) => bugs.has(name)) },
  } as unknown as CoreContext;
  const ledger = new Ledger();
  const cursors = new CursorCodec();
  const grow = (tenantId: string, n: number, from: number) => {
    for (let i = 0; i < n; i++) {
      const at = T0 + Math.floor((from + i) / 3) * 1000;
      ledger.append(
        tenantId,
        `scr_${tenantId}_${Math.floor((from + i) / 4)}`,
        i % 4 === 0 ? null : 'received',
        'parsed',
        i % 9 ? 'system' : 'reviewer:rev_1',
        i % 2 ? { n: i, note: `row ${i}` } : null,
        at,
      );
    }
  };
  const both = (tenantId: string, q: AuditQuery) => {
    const text = auditPageBody(ctx, ledger, cursors, tenantId, q).toString('utf8');
    expect(text).toBe(JSON.stringify(auditPage(ctx, ledger, cursors, tenantId, q)));
    return JSON.parse(text) as { events: { id: string }[]; nextCursor: string | null };
  };
  return { bugs, ledger, grow, both };
}

describe('audit pages as JSON text', () => {
  it('are byte for byte the JSON of the page objects, for every kind of query', () => {
    const { bugs, grow, both } = setup();
    grow('ten_a', 1234, 0);
    grow('ten_b', 10, 0);
    for (const bug of [null, 'leak_audit_rows', 'since_on_every_page']) {
      bugs.clear();
      if (bug) bugs.add(bug);
      for (const limit of [undefined, 1, 2, 7, 100, 500]) {
        for (const since of [
          undefined,
          new Date(T0 + 100_000).toISOString(),
          new Date(T0 + 10_000_000).toISOString(),
        ]) {
          let cursor: string | null = null;
          let pages = 0;
          do {
            const page = both('ten_a', { limit, since, ...(cursor ? { cursor } : {}) });
            cursor = page.nextCursor;
          } while (cursor && ++pages < 40);
        }
      }
      both('ten_nobody', {});
    }
  });

  it('follow rows appended since the same page was last read', () => {
    const { grow, both } = setup();
    grow('ten_a', 5, 0);
    const before = both('ten_a', { limit: 10 });
    expect(before.events).toHaveLength(5);
    expect(before.nextCursor).toBeNull();
    grow('ten_a', 10, 5);
    const after = both('ten_a', { limit: 10 });
    expect(after.events).toHaveLength(10);
    expect(after.nextCursor).not.toBeNull();
    expect(both('ten_a', { limit: 10, cursor: after.nextCursor! }).events).toHaveLength(5);
  });
});
