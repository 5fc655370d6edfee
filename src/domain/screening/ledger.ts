// The append-only audit ledger. Each tenant's rows live in their own column store (tenantRows.ts),
// ordered by the tenant's own strictly increasing sequence (D-147: what a tenant's calls write depends
// on its calls alone; event ids carry the tenant's tag, so they stay unique across tenants); createdAt
// never decreases within a tenant. A page is a binary search plus a run of rows, so reading any page costs O(log n + limit)
// however long the ledger. Identical payloads are stored once, so a million rows stay within a few
// tens of megabytes; row objects are only made when asked for.
// Requirements: SCR-LEDGER-1, SCR-LEDGER-2, SCR-LEDGER-3, SCR-LEDGER-4, SCR-LEDGER-5, SCR-AUDIT-3; decisions D-21.

import { LazyList } from '../lazyList.js';
import type { Sliced } from '../slices.js';
import { flatten } from './flatten.js';
import { ActorTable, eventIdOf, isoOf, TenantRows } from './tenantRows.js';
import type { ScreeningState } from './types.js';

export type Actor = 'system' | `reviewer:${string}`;

export type LedgerPayload = Readonly<Record<string, string | number | boolean | null>>;

/**
 * Where a run's sequence starts: 1,024 numbers per millisecond of the wall clock at start-up, so a later run
 * starts past every number an earlier one used (D-83; far below 2^53 for centuries).
 */
export const firstSeqAt = (startMs: number): number => Math.floor(startMs) * 1024;

/** One row, made on demand from the column store. */
export class LedgerRow {
  constructor(
    readonly seq: number,
    readonly requestId: string,
    readonly fromState: ScreeningState | null,
    readonly toState: ScreeningState,
    readonly actor: Actor,
    /** Shared by every row with an equal payload, so frozen. */
    readonly payload: LedgerPayload | null,
    /** ms since the epoch on the sandbox clock */
    readonly at: number,
    /** The tenant's tag, as event ids end in it. */
    readonly suffix: string,
  ) {}

  get id(): string {
    return eventIdOf(this.seq, this.suffix);
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
  createdAt: isoOf(r.at),
});

/** A row as a snapshot keeps it (its payload a copy). */
const rowState = (rows: TenantRows, i: number): LedgerRowState => [
  rows.seqAt(i),
  rows.requestIdAt(i),
  rows.fromStateAt(i),
  rows.toStateAt(i),
  rows.actorAt(i),
  rows.payloadAt(i) === null ? null : { ...rows.payloadAt(i) },
  rows.atOf(i),
];

export const rowAt = (rows: TenantRows, i: number): LedgerRow =>
  new LedgerRow(
    rows.seqAt(i),
    rows.requestIdAt(i),
    rows.fromStateAt(i),
    rows.toStateAt(i),
    rows.actorAt(i) as Actor,
    rows.payloadAt(i),
    rows.atOf(i),
    rows.suffix,
  );

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

/** One row as a snapshot keeps it: seq, request id, from, to, actor, payload, time (ms). */
export type LedgerRowState = [
  seq: number,
  requestId: string,
  from: ScreeningState | null,
  to: ScreeningState,
  actor: string,
  payload: LedgerPayload | null,
  at: number,
];

export interface LedgerSlice {
  rows: LedgerRow[];
  /** True when rows exist after the last one returned. */
  more: boolean;
}

/** Where a request's rows are: its first and last row in its tenant's store (-1 before the first). */
export interface RowChain {
  firstRow: number;
  lastRow: number;
}

/** The rows of one request, in order. */
export function rowsOfChain(rows: TenantRows, chain: RowChain): LedgerRow[] {
  const out: LedgerRow[] = [];
  for (let i = chain.firstRow; i >= 0; i = rows.nextOfRequest(i)) out.push(rowAt(rows, i));
  return out;
}

// Identical payloads (most of them) are stored once; the table is bounded and simply restarts.
const INTERN_LIMIT = 4096;
// Rows never change, so neither does a page of them; clients poll the same few pages (the newest),
// so the text of recently served pages is kept, within a bound.
const PAGES_LIMIT = 64;

export class Ledger {
  private byTenant = new Map<string, TenantRows>();
  private actors = new ActorTable();
  private interned = new Map<string, LedgerPayload>();
  private pages = new Map<string, Buffer<ArrayBuffer>>();
  /** Where every tenant's sequence starts: after this number (firstSeqAt of the sandbox's first start). */
  private firstSeq: number;
  /**
   * The sequences of tenants whose rows a reset dropped: never reset, so a cursor issued before a sandbox reset
   * can never point into the new ledger of a tenant that comes back (the demo tenants).
   */
  private retired = new Map<string, number>();
  private count = 0;

