// Reading the audit ledger the way a client does (following nextCursor page by page, with guards so a
// broken cursor can never loop forever), and the invariants every exported ledger must keep: the rows
// of one request chain from the intake row, and nothing is delivered without a human decision.

import type { CheckContext } from '../check.js';
import { violation } from '../failure.js';
import { jsonOf, type Exchange } from '../target/http.js';
import { asyncWait } from '../waits.js';
import { expectStatus, screening } from './support.js';

export interface AuditRow {
  id: string;
  requestId: string;
  fromState?: string | null;
  toState: string;
  actor: string;
  payload?: unknown;
  createdAt: string;
}

export interface WalkOptions {
  limit?: number;
  since?: string;
  /** Send `since` on every page (a client that keeps its filter), not only the first. */
  sinceOnEveryPage?: boolean;
  /** Called after each page but the last, e.g. to append rows while the walk is under way. */
  between?: (page: number) => Promise<void>;
  /** Upper bound on pages before the walk is declared endless. */
  maxPages?: number;
  /** Rows the caller may see; any other row is another tenant's (a violation of tenant scoping). */
  owns?: (row: AuditRow) => boolean;
  /** Judge the ledger invariants (ledgerProblems) on a walk of one page; on unless false. */
  invariants?: boolean;
}

export interface Walk {
  rows: AuditRow[];
  pages: Exchange[];
}

export async function walkAudit(ctx: CheckContext, key: string, opts: WalkOptions = {}): Promise<Walk> {
  const api = screening(ctx);
  const rows: AuditRow[] = [];
  const pages: Exchange[] = [];
  const seen = new Map<string, number>();
  const maxPages = opts.maxPages ?? 1000;
  let cursor: string | null = null;
  for (let page = 0; ; page++) {
    if (page >= maxPages)
      throw violation(
        'SCR-AUDIT-4',
        `the cursor walk did not reach a last page (nextCursor null) within ${maxPages} pages`,
        pages[pages.length - 1],
      );
    const query: Record<string, string | number | undefined> = { limit: opts.limit };
    if (opts.since !== undefined && (page === 0 || opts.sinceOnEveryPage)) query.since = opts.since;
    if (cursor !== null) query.cursor = cursor;
    const ex = await api.audit(key, query);
    pages.push(ex);
    expectStatus(ex, 200, 'SCR-AUDIT-1', `GET /audit page ${page + 1}`);
    const body = jsonOf(ex);
    if (!Array.isArray(body?.events) || !('nextCursor' in (body ?? {})))
      throw violation('SCR-AUDIT-1', 'an audit page lacks `events` or `nextCursor`', ex);
    const limit = opts.limit ?? 100;
    if (body.events.length > limit)
      throw violation('SCR-AUDIT-2', `a page holds ${body.events.length} events, more than limit ${limit}`, ex);
    for (const e of body.events as AuditRow[]) {
      if (opts.owns && !opts.owns(e))
        throw violation(
          'SCR-AUDIT-3',
          `the audit export contains row ${e.id} of request ${e.requestId}, which this tenant never submitted`,
          ex,
        );
      const before = seen.get(e.id);
      if (before !== undefined)
        throw violation(
          'SCR-AUDIT-4',
          `row ${e.id} came back again on page ${page + 1} (first seen on page ${before + 1}): the walk repeats rows`,
          ex,
        );
      seen.set(e.id, page);
      rows.push(e);
    }
    const next = body.nextCursor;
    if (next === null) {
      // every export the run reads in one page, whatever check reads it, holds the ledger to its
      // invariants (over several pages a broken chain could be a paging fault, judged as SCR-AUDIT-4)
      const p = opts.invariants === false || page > 0 ? undefined : ledgerProblems(rows, opts.since === undefined)[0];
      if (p) throw violation(p.requirement, p.why, ex);
      return { rows, pages };
    }
    if (typeof next !== 'string')
      throw violation('SCR-AUDIT-1', `nextCursor is ${JSON.stringify(next)}, neither a string nor null`, ex);
    if (next === cursor)
      throw violation('SCR-AUDIT-4', 'nextCursor repeats the cursor just used: the walk cannot advance', ex);
    if (body.events.length === 0 && cursor !== null)
      throw violation('SCR-AUDIT-4', 'an empty page still announces a next page', ex);
    cursor = next;
    await opts.between?.(page);
  }
}

export interface LedgerProblem {
  requirement: string;
  why: string;
}

