import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byTimeThenId, TenantOrder } from './mergeOrder.js';

interface Rec {
  tenant: string;
  time: number;
  id: string;
}

const before = byTimeThenId<Rec>(
  (r) => r.time,
  (r) => r.id,
);
const sorted = (rs: readonly Rec[]) => [...rs].sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : 1));

const tenant = fc.constantFrom('', 't1', 't2', 't3');
const op = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), tenant, step: fc.nat(3) }),
  fc.record({ kind: fc.constant('put' as const), tenant, times: fc.array(fc.nat(40), { maxLength: 5 }) }),
  fc.record({ kind: fc.constant('drop' as const), tenant }),
  fc.record({ kind: fc.constant('read' as const) }),
);

describe('TenantOrder', () => {
  it('keeps every tenant in creation order and all of them across tenants, whatever is added, put back or dropped', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const order = new TenantOrder<Rec>(before);
        // the model: every record held, by tenant
        const held = new Map<string, Rec[]>();
        let n = 0;
        const id = () => `r${String(n++).padStart(4, '0')}`;
        for (const o of ops) {
          if (o.kind === 'add') {
            // a tenant's new record is the newest of its own (its clock never goes back)
            const mine = held.get(o.tenant) ?? [];
            const rec = { tenant: o.tenant, time: (mine.at(-1)?.time ?? 0) + o.step, id: id() };
            held.set(o.tenant, [...mine, rec]);
            order.add(o.tenant, rec);
          } else if (o.kind === 'put') {
            const recs = sorted(o.times.map((time) => ({ tenant: o.tenant, time, id: id() })));
            held.set(o.tenant, recs);
            order.put(o.tenant, recs);
          } else if (o.kind === 'drop') {
            expect(order.drop(o.tenant)).toEqual(held.get(o.tenant) ?? []);
            held.delete(o.tenant);
          } else expect(order.overall()).toEqual(sorted([...held.values()].flat()));
          for (const [t, recs] of held) expect(order.of(t)).toEqual(recs);
        }
        expect(order.overall()).toEqual(sorted([...held.values()].flat()));
        order.clear();
        expect(order.overall()).toEqual([]);
        expect(order.of('t1')).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