  /** `firstSeq`: the number after which every tenant's rows are numbered (firstSeqAt, so runs never overlap). */
  constructor(firstSeq = 0) {
    this.firstSeq = firstSeq;
  }

  /** The tenant's row store, created empty on first use. */
  rowsFor(tenantId: string): TenantRows {
    let rows = this.byTenant.get(tenantId);
    if (!rows)
      this.byTenant.set(
        tenantId,
        (rows = new TenantRows(tenantId, this.actors, this.retired.get(tenantId) ?? this.firstSeq)),
      );
    return rows;
  }

  append(
    tenantId: string,
    requestId: string,
    fromState: ScreeningState | null,
    toState: ScreeningState,
    actor: Actor,
    payload: LedgerPayload | null,
    now: number,
  ): LedgerRow {
    const rows = this.rowsFor(tenantId);
    return rowAt(rows, this.push(rows, requestId, fromState, toState, actor, payload, now, -1));
  }

  /** Appends a request's next row and extends its chain. */
  appendTo(
    rows: TenantRows,
    chain: RowChain,
    requestId: string,
    fromState: ScreeningState | null,
    toState: ScreeningState,
    actor: Actor,
    payload: LedgerPayload | null,
    now: number,
  ): void {
    const i = this.push(rows, requestId, fromState, toState, actor, payload, now, chain.lastRow);
    if (chain.firstRow < 0) chain.firstRow = i;
    chain.lastRow = i;
  }

  private push(
    rows: TenantRows,
    requestId: string,
    from: ScreeningState | null,
    to: ScreeningState,
    actor: Actor,
    payload: LedgerPayload | null,
    now: number,
    previous: number,
  ): number {
    // clamp, so a `since` binary search stays valid even if the host clock steps back
    const at = rows.length > 0 ? Math.max(now, rows.atOf(rows.length - 1)) : now;
    const i = rows.push(++rows.seq, requestId, from, to, actor, this.store(payload), at, previous);
    this.count++;
    return i;
  }

  /** The stored copy of a payload: frozen, and shared with earlier rows that had an equal one. */
  private store(payload: LedgerPayload | null): LedgerPayload | null {
    if (payload == null) return null;
    const json = JSON.stringify(payload);
    let stored = this.interned.get(json);
    if (stored === undefined) {
      if (this.interned.size >= INTERN_LIMIT) this.interned.clear();
      const copy: Record<string, string | number | boolean | null> = { ...payload };
      for (const k in copy) if (typeof copy[k] === 'string') flatten(copy[k]);
      this.interned.set(json, (stored = Object.freeze(copy)));
    }
    return stored;
  }

  /** The UTF-8 bytes of the page `key` names (which rows, and where its cursor points), made once from its text. */
  pageBytes(key: string, make: () => string): Buffer<ArrayBuffer> {
    let bytes = this.pages.get(key);
    if (bytes === undefined) {
      bytes = Buffer.from(make());
      if (this.pages.size >= PAGES_LIMIT) this.pages.clear();
      this.pages.set(key, bytes);
    }
    return bytes;
  }

  /** A live, read-only array view of the tenant's rows (rows are made as they are read). */
  rowsOf(tenantId: string): readonly LedgerRow[] {
    const rows = this.byTenant.get(tenantId);
    return rows ? arrayView(rows) : [];
  }

  /** The tenant's row store, if it has one. */
  storeOf(tenantId: string): TenantRows | undefined {
    return this.byTenant.get(tenantId);
  }

  tenantIds(): string[] {
    return [...this.byTenant.keys()];
  }

  /** Index of the first row of the tenant after sequence `seq`. */
  indexAfterSeq(tenantId: string, seq: number): number {
    const rows = this.byTenant.get(tenantId);
    return rows ? lowerBound(rows.length, (i) => rows.seqAt(i) > seq) : 0;
  }

  /** Index of the first row of the tenant created at or after `sinceMs`. */
  indexAtOrAfter(tenantId: string, sinceMs: number): number {
    const rows = this.byTenant.get(tenantId);
    return rows ? lowerBound(rows.length, (i) => rows.atOf(i) >= sinceMs) : 0;
  }

  slice(tenantId: string, start: number, limit: number): LedgerSlice {
    const rows = this.byTenant.get(tenantId);
    const n = rows?.length ?? 0;
    const end = Math.min(n, start + limit);
    const out: LedgerRow[] = [];
    for (let i = start; i < end; i++) out.push(rowAt(rows!, i));
    return { rows: out, more: end < n };
  }

  get size(): number {
    return this.count;
  }

  /** Where every tenant's sequence starts (D-137, D-147). */
  exportState(): { seq: number } {
    return { seq: this.firstSeq };
  }

  importState(state: { seq: number }): void {
    this.firstSeq = state.seq;
    this.retired.clear();
  }

