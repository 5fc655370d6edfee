// The store of screening requests: by id, and by (tenant, idempotency key). Lookup and insert are
// synchronous, so the idempotency check-and-insert cannot interleave with another request.
// Requirements: SCR-IDEMP-1, SCR-IDEMP-2, SCR-IDEMP-4; decisions D-12.

import { byTimeThenId, TenantOrder } from '../mergeOrder.js';
import { ShardedMap } from '../shardedMap.js';
import type { StoredRequest } from './record.js';
import type { ScreeningState } from './types.js';

export interface RequestFilter {
  tenantId?: string;
  state?: ScreeningState;
}

const before = byTimeThenId<StoredRequest>(
  (r) => r.createdAt,
  (r) => r.id,
);

export class RequestStore {
  // split in shards: a Map of every request rehashes all of them as it grows, a pause of every tenant (D-200)
  private byId = new ShardedMap<StoredRequest>();
  private byKey = new Map<string, ShardedMap<StoredRequest>>();
  // creation order, overall (mergeOrder.ts) and per tenant: the control API pages through these by position
  private order = new TenantOrder<StoredRequest>(before);
  private states = new Map<ScreeningState, number>();

  get(id: string): StoredRequest | undefined {
    return this.byId.get(id);
  }

  findByKey(tenantId: string, idempotencyKey: string): StoredRequest | undefined {
    return this.byKey.get(tenantId)?.get(idempotencyKey);
  }

  insert(req: StoredRequest): void {
    let keys = this.byKey.get(req.tenantId);
    if (!keys) this.byKey.set(req.tenantId, (keys = new ShardedMap()));
    if (keys.has(req.idempotencyKey)) throw new Error(`idempotency key ${req.idempotencyKey} already stored`);
    keys.set(req.idempotencyKey, req);
    this.byId.set(req.id, req);
    this.order.add(req.tenantId, req);
    this.moved(null, req.state);
  }

  /** Keeps the per-state counts true; the pipeline calls it on every transition. */
  moved(from: ScreeningState | null, to: ScreeningState): void {
    if (from) this.states.set(from, (this.states.get(from) ?? 1) - 1);
    this.states.set(to, (this.states.get(to) ?? 0) + 1);
  }

  /** How many requests are in `state` now (O(1): the review queue's badge). */
  countIn(state: ScreeningState): number {
    return this.states.get(state) ?? 0;
  }

  /** Requests in creation order (the store's own array, read only), overall or of one tenant. */
  ordered(tenantId?: string): readonly StoredRequest[] {
    return tenantId === undefined ? this.order.overall() : this.order.of(tenantId);
  }

  /** Requests in creation order, optionally filtered. */
  list(filter: RequestFilter = {}): StoredRequest[] {
    const out: StoredRequest[] = [];
    for (const r of this.ordered(filter.tenantId)) if (!filter.state || r.state === filter.state) out.push(r);
    return out;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Puts a tenant's requests back (in their creation order), into the overall order (D-137, D-147). */
  importTenant(tenantId: string, reqs: readonly StoredRequest[]): void {
    this.forgetTenant(tenantId);
    const keys = new ShardedMap<StoredRequest>();
    for (const req of reqs) {
      keys.set(req.idempotencyKey, req);
      this.byId.set(req.id, req);
      this.moved(null, req.state);
    }
    if (reqs.length === 0) return;
    this.byKey.set(tenantId, keys);
    this.order.put(tenantId, reqs);
  }

  /** Drops every request of a tenant. */
  forgetTenant(tenantId: string): void {
    for (const req of this.order.drop(tenantId)) {
      this.byId.delete(req.id);
      this.states.set(req.state, (this.states.get(req.state) ?? 1) - 1);
    }
    this.byKey.delete(tenantId);
  }

  reset(): void {
    this.byId.clear();
    this.byKey.clear();
    this.order.clear();
    this.states.clear();
  }
}
