import { describe, expect, it } from 'vitest';
import { POOL_SIZE, generatePool, isEligible } from './candidatePool.js';
import { hireEntry, shortlistEntry, talentCard } from './publicViews.js';

describe('candidate pool', () => {
  it('is the same for the same seed and different for another', () => {
    const a = generatePool(7);
    expect(generatePool(7)).toEqual(a);
    expect(generatePool(8).map((c) => c.id)).not.toEqual(a.map((c) => c.id));
    expect(a).toHaveLength(POOL_SIZE);
  });

  it('has unique ids and names, and both eligible and ineligible candidates', () => {
    const pool = generatePool(42);
    expect(new Set(pool.map((c) => c.id)).size).toBe(pool.length);
    expect(new Set(pool.map((c) => c.private.name)).size).toBe(pool.length);
    const eligible = pool.filter(isEligible).length;
    expect(eligible).toBeGreaterThan(pool.length / 2);
    expect(eligible).toBeLessThan(pool.length);
  });

  it('keeps personal data out of every public view', () => {
    const fit = { fit: 80, breakdown: { skills: 80, role: 100, seniority: null, location: null } };
    for (const c of generatePool(3)) {
      const out = JSON.stringify([shortlistEntry(c, fit), talentCard(c, fit, 'exact'), hireEntry(c, fit)]);
      for (const secret of [c.private.name, c.private.email, c.private.phone, String(c.private.salaryExpectationIdr)])
        expect(out).not.toContain(secret);
    }
  });
});