  /** The number of a tenant's latest row (its sequence goes on after it). */
  seqOfTenant(tenantId: string): number {
    return this.byTenant.get(tenantId)?.seq ?? this.retired.get(tenantId) ?? this.firstSeq;
  }

  /**
   * A tenant's rows in order (the chains of its requests follow from the request ids). `lazy`: a list whose rows are
   * made when read (a snapshot's, D-151): a row never changes once written, and a tenant's row store is only ever
   * added to (a reset or a forget drops the store, it does not empty it), so the rows below the length taken now are
   * the same whenever they are read.
   */
  exportTenant(tenantId: string, lazy = false): LedgerRowState[] | LazyList<LedgerRowState> {
    const rows = this.byTenant.get(tenantId);
    if (!rows) return [];
    if (lazy)
      return new LazyList(
        rows.length,
        (i) => rowState(rows, i),
        (i) => rows.stateJson(i),
        { source: rows },
      );
    const out: LedgerRowState[] = [];
    for (let i = 0; i < rows.length; i++) out.push(rowState(rows, i));
    return out;
  }

  /**
   * A tenant's row store made from its export (same rows, same chains, its sequence at `seq`), not yet the tenant's:
   * `adoptRows` makes it so (a tenant's import: the screening service's `importTenant`). It pauses (yields) after
   * every `every` rows, so that a long history can be made in slices before its import (D-170).
   */
  *buildRows(tenantId: string, state: Iterable<LedgerRowState>, seq: number, every = Infinity): Sliced<TenantRows> {
    const rows = new TenantRows(tenantId, this.actors, seq);
    const last = new Map<string, number>();
    let n = 0;
    for (const [seq, requestId, from, to, actor, payload, at] of state) {
      const i = rows.push(seq, requestId, from, to, actor, this.store(payload), at, last.get(requestId) ?? -1);
      last.set(requestId, i);
      if (++n % every === 0) yield;
    }
    return rows;
  }

  /**
   * Makes rows made by `buildRows` the tenant's (whatever of it was in memory is dropped); false, and nothing done,
   * when they name their actors in a table a reset has since replaced.
   */
  adoptRows(rows: TenantRows): boolean {
    if (rows.actors !== this.actors) return false;
    this.forgetTenant(rows.tenantId);
    this.byTenant.set(rows.tenantId, rows);
    this.count += rows.length;
    this.pages.clear();
    return true;
  }

  /** Drops a tenant's rows and its sequence (a snapshot of the tenant carries them). */
  forgetTenant(tenantId: string): void {
    this.retired.delete(tenantId);
    const rows = this.byTenant.get(tenantId);
    if (!rows) return;
    this.count -= rows.length;
    this.byTenant.delete(tenantId);
    this.pages.clear();
  }

  reset(): void {
    // the sequences go on: a later row of a tenant that comes back never reuses a number
    for (const rows of this.byTenant.values()) this.retired.set(rows.tenantId, rows.seq);
    this.byTenant.clear();
    this.actors = new ActorTable();
    this.interned.clear();
    this.pages.clear();
    this.count = 0;
  }
}

const INDEX = /^(?:0|[1-9]\d*)$/;
const indexOf = (prop: string | symbol): number => (typeof prop === 'string' && INDEX.test(prop) ? Number(prop) : -1);

/**
 * Tests and tools read a tenant's rows as an array (length, indexing, map, slice...). The view is
 * an array proxy over the column store: its length follows appends and each row object is made once
 * per view, so nothing is copied however long the ledger.
 */
function arrayView(rows: TenantRows): readonly LedgerRow[] {
  const made = new Map<number, LedgerRow>();
  const at = (i: number) => {
    let r = made.get(i);
    if (!r) made.set(i, (r = rowAt(rows, i)));
    return r;
  };
  return new Proxy([] as LedgerRow[], {
    get(target, prop, receiver) {
      if (prop === 'length') return rows.length;
      const i = indexOf(prop);
      if (i >= 0) return i < rows.length ? at(i) : undefined;
      return Reflect.get(target, prop, receiver);
    },
    has(target, prop) {
      const i = indexOf(prop);
      return i >= 0 ? i < rows.length : Reflect.has(target, prop);
    },
    ownKeys(target) {
      return [...Array.from({ length: rows.length }, (_, i) => String(i)), ...Reflect.ownKeys(target)];
    },
    getOwnPropertyDescriptor(target, prop) {
      const i = indexOf(prop);
      if (i >= 0)
        return i < rows.length ? { value: at(i), writable: false, enumerable: true, configurable: true } : undefined;
      if (prop === 'length') return { value: rows.length, writable: true, enumerable: false, configurable: false };
      return Reflect.getOwnPropertyDescriptor(target, prop);
    },
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}
