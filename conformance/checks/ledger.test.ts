// The ledger invariants judge the chain of each request, whatever order the export runs in (oldest first is
// policy, D-21): a well-formed ledger passes in both orders, a broken one fails in both.
import { describe, expect, it } from 'vitest';
import { ledgerProblems, type AuditRow } from './ledger.js';

const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 9, 0, s)).toISOString();
const row = (n: number, requestId: string, fromState: string | null, toState: string, actor = 'system'): AuditRow => ({
  id: `r${n}`,
  requestId,
  fromState,
  toState,
  actor,
  createdAt: at(n),
});

const good: AuditRow[] = [
  row(1, 'scr_a', null, 'received'),
  row(2, 'scr_b', null, 'received'),
  row(3, 'scr_a', 'received', 'scored'),
  row(4, 'scr_a', 'scored', 'pending_review'),
  row(5, 'scr_a', 'pending_review', 'approved', 'reviewer:ana'),
  row(6, 'scr_a', 'approved', 'delivered'),
];

describe('ledgerProblems', () => {
  it('passes a chained ledger exported oldest first or newest first', () => {
    expect(ledgerProblems(good, true)).toEqual([]);
    expect(ledgerProblems([...good].reverse(), true)).toEqual([]);
  });

  it('fails a missing transition, in either order', () => {
    const gap = good.filter((r) => r.id !== 'r3');
    for (const rows of [gap, [...gap].reverse()])
      expect(ledgerProblems(rows, true).map((p) => p.requirement)).toContain('SCR-LEDGER-2');
  });

  it('fails a reviewer row out of review that neither approves, rejects nor edits', () => {
    const rows = [...good.slice(0, 4), row(5, 'scr_a', 'pending_review', 'delivered', 'reviewer:ana')];
    expect(ledgerProblems(rows, true).map((p) => p.requirement)).toContain('SCR-REVIEW-2');
  });
});
