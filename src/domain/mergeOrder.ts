// The order of lists kept across tenants (screening requests, deliveries, applications, mail): by creation
// time on the creating tenant's clock, then by id (D-143). It is a function of each tenant's own records, so a
// tenant's records go back to the same places when it is imported again, whatever other tenants did, and a
// whole snapshot puts every list back in the order it had; ids of one tenant's stream sort by creation
// (rng.ts), so a tenant's own records keep their order among themselves. A new record is almost always the
// newest: then inserting is an append.
// Requirements: none (storage order); decisions D-137, D-143.

/** Whether `a` goes before `b` in creation order. */
export type Before<T> = (a: T, b: T) => boolean;

/** Creation order by a time and an id: the time first, then the id (ids of one stream sort by creation). */
export const byTimeThenId =
  <T>(timeOf: (x: T) => number | string, idOf: (x: T) => string): Before<T> =>
  (a, b) => {
    const ta = timeOf(a);
    const tb = timeOf(b);
    return ta < tb || (ta === tb && idOf(a) < idOf(b));
  };

/** Puts `x` into `list` (in creation order) at its place: an append unless something newer is there already. */
export function insertInOrder<T>(list: T[], x: T, before: Before<T>): void {
  if (list.length === 0 || !before(x, list[list.length - 1])) {
    list.push(x);
    return;
  }
  let lo = 0;
  let hi = list.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(x, list[mid])) hi = mid;
    else lo = mid + 1;
  }
  list.splice(lo, 0, x);
}

/**
 * `list` and `incoming` in creation order, merged into one list in creation order: `list` itself when
 * `incoming` goes after it (appended in place), a new list otherwise.
 */
export function mergeInOrder<T>(list: T[], incoming: readonly T[], before: Before<T>): T[] {
  if (list.length === 0 || incoming.length === 0 || before(list[list.length - 1], incoming[0])) {
    for (const x of incoming) list.push(x);
    return list;
  }
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < list.length && j < incoming.length) out.push(before(incoming[j], list[i]) ? incoming[j++] : list[i++]);
  while (i < list.length) out.push(list[i++]);
  while (j < incoming.length) out.push(incoming[j++]);
  return out;
}
