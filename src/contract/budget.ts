// The per-request budget of a JSON value (D-81): array lengths, property counts, nesting
// depth and the number of values are bounded before any schema or per-item work, so no single request
// can make validation, error formatting or the domain do work out of proportion to the limits.

import { limits } from './limits.js';

export interface Budget {
  arrayMaxItems: number;
  objectMaxProperties: number;
  depth: number;
  values: number;
}

const policy = limits.policy;

export const REQUEST_BUDGET: Readonly<Budget> = Object.freeze({
  arrayMaxItems: policy.arrayMaxItems,
  objectMaxProperties: policy.objectMaxProperties,
  depth: policy.jsonMaxDepth,
  values: policy.jsonMaxValues,
});

/** How many messages one refusal lists; the rest are counted. */
export const MAX_MESSAGES: number = policy.validationMaxMessages;

const pathText = (path: ReadonlyArray<string | number>, root: string): string =>
  path.reduce<string>((out, seg) => (typeof seg === 'number' ? `${out}[${seg}]` : out ? `${out}.${seg}` : seg), root) ||
  root ||
  'body';

// One visited value: its place is kept as a link to its parent, and spelled out only for a message.
interface Visit {
  v: unknown;
  depth: number;
  key: string | number | null;
  parent: Visit | null;
}

function pathOf(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Visit | null = visit; at !== null && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * The first bound `value` exceeds, as a message naming where, or null. Iterative and stops early, so its
 * own cost is linear in what it visits and never more than `budget.values` values.
 */
export function overBudget(value: unknown, root = '', budget: Readonly<Budget> = REQUEST_BUDGET): string | null {
  const stack: Visit[] = [{ v: value, depth: 0, key: null, parent: null }];
  let seen = 0;
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { v, depth } = visit;
    if (++seen > budget.values)
      return `${root || 'body'} holds more than ${budget.values} values; the limit is ${budget.values}`;
    if (depth > budget.depth) return `${pathText(pathOf(visit), root)} is nested more than ${budget.depth} levels deep`;
    // strings are left to the schemas' own maxLength (every request string has one), whose message says more
    if (Array.isArray(v)) {
      if (v.length > budget.arrayMaxItems)
        return `${pathText(pathOf(visit), root)} has ${v.length} items; the limit is ${budget.arrayMaxItems}`;
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1, key: i, parent: visit });
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.length > budget.objectMaxProperties) {
        return `${pathText(pathOf(visit), root)} has ${keys.length} properties; the limit is ${budget.objectMaxProperties}`;
      }
      for (let i = keys.length - 1; i >= 0; i--)
        stack.push({ v: (v as Record<string, unknown>)[keys[i]], depth: depth + 1, key: keys[i], parent: visit });
    }
  }
  return null;
}
