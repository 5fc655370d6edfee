// Per-tenant id streams (D-143): what a tenant's calls draw depends on its calls alone, every id of a tenant's
// object carries the tenant's tag, and tags never collide.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdFactory, Rng, tagOfTenant, tenantTagOf } from './rng.js';

const factory = () => new IdFactory(new Rng(20261122).fork('ids'), 'ep0c00');

describe('per-tenant id streams (D-143)', () => {
  it("a tenant's ids do not depend on what other tenants draw in between", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.constantFrom('scr', 'whd', 'key')), { maxLength: 40 }),
        (draws) => {
          const alone = factory();
          const shared = factory();
          const [a] = [alone.next('ten')];
          shared.next('ten');
          const b = shared.next('ten');
          const mine: string[] = [];
          const together: string[] = [];
          for (const [other, prefix] of draws) {
            if (other) shared.nextOf(b, prefix);
            else {
              mine.push(alone.nextOf(a, prefix));
              together.push(shared.nextOf(a, prefix));
            }
          }
          expect(together).toEqual(mine);
          expect(shared.exportTenant(a)).toEqual(alone.exportTenant(a));
        },
      ),
    );
  });

  it("carries the tenant's tag in every id of its objects, and none in ids of no tenant", () => {
    const ids = factory();
    const tenant = ids.next('ten');
    expect(tenantTagOf(tenant)).toBeNull();
    expect(tenantTagOf(ids.next('flt'))).toBeNull();
    for (const prefix of ['scr', 'whd', 'app', 'ord', 'lst', 'msg', 'key', 'acct', 'pay']) {
      const id = ids.nextOf(tenant, prefix);
      expect(id.startsWith(`${prefix}_`)).toBe(true);
      expect(tenantTagOf(id)).toBe(tagOfTenant(tenant));
    }
    const delivery = ids.nextOf(tenant, 'whd');
    expect(tenantTagOf(`${delivery}.3`)).toBe(tagOfTenant(tenant));
    expect(tenantTagOf('ten_demo0a1b2c3d4e5f')).toBeNull();
  });

  it('gives every tenant its own tag: generated tenants by their counter, the demo tenants by their id', () => {
    const ids = factory();
    const generated = Array.from({ length: 3000 }, () => ids.next('ten'));
    const demo = Array.from({ length: 5 }, (_, i) => `ten_demo${new Rng(i + 1).token(12)}`);
    const tags = [...generated, ...demo].map(tagOfTenant);
    expect(new Set(tags).size).toBe(tags.length);
    expect(tagOfTenant(generated[0])).toBe('1');
    expect(tagOfTenant(generated[2999])).toBe((3000).toString(36));
    expect(tagOfTenant(demo[0])).toBe(demo[0].slice(4));
    for (const t of tags) expect(t).toMatch(/^[0-9a-z]+$/);
  });

  it('exports, forgets and imports a tenant stream: the next ids are those it would have drawn', () => {
    const ids = factory();
    const t = ids.next('ten');
    ids.nextOf(t, 'scr');
    const state = JSON.parse(JSON.stringify(ids.exportTenant(t)));
    const next = factory();
    next.importTenant(t, state);
    const second = ids.nextOf(t, 'scr');
    expect(next.nextOf(t, 'scr')).toBe(second);
    ids.forgetTenant(t);
    expect(ids.exportTenant(t)).toBeNull();
    ids.importTenant(t, state);
    expect(ids.nextOf(t, 'scr')).toBe(second);
  });
});
