// The specification-only view of a contract schema. A node marked `x-policy: true` is sandbox policy: with
// `x-policy-keywords` only those keywords are policy, otherwise the whole node is. Removing them leaves what
// the specification itself states, which is what a deployment may be judged by.

const ANNOTATIONS = ['x-policy', 'x-policy-keywords', 'x-decision'];

/** True when a schema, response, header or parameter object is marked as sandbox policy. */
export const isPolicy = (node: unknown): boolean =>
  Boolean(node && typeof node === 'object' && (node as Record<string, unknown>)['x-policy'] === true);

/** A copy of `schema` with every policy constraint removed (a wholly-policy node becomes `{}`). */
export function specView<T>(schema: T): T {
  const memo = new Map<unknown, unknown>();
  const walk = (node: unknown): unknown => {
    if (!node || typeof node !== 'object') return node;
    if (memo.has(node)) return memo.get(node);
    if (Array.isArray(node)) {
      const arr: unknown[] = [];
      memo.set(node, arr);
      for (const v of node) arr.push(walk(v));
      return arr;
    }
    const rec = node as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    memo.set(node, out);
    if (isPolicy(rec)) {
      const only = rec['x-policy-keywords'];
      if (!Array.isArray(only)) return out;
      for (const [k, v] of Object.entries(rec)) {
        if (!only.includes(k) && !ANNOTATIONS.includes(k)) out[k] = walk(v);
      }
      return out;
    }
    for (const [k, v] of Object.entries(rec)) out[k] = walk(v);
    return out;
  };
  return walk(schema) as T;
}
