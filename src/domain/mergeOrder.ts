// The order of lists kept across tenants (screening requests, deliveries, applications, mail): by creation
// time on the creating tenant's clock, then by id (D-147). It is a function of each tenant's own records, so a
// tenant's records go back to the same places when it is imported again, whatever other tenants did, and a
// whole snapshot puts every list back in the order it had; ids of one tenant's stream sort by creation
// (rng.ts), so a tenant's own records keep their order among themselves. A new record is almost always the
// newest: then inserting is an append.
// Requirements: none (storage order); decisions D-137, D-147, D-187.

/** Whether `a` goes before `b` in creation order. */
export type Before<T> = (a: T, b: T) => boolean;

/** Creation order by a time and an id: the time first, then the id (ids of one stream sort by creation). */
export const byTimeThenId =
  <T>(timeOf: (x: T) => number | string, idOf: (x: T) => string): Before<T> =>
  (a, b) => {
    const ta = timeOf(a);
    const tb = timeOf(b);
    return ta < tb || (ta === tb && idOf(a) < idOf(b));
  };

/** Puts `x` into `list` (in creation order) at its place: an append unless something newer is there already. */
export function insertInOrder<T>(list: T[], x: T, before: Before<T>): void {
  if (list.length === 0 || !before(x, list[list.length - 1])) {
    list.push(x);
    return;
  }
  let lo = 0;
  let hi = list.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (before(x, list[mid])) hi = mid;
    else lo = mid + 1;
  }
  list.splice(lo, 0, x);
}

/**
 * Records in creation order, per tenant and across tenants. The order across tenants is kept as records are added,
 * but putting a tenant's records back or dropping them only marks it stale: it is made again, from the tenants'
 * own lists, when next read. So loading and dropping a tenant costs its own records, not those of every tenant in
 * memory (a merge and a filter of every record did, D-187); only a read across tenants pays for all of them.
 * The key of records of no tenant is '' (no tenant id is empty).
 */
export class TenantOrder<T> {
  private readonly byTenant = new Map<string, T[]>();
  private all: T[] | null = [];

  constructor(private readonly before: Before<T>) {}

  /** A new record of the tenant: the newest of its own (its ids sort by creation), at its place across tenants. */
  add(tenantId: string, x: T): void {
    const mine = this.byTenant.get(tenantId);
    if (mine) mine.push(x);
    else this.byTenant.set(tenantId, [x]);
    if (this.all) insertInOrder(this.all, x, this.before);
  }

  /** The tenant's records in creation order, read only. */
  of(tenantId: string): readonly T[] {
    return this.byTenant.get(tenantId) ?? [];
  }

  /** Every record in creation order, read only. */
  overall(): readonly T[] {
    if (!this.all) {
      const before = this.before;
      this.all = [...this.byTenant.values()].flat().sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    }
    return this.all;
  }

  /** Puts the tenant's records (in creation order) in place of those it had. */
  put(tenantId: string, records: readonly T[]): void {
    this.drop(tenantId);
    if (!records.length) return;
    this.byTenant.set(tenantId, [...records]);
    this.all = null;
  }

  /** Drops the tenant's records; returns them. */
  drop(tenantId: string): readonly T[] {
    const mine = this.byTenant.get(tenantId);
    if (!mine) return [];
    this.byTenant.delete(tenantId);
    this.all = null;
    return mine;
  }

  clear(): void {
    this.byTenant.clear();
    this.all = [];
  }
}
