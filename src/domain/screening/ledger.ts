// The append-only audit ledger. Each tenant's rows live in their own array, ordered by one
// process-wide, strictly increasing sequence; createdAt never decreases within a tenant. A page is
// a binary search plus a slice, so reading any page costs O(log n + limit) however long the ledger.
// Rows are compact (a class with numeric times; the event id is derived from the sequence) so that
// a million rows stay well within a few hundred megabytes.

import type { ScreeningState } from './types.js';

export type Actor = 'system' | `reviewer:${string}`;

export type LedgerPayload = Readonly<Record<string, string | number | boolean | null>>;

export class LedgerRow {
  constructor(
    readonly seq: number,
    readonly requestId: string,
    readonly fromState: ScreeningState | null,
    readonly toState: ScreeningState,
    readonly actor: Actor,
    readonly payload: LedgerPayload | null,
    /** ms since the epoch on the sandbox clock */
    readonly at: number,
  ) {}

  get id(): string {
    return `evt_${this.seq.toString(36).padStart(8, '0')}`;
  }
}

export interface AuditEvent {
  id: string;
  requestId: string;
  fromState: ScreeningState | null;
  toState: ScreeningState;
  actor: string;
  payload: LedgerPayload | null;
  createdAt: string;
}

export const toAuditEvent = (r: LedgerRow): AuditEvent => ({
  id: r.id,
  requestId: r.requestId,
  fromState: r.fromState,
  toState: r.toState,
  actor: r.actor,
  payload: r.payload,
  createdAt: new Date(r.at).toISOString(),
});

/** First index in [0, n) for which `isRight(i)` holds, given it is false then true along the array. */
export function lowerBound(n: number, isRight: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isRight(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export interface LedgerSlice {
  rows: LedgerRow[];
  /** True when rows exist after the last one returned. */
  more: boolean;
}

export class Ledger {
  private byTenant = new Map<string, LedgerRow[]>();
  // Never reset: a cursor issued before a sandbox reset can never point into the new ledger.
  private seq = 0;
  private count = 0;

  append(
    tenantId: string,
    requestId: string,
    fromState: ScreeningState | null,
    toState: ScreeningState,
    actor: Actor,
    payload: LedgerPayload | null,
    now: number,
  ): LedgerRow {
    let rows = this.byTenant.get(tenantId);
    if (!rows) this.byTenant.set(tenantId, (rows = []));
    // clamp, so a `since` binary search stays valid even if the host clock steps back
    const last = rows.length > 0 ? rows[rows.length - 1].at : now;
    const row = new LedgerRow(++this.seq, requestId, fromState, toState, actor, payload, Math.max(now, last));
    rows.push(row);
    this.count++;
    return row;
  }

  rowsOf(tenantId: string): readonly LedgerRow[] {
    return this.byTenant.get(tenantId) ?? [];
  }

  tenantIds(): string[] {
    return [...this.byTenant.keys()];
  }

  /** Index of the first row of the tenant after sequence `seq`. */
  indexAfterSeq(tenantId: string, seq: number): number {
    const rows = this.rowsOf(tenantId);
    return lowerBound(rows.length, (i) => rows[i].seq > seq);
  }

  /** Index of the first row of the tenant created at or after `sinceMs`. */
  indexAtOrAfter(tenantId: string, sinceMs: number): number {
    const rows = this.rowsOf(tenantId);
    return lowerBound(rows.length, (i) => rows[i].at >= sinceMs);
  }

  slice(tenantId: string, start: number, limit: number): LedgerSlice {
    const rows = this.rowsOf(tenantId);
    const end = Math.min(rows.length, start + limit);
    return { rows: rows.slice(start, end), more: end < rows.length };
  }

  get size(): number {
    return this.count;
  }

  reset(): void {
    this.byTenant.clear();
    this.count = 0;
  }
}
