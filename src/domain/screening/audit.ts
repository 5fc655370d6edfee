// The audit export: keyset pages over one tenant's ledger rows. `since` seeds only the first page;
// once a cursor is given it alone decides where the page starts, so rows appended between pages are
// neither skipped nor repeated. A page comes as objects or, for the REST adapter, as the bytes of its JSON text
// built straight from the column store (the same bytes JSON.stringify would write for the objects).
// Requirements: SCR-AUDIT-1, SCR-AUDIT-2, SCR-AUDIT-3, SCR-AUDIT-4, SCR-AUDIT-5, SCR-AUDIT-6, POL-AUDIT-1,
// POL-AUDIT-3; decisions D-21.

import type { CoreContext } from '../context.js';
import { invalid } from '../../errors/errors.js';
import { limits } from '../plans.js';
import type { CursorCodec } from './cursor.js';
import { type AuditEvent, type Ledger, rowAt, toAuditEvent } from './ledger.js';
import type { TenantRows } from './tenantRows.js';

export interface AuditQuery {
  since?: string;
  cursor?: string;
  limit?: number;
}

export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | null;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function parseSince(since: string): number {
  const ms = RFC3339.test(since) ? Date.parse(since) : NaN;
  if (!Number.isFinite(ms))
    throw invalid(`since must be an RFC 3339 date-time such as 2026-01-31T00:00:00Z (got '${since}')`, 'since');
  return ms;
}

function parseLimit(limit: number | undefined): number {
  const { min, max, default: def } = limits.spec.auditLimit;
  if (limit === undefined) return def ?? max;
  if (!Number.isInteger(limit) || limit < min || limit > max)
    throw invalid(`limit must be an integer from ${min} to ${max}`, 'limit');
  return limit;
}

/** A run of rows [start, end) of one tenant's store. */
interface Run {
  rows: TenantRows | undefined;
  start: number;
  end: number;
}

interface PagePlan {
  own: Run;
  /** Planted bug: another tenant's rows at the end of the page. */
  leaked: Run | null;
  /** The sequence number the next page's cursor points after, when there is a next page. */
  nextSeq: number | null;
}

function plan(ctx: CoreContext, ledger: Ledger, cursors: CursorCodec, tenantId: string, q: AuditQuery): PagePlan {
  const limit = parseLimit(q.limit);
  const sinceMs = q.since === undefined ? undefined : parseSince(q.since);
  const afterSeq = q.cursor === undefined ? undefined : cursors.decode(tenantId, q.cursor);

  let start: number;
  if (afterSeq !== undefined) {
    start = ledger.indexAfterSeq(tenantId, afterSeq);
    start = ctx.faults.planted.cursorPageStart(start, sinceMs);
  } else {
    start = sinceMs === undefined ? 0 : ledger.indexAtOrAfter(tenantId, sinceMs);
  }
  const leaked = ctx.faults.planted.leaksAuditRows() ? leakedRows(ledger, tenantId, limit - 1) : null;
  const rows = ledger.storeOf(tenantId);
  const n = rows?.length ?? 0;
  const end = Math.min(n, start + limit - (leaked ? leaked.end - leaked.start : 0));
  const more = end < n;
  return { own: { rows, start, end }, leaked, nextSeq: more && end > start ? rows!.seqAt(end - 1) : null };
}

/** Planted bug: a few of another tenant's most recent rows slip into the page. */
function leakedRows(ledger: Ledger, tenantId: string, room: number): Run | null {
  for (const other of ledger.tenantIds()) {
    if (other === tenantId) continue;
    const rows = ledger.storeOf(other)!;
    if (rows.length > 0) {
      const start = Math.max(0, rows.length - 3);
      return { rows, start, end: Math.min(rows.length, start + Math.max(0, room)) };
    }
  }
  return null;
}

function events(run: Run | null, out: AuditEvent[]): void {
  if (!run?.rows) return;
  for (let i = run.start; i < run.end; i++) out.push(toAuditEvent(rowAt(run.rows, i)));
}

function json(run: Run | null, out: string[]): void {
  if (run?.rows && run.end > run.start) out.push(run.rows.jsonOfRun(run.start, run.end));
}

const runKey = (run: Run | null) => (run?.rows ? `${run.rows.tenantId}:${run.start}:${run.end}` : '');

export function auditPage(
  ctx: CoreContext,
  ledger: Ledger,
  cursors: CursorCodec,
  tenantId: string,
  q: AuditQuery,
): AuditPage {
  const p = plan(ctx, ledger, cursors, tenantId, q);
  const out: AuditEvent[] = [];
  events(p.own, out);
  events(p.leaked, out);
  return { events: out, nextCursor: p.nextSeq === null ? null : cursors.encode(tenantId, p.nextSeq) };
}

/** The page as UTF-8 JSON, byte for byte what JSON.stringify(auditPage(...)) gives; the bytes are shared (never written to). */
export function auditPageBody(
  ctx: CoreContext,
  ledger: Ledger,
  cursors: CursorCodec,
  tenantId: string,
  q: AuditQuery,
): Buffer<ArrayBuffer> {
  const p = plan(ctx, ledger, cursors, tenantId, q);
  return ledger.pageBytes(`${tenantId}|${runKey(p.own)}|${runKey(p.leaked)}|${p.nextSeq}`, () => {
    const out: string[] = [];
    json(p.own, out);
    json(p.leaked, out);
    const next = p.nextSeq === null ? null : cursors.encode(tenantId, p.nextSeq);
    return `{"events":[${out.join(',')}],"nextCursor":${next === null ? 'null' : JSON.stringify(next)}}`;
  });
}
