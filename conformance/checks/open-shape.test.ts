import { describe, expect, it } from 'vitest';
import { mentionOrderProblem } from './jobs-market.js';
import { mainList, mentionsNumber, namesTier, numericChanges, stringsOf, tiersNamed } from './open-shape.js';

describe('reading open shapes without assuming field names', () => {
  const me = { plan: { name: 'Starter' }, grants: ['jobs', 'apply'], balance: { apply: 99 }, quotas: { requestsPerMinute: 120, pageCap: 20, note: '100/month' } };

  it('finds the tier in any letter case, and the tier table numbers, wherever they sit', () => {
    expect(namesTier(me, 'starter')).toBe(true);
    expect(namesTier(me, 'pro')).toBe(false);
    expect(tiersNamed(me, ['free', 'starter', 'pro'])).toEqual(['starter']);
    expect(mentionsNumber(me, 120)).toBe(true);
    expect(mentionsNumber(me, 100)).toBe(true);
    expect(mentionsNumber(me, 12)).toBe(false);
  });

  it('tells which numbers moved between two readings', () => {
    expect(numericChanges(me, { ...me, balance: { apply: 98 } })).toEqual([{ path: '/balance/apply', from: 99, to: 98, delta: -1 }]);
    expect(numericChanges(me, me)).toEqual([]);
  });

  it('takes the longest list as the main one, slug-like strings first', () => {
    expect(mainList({ meta: [1], roles: [{ name: 'Data Engineering', slug: 'data-engineering' }, { name: 'QA', slug: 'qa' }] })).toHaveLength(2);
    expect(stringsOf({ name: 'Data Engineering', slug: 'data-engineering' })[0]).toBe('data-engineering');
    expect(mainList({ a: 1 })).toBeNull();
  });

  it('"most mentioned first" holds when any count the entries carry never goes up', () => {
    expect(mentionOrderProblem([{ s: 'a', n: 5, rank: 1 }, { s: 'b', n: 3, rank: 2 }])).toBeNull();
    expect(mentionOrderProblem([{ s: 'a', n: 3 }, { s: 'b', n: 5 }])).toMatch(/not most-mentioned first/);
    expect(mentionOrderProblem(['a', 'b'])).toBeNull();
  });
});