/** The invariants of an exported ledger. `complete`: the rows are the whole ledger (not a since-filtered tail). */
export function ledgerProblems(rows: AuditRow[], complete: boolean): LedgerProblem[] {
  const problems: LedgerProblem[] = [];
  const byRequest = new Map<string, AuditRow[]>();
  // the documents fix no export order (oldest first is policy, D-21): a newest-first export is read in reverse
  for (const r of newestFirst(rows) ? [...rows].reverse() : rows) {
    const list = byRequest.get(r.requestId) ?? [];
    list.push(r);
    byRequest.set(r.requestId, list);
  }
  for (const [id, list] of byRequest) {
    const first = list[0];
    if (complete && (first.toState !== 'received' || (first.fromState !== null && first.fromState !== undefined))) {
      problems.push({
        requirement: 'SCR-LEDGER-2',
        why: `the first row of ${id} goes ${first.fromState ?? 'null'} → ${first.toState}, not the intake row null → received`,
      });
    }
    if (list.filter((r) => r.toState === 'received').length > 1) {
      problems.push({
        requirement: 'SCR-IDEMP-2',
        why: `${id} has ${list.filter((r) => r.toState === 'received').length} intake rows`,
      });
    }
    for (let i = 1; i < list.length; i++) {
      if (list[i].fromState !== list[i - 1].toState) {
        problems.push({
          requirement: 'SCR-LEDGER-2',
          why: `rows of ${id} do not chain: ${list[i - 1].fromState ?? 'null'} → ${list[i - 1].toState} is followed by ${list[i].fromState ?? 'null'} → ${list[i].toState} (a transition has no row)`,
        });
        break;
      }
    }
    const decided = list.findIndex((r) => /^reviewer:/.test(r.actor));
    const delivered = list.findIndex((r) => r.toState === 'delivered');
    if (complete && delivered >= 0 && (decided < 0 || decided > delivered)) {
      problems.push({
        requirement: 'SCR-STATE-2',
        why: `${id} reached delivered without a human review decision before it`,
      });
    }
    for (const r of list) {
      if (['approved', 'rejected', 'edited'].includes(r.toState) && !/^reviewer:.+/.test(r.actor)) {
        problems.push({
          requirement: 'SCR-LEDGER-3',
          why: `the review decision row of ${id} (→ ${r.toState}) has actor '${r.actor}', not reviewer:<id>`,
        });
      }
    }
    // a human reviewer approves, rejects or edits: a reviewer's row out of human review is one of those
    const reviewed = list.find((r) => r.fromState === 'pending_review' && /^reviewer:/.test(r.actor));
    if (reviewed && !['approved', 'rejected', 'edited'].includes(reviewed.toState)) {
      problems.push({
        requirement: 'SCR-REVIEW-2',
        why: `the reviewer's row of ${id} moves pending_review → ${reviewed.toState}: a reviewer approves, rejects or edits the result`,
      });
    }
  }
  return problems;
}

/** True when the export runs newest first (more steps back in time than forward). */
function newestFirst(rows: AuditRow[]): boolean {
  let back = 0;
  let forward = 0;
  for (let i = 1; i < rows.length; i++) {
    const d = Date.parse(rows[i].createdAt) - Date.parse(rows[i - 1].createdAt);
    if (d < 0) back++;
    else if (d > 0) forward++;
  }
  return back > forward;
}

/** Throws the first ledger problem as a violation, with the page exchange as evidence. */
export function assertLedger(rows: AuditRow[], complete: boolean, evidence?: Exchange): void {
  const p = ledgerProblems(rows, complete)[0];
  if (p) throw violation(p.requirement, p.why, evidence);
}

/**
 * Walks the ledger until `done` holds over its rows, or the timeout passes (then the last walk is
 * returned and the caller judges it). Never "until two walks agree": rows keep arriving while a real
 * deployment's scorer and reviewers work. `since` (from the target's clock) keeps each walk short.
 */
export function settledLedger(
  ctx: CheckContext,
  key: string,
  done: (rows: AuditRow[]) => boolean,
  timeoutMs: number,
  since?: string,
): Promise<Walk> {
  // the callers judge the rows themselves (a missing row is reported as the transition it lacks)
  return asyncWait(ctx, async () => {
    const deadline = Date.now() + timeoutMs;
    let last = await walkAudit(ctx, key, { limit: 500, since, invariants: false });
    // each walk spends the key's window: walk often at first, then less (the last walk is at the deadline)
    for (let every = 250; !done(last.rows) && Date.now() < deadline; every = Math.min(2000, every * 1.5)) {
      await new Promise((r) => setTimeout(r, Math.max(0, Math.min(every, deadline - Date.now()))));
      last = await walkAudit(ctx, key, { limit: 500, since, invariants: false });
    }
    return last;
  });
}
