// Puts a tenant's records back into a list kept in creation order across tenants (D-136). Ids of one
// prefix sort by creation within one sandbox (rng.ts: epoch, then a zero-padded counter), and a snapshot
// carries its epoch on, so the id is the creation order; the usual case, a tenant's records all newer
// than the list's last one, is an append.
// Requirements: none (storage order); decisions D-136.

/**
 * `list` and `incoming` in creation order (by id), merged into one list in creation order: `list` itself
 * when `incoming` goes after it (appended in place), a new list otherwise.
 */
export function mergeById<T>(list: T[], incoming: readonly T[], idOf: (x: T) => string): T[] {
  if (list.length === 0 || incoming.length === 0 || idOf(list[list.length - 1]) < idOf(incoming[0])) {
    for (const x of incoming) list.push(x);
    return list;
  }
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < list.length && j < incoming.length)
    out.push(idOf(list[i]) < idOf(incoming[j]) ? list[i++] : incoming[j++]);
  while (i < list.length) out.push(list[i++]);
  while (j < incoming.length) out.push(incoming[j++]);
  return out;
}
