// Reading bodies whose shape the documents leave open ("not shown": GET /me, the market endpoints, the
// apply result, the employer tools' results) without assuming a field name. A `must` check may rely
// only on what the documents state, so it looks for the VALUE the documents promise (a tier, a number
// of the tier table, a list, a URL) wherever it sits, and judges only what it can read that way: no key
// name, letter case or key convention, no wrapping, and no list or number nested inside the items of
// the list it reads. A name the documents give (`apply_url`, a Job's `id`) may be looked for at any depth.

export interface Leaf {
  /** JSON-pointer-like path, e.g. /plan/name. */
  path: string;
  value: string | number | boolean | null;
}

/** Every scalar leaf of a JSON value with its path. */
export function leaves(value: unknown, path = ''): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}/${i}`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => leaves(v, `${path}/${k}`));
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
    return [{ path, value: value as Leaf['value'] }];
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

/**
 * The lists of a value that sit inside no other list (the value itself when it is one), in document
 * order: a body's own lists, however deeply wrapped, but never a list carried inside the items of one.
 */
export function outerLists(value: unknown): unknown[][] {
  const out: unknown[][] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) out.push(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return out;
}

const longest = <T>(lists: T[][]): T[] | null =>
  lists.reduce<T[] | null>((best, l) => (best === null || l.length > best.length ? l : best), null);

/** True for a JSON object (not an array, not null). */
export const isRecord = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x);

/**
 * The body's main list: its longest outer list (null when it has none). A list nested inside the items
 * (each role's skills, each candidate's tags) is never taken for it, however long.
 */
export const mainList = (value: unknown): unknown[] | null => longest(outerLists(value));

/**
 * The body's main list of records (cards, candidates, a shortlist): its longest outer list whose every
 * item is an object; an empty outer list counts (no records), null when the body has no list at all or
 * only lists of scalars.
 */
export const mainRecordList = (value: unknown): Record<string, unknown>[] | null =>
  longest(outerLists(value).filter((l): l is Record<string, unknown>[] => l.every(isRecord)));

/** The scalar leaves of a value outside one of its lists (compared by identity). */
export function leavesOutside(value: unknown, list: unknown[]): Leaf[] {
  if (value === list) return [];
  if (Array.isArray(value)) return value.flatMap((v) => leavesOutside(v, list));
  if (isRecord(value)) return Object.values(value).flatMap((v) => leavesOutside(v, list));
  return leaves(value);
}

/** A key with its convention taken out: `applyCreditsLeft`, `apply_credits_left` and `apply-credits-left` read alike. */
export const normKey = (key: string): string => key.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The first value anywhere in a body under a key the documents name (any depth, any wrapping). */
export function valueNamed(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    for (const v of value) {
      const f = valueNamed(v, key);
      if (f !== undefined) return f;
    }
  } else if (isRecord(value)) {
    if (key in value) return value[key];
    for (const v of Object.values(value)) {
      const f = valueNamed(v, key);
      if (f !== undefined) return f;
    }
  }
  return undefined;
}

/** The first object anywhere in a body (itself included) that satisfies `test`. */
export function findRecord(
  value: unknown,
  test: (o: Record<string, unknown>) => boolean,
): Record<string, unknown> | undefined {
  if (isRecord(value) && test(value)) return value;
  const children = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : [];
  for (const v of children) {
    const f = findRecord(v, test);
    if (f) return f;
  }
  return undefined;
}

/** True when some string leaf names the tier, in any letter case (`Starter`, `starter`, `STARTER`). */
export const namesTier = (value: unknown, tier: string): boolean =>
  leaves(value).some((l) => typeof l.value === 'string' && l.value.trim().toLowerCase() === tier.toLowerCase());

/** The tier names among the body's string leaves (lower case). */
export const tiersNamed = (value: unknown, tiers: readonly string[]): string[] => [
  ...new Set(
    leaves(value).flatMap((l) =>
      typeof l.value === 'string' && tiers.includes(l.value.trim().toLowerCase()) ? [l.value.trim().toLowerCase()] : [],
    ),
  ),
];

/** True when the number appears as a numeric leaf, or as a whole number inside a string leaf ("60/min"). */
export function mentionsNumber(value: unknown, n: number): boolean {
  const re = new RegExp(`(^|[^0-9.])${n}([^0-9]|$)`);
  return leaves(value).some((l) => l.value === n || (typeof l.value === 'string' && re.test(l.value)));
}

/** Numeric leaves present in both values, with their change (after − before). */
export function numericChanges(
  before: unknown,
  after: unknown,
): { path: string; from: number; to: number; delta: number }[] {
  const a = new Map(leaves(before).flatMap((l) => (typeof l.value === 'number' ? [[l.path, l.value] as const] : [])));
  return leaves(after).flatMap((l) => {
    const from = a.get(l.path);
    return typeof l.value === 'number' && from !== undefined && from !== l.value
      ? [{ path: l.path, from, to: l.value, delta: l.value - from }]
      : [];
  });
}

/**
 * The string leaves of an item of a list (the item itself when it is a string): the item's own fields
 * before anything nested in them, slug-like strings first at each depth.
 */
export function stringLeavesOf(item: unknown): Leaf[] {
  const depth = (l: Leaf) => l.path.split('/').length;
  const sluggish = (l: Leaf) => (/^[a-z0-9][a-z0-9_-]*$/.test(String(l.value)) ? 0 : 1);
  const seen = new Set<unknown>();
  return leaves(item)
    .filter((l) => typeof l.value === 'string' && l.value !== '')
    .sort((x, y) => depth(x) - depth(y) || sluggish(x) - sluggish(y))
    .filter((l) => !seen.has(l.value) && seen.add(l.value));
}

/** The strings of an item of a list, in the order of `stringLeavesOf`. */
export const stringsOf = (item: unknown): string[] => stringLeavesOf(item).map((l) => l.value as string);

/** The absolute http(s) URLs among a value's string leaves. */
export const urlsOf = (value: unknown): string[] =>
  leaves(value).flatMap((l) => (typeof l.value === 'string' && /^https?:\/\/\S+$/.test(l.value) ? [l.value] : []));

/** The numbers of an object's own fields whose key, read without its convention, is one of `names`. */
export const numbersNamed = (o: Record<string, unknown>, names: readonly string[]): number[] =>
  Object.entries(o).flatMap(([k, v]) => (typeof v === 'number' && names.includes(normKey(k)) ? [v] : []));

/** The keys of an object value and of every object nested in it (for "no personal data" checks). */
export function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
  return [];
}
