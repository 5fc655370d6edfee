// The store of screening requests: by id, and by (tenant, idempotency key). Lookup and insert are
// synchronous, so the idempotency check-and-insert cannot interleave with another request.
// Requirements: SCR-IDEMP-1, SCR-IDEMP-2, SCR-IDEMP-4; decisions D-12.

import type { StoredRequest } from './record.js';
import type { ScreeningState } from './types.js';

export interface RequestFilter {
  tenantId?: string;
  state?: ScreeningState;
}

export class RequestStore {
  private byId = new Map<string, StoredRequest>();
  private byKey = new Map<string, Map<string, StoredRequest>>();

  get(id: string): StoredRequest | undefined {
    return this.byId.get(id);
  }

  findByKey(tenantId: string, idempotencyKey: string): StoredRequest | undefined {
    return this.byKey.get(tenantId)?.get(idempotencyKey);
  }

  insert(req: StoredRequest): void {
    let keys = this.byKey.get(req.tenantId);
    if (!keys) this.byKey.set(req.tenantId, (keys = new Map()));
    if (keys.has(req.idempotencyKey)) throw new Error(`idempotency key ${req.idempotencyKey} already stored`);
    keys.set(req.idempotencyKey, req);
    this.byId.set(req.id, req);
  }

  /** Requests in creation order, optionally filtered. */
  list(filter: RequestFilter = {}): StoredRequest[] {
    const source = filter.tenantId ? (this.byKey.get(filter.tenantId)?.values() ?? []) : this.byId.values();
    const out: StoredRequest[] = [];
    for (const r of source) if (!filter.state || r.state === filter.state) out.push(r);
    return out;
  }

  get size(): number {
    return this.byId.size;
  }

  reset(): void {
    this.byId.clear();
    this.byKey.clear();
  }
}
