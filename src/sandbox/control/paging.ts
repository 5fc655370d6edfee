// Keyset pagination of the control API's listings. Every store behind a listing is append-only
// between resets, so an item's position in creation order is a stable key: a cursor holds the
// position and id of the last item returned, the next page starts right after it (no offset scan,
// whatever the list's size), and a cursor whose id no longer sits at its position (a reset came in
// between) is refused instead of silently skipping or repeating items.

import { invalid } from '../../errors/errors.js';

export type Order = 'asc' | 'desc';

export interface PageQuery {
  limit: number;
  order: Order;
  /** Position to resume from (exclusive) and the id expected there. */
  after: { p: number; id: string } | null;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;
export const PAGE_PARAMS = ['limit', 'cursor', 'order'] as const;

function decodeCursor(raw: string, order: Order): PageQuery['after'] {
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { p?: unknown; id?: unknown; o?: unknown };
    if (Number.isSafeInteger(v.p) && (v.p as number) >= 0 && typeof v.id === 'string' && v.o === order)
      return { p: v.p as number, id: v.id };
  } catch {
    // falls through to the 400 below
  }
  throw invalid(
    `cursor is not a cursor of this listing in ${order} order; pass the nextCursor of the previous page unchanged`,
    'cursor',
  );
}

/** limit (1..500, default 50), order (asc | desc) and cursor from a query string. */
export function readPageQuery(query: Record<string, string | undefined>, defaultOrder: Order = 'asc'): PageQuery {
  let limit = DEFAULT_PAGE;
  if (query.limit !== undefined && query.limit !== '') {
    limit = Number(query.limit);
    if (!/^\d+$/.test(query.limit) || limit < 1 || limit > MAX_PAGE)
      throw invalid(`limit must be an integer from 1 to ${MAX_PAGE}`, 'limit');
  }
  const order = (query.order || defaultOrder) as Order;
  if (order !== 'asc' && order !== 'desc')
    throw invalid("order must be 'asc' (oldest first) or 'desc' (newest first)", 'order');
  const after = query.cursor ? decodeCursor(query.cursor, order) : null;
  return { limit, order, after };
}

/**
 * One page of `list` (in creation order) walking in `q.order` from the cursor, keeping items that
 * `match`. Work is the page plus the non-matching items skipped on the way, never the whole list.
 */
export function pageOf<T>(
  list: readonly T[],
  q: PageQuery,
  idOf: (t: T) => string,
  match?: (t: T) => boolean,
  base = 0,
): Page<T> {
  const step = q.order === 'asc' ? 1 : -1;
  let i = q.order === 'asc' ? 0 : list.length - 1;
  if (q.after) {
    // `base`: a list that drops its oldest items (a ring) counts positions from its first item ever
    const at = q.after.p - base;
    if (list[at] === undefined || idOf(list[at]) !== q.after.id) {
      throw invalid(
        'cursor no longer matches this listing (the sandbox was reset, or the entry has rolled off); start again without a cursor',
        'cursor',
      );
    }
    i = at + step;
  }
  const items: T[] = [];
  let last = -1;
  for (; i >= 0 && i < list.length; i += step) {
    const t = list[i];
    if (match && !match(t)) continue;
    if (items.length === q.limit) {
      const cursor = { p: last + base, id: idOf(list[last]), o: q.order };
      return { items, nextCursor: Buffer.from(JSON.stringify(cursor)).toString('base64url') };
    }
    items.push(t);
    last = i;
  }
  return { items, nextCursor: null };
}
