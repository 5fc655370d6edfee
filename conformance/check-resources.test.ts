import { describe, expect, it } from 'vitest';
import type { Capabilities, Check } from './check.js';
import { CHECK_USES, jobOf, scheduleOrder } from './check-resources.js';
import { allChecks } from './checks/index.js';

const caps = (o: Partial<Capabilities>): Capabilities => ({
  freshTenants: false,
  creditControl: false,
  clock: false,
  reviewDecisions: false,
  webhooks: false,
  noScopeKey: false,
  anonMcp: true,
  negativeInput: true,
  thisSandbox: false,
  ...o,
});
const byId = (id: string) => allChecks.find((c) => c.id === id)!;

describe('check resources', () => {
  it('lists every registered check, and only those (a check missing there would run alone)', () => {
    expect(allChecks.map((c) => c.id).filter((id) => !CHECK_USES[id])).toEqual([]);
    expect(Object.keys(CHECK_USES).filter((id) => !allChecks.some((c) => c.id === id))).toEqual([]);
  });

  it('keys only: a check holds the fixed keys it calls with; with fresh tenants only the slots it reads directly', () => {
    expect([...jobOf(byId('screening.submit.valid'), 0, caps({})).resources]).toEqual(['key:pro']);
    expect([...jobOf(byId('screening.submit.valid'), 0, caps({ freshTenants: true })).resources]).toEqual([]);
    expect([...jobOf(byId('screening.credits.spent-key'), 0, caps({ freshTenants: true })).resources]).toEqual([
      'key:screeningSpent',
    ]);
  });

  it('a check moving the clock runs alone only where the clock can be moved; an unlisted check always does', () => {
    expect(jobOf(byId('jobs.rate.window'), 0, caps({ clock: true })).exclusive).toBe(true);
    expect(jobOf(byId('jobs.rate.window'), 0, caps({})).exclusive).toBe(false);
    const unknown: Check = {
      id: 'x.unlisted',
      title: 'x',
      requirements: [],
      appliesTo: { surface: 'jobs' },
      run: async () => {},
    };
    expect(jobOf(unknown, 0, caps({})).exclusive).toBe(true);
  });

  it('offers walk-heavy checks first and late checks last, the rest in registry order', () => {
    const order = scheduleOrder(allChecks).map((c) => c.id);
    const early = Object.keys(CHECK_USES).filter((id) => CHECK_USES[id].early);
    expect(order.slice(0, early.length).sort()).toEqual(early.sort());
    const late = allChecks.filter((c) => c.late).map((c) => c.id);
    expect(order.slice(-late.length)).toEqual(late);
  });
});
