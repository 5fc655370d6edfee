// Reading bodies whose shape the documents leave open ("not shown": GET /me, the market endpoints, the
// apply result, the employer tools' results) without assuming a field name. A `must` check may rely
// only on what the documents state, so it looks for the VALUE the documents promise (a tier, a number
// of the tier table, a list, a URL) wherever it sits, and judges only what it can read that way.

export interface Leaf {
  /** JSON-pointer-like path, e.g. /plan/name. */
  path: string;
  value: string | number | boolean | null;
}

/** Every scalar leaf of a JSON value with its path. */
export function leaves(value: unknown, path = ''): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}/${i}`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, `${path}/${k}`));
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return [{ path, value: value as Leaf['value'] }];
  return [];
}

/** Every array inside a JSON value (the value itself included), longest first. */
export function arrays(value: unknown): unknown[][] {
  const out: unknown[][] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) {
      out.push(v);
      v.forEach(walk);
    } else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return out.sort((a, b) => b.length - a.length);
}

/** The body's main list: its longest array (null when it has none). */
export const mainList = (value: unknown): unknown[] | null => arrays(value)[0] ?? null;

/** True when some string leaf names the tier, in any letter case (`Starter`, `starter`, `STARTER`). */
export const namesTier = (value: unknown, tier: string): boolean =>
  leaves(value).some((l) => typeof l.value === 'string' && l.value.trim().toLowerCase() === tier.toLowerCase());

/** The tier names among the body's string leaves (lower case). */
export const tiersNamed = (value: unknown, tiers: readonly string[]): string[] => [
  ...new Set(leaves(value).flatMap((l) => (typeof l.value === 'string' && tiers.includes(l.value.trim().toLowerCase()) ? [l.value.trim().toLowerCase()] : []))),
];

/** True when the number appears as a numeric leaf, or as a whole number inside a string leaf ("60/min"). */
export function mentionsNumber(value: unknown, n: number): boolean {
  const re = new RegExp(`(^|[^0-9.])${n}([^0-9]|$)`);
  return leaves(value).some((l) => l.value === n || (typeof l.value === 'string' && re.test(l.value)));
}

/** Numeric leaves present in both values, with their change (after − before). */
export function numericChanges(before: unknown, after: unknown): { path: string; from: number; to: number; delta: number }[] {
  const a = new Map(leaves(before).flatMap((l) => (typeof l.value === 'number' ? [[l.path, l.value] as const] : [])));
  return leaves(after).flatMap((l) => {
    const from = a.get(l.path);
    return typeof l.value === 'number' && from !== undefined && from !== l.value ? [{ path: l.path, from, to: l.value, delta: l.value - from }] : [];
  });
}

/** The strings of an item of a list (the item itself when it is a string), slug-like ones first. */
export function stringsOf(item: unknown): string[] {
  const all = [...new Set(leaves(item).flatMap((l) => (typeof l.value === 'string' && l.value !== '' ? [l.value] : [])))];
  const sluggish = (s: string) => (/^[a-z0-9][a-z0-9_-]*$/.test(s) ? 0 : 1);
  return all.sort((x, y) => sluggish(x) - sluggish(y));
}

/** The absolute http(s) URLs among a value's string leaves. */
export const urlsOf = (value: unknown): string[] => leaves(value).flatMap((l) => (typeof l.value === 'string' && /^https?:\/\/\S+$/.test(l.value) ? [l.value] : []));

/** The keys of an object value and of every object nested in it (for "no personal data" checks). */
export function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
  return [];
}
