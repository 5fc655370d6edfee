// The audit export: keyset pages over one tenant's ledger rows. `since` seeds only the first page;
// once a cursor is given it alone decides where the page starts, so rows appended between pages are
// neither skipped nor repeated.

import type { CoreContext } from '../context.js';
import { invalid } from '../errors.js';
import { limits } from '../plans.js';
import type { CursorCodec } from './cursor.js';
import { type AuditEvent, type Ledger, type LedgerRow, toAuditEvent } from './ledger.js';

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
  if (!Number.isFinite(ms)) throw invalid(`since must be an RFC 3339 date-time such as 2026-01-31T00:00:00Z (got '${since}')`, 'since');
  return ms;
}

function parseLimit(limit: number | undefined): number {
  const { min, max, default: def } = limits.spec.auditLimit;
  if (limit === undefined) return def ?? max;
  if (!Number.isInteger(limit) || limit < min || limit > max) throw invalid(`limit must be an integer from ${min} to ${max}`, 'limit');
  return limit;
}

export function auditPage(ctx: CoreContext, ledger: Ledger, cursors: CursorCodec, tenantId: string, q: AuditQuery): AuditPage {
  const limit = parseLimit(q.limit);
  const sinceMs = q.since === undefined ? undefined : parseSince(q.since);
  const afterSeq = q.cursor === undefined ? undefined : cursors.decode(tenantId, q.cursor);

  let start: number;
  if (afterSeq !== undefined) {
    start = ledger.indexAfterSeq(tenantId, afterSeq);
    // planted bug: `since` re-applied on a cursor page as an exclusive bound, dropping a row per page
    if (sinceMs !== undefined && ctx.faults.bug('since_on_every_page')) start += 1;
  } else {
    start = sinceMs === undefined ? 0 : ledger.indexAtOrAfter(tenantId, sinceMs);
  }
  // planted bug: rows of another tenant take the end of the page
  const leaked = ctx.faults.bug('leak_audit_rows') ? leakedRows(ledger, tenantId).slice(0, limit - 1) : [];
  const { rows, more } = ledger.slice(tenantId, start, limit - leaked.length);
  const last = rows.at(-1);
  return {
    events: [...rows, ...leaked].map(toAuditEvent),
    nextCursor: more && last ? cursors.encode(tenantId, last.seq) : null,
  };
}

/** Planted bug: a few of another tenant's most recent rows slip into the page. */
function leakedRows(ledger: Ledger, tenantId: string): LedgerRow[] {
  for (const other of ledger.tenantIds()) {
    if (other === tenantId) continue;
    const rows = ledger.rowsOf(other);
    if (rows.length > 0) return rows.slice(-3);
  }
  return [];
}
