// The curation queue of submitted job applications, oldest first: the store holder behind apply
// (REST and MCP alike) and the control API's listing. Readers get copies, never the stored records.
// Requirements: JOB-APPLY-1, MCP-KEYED-5; decisions D-23, D-110.

import { byTimeThenId, TenantOrder } from '../mergeOrder.js';
import type { Application } from './types.js';

const before = byTimeThenId<Application>(
  (a) => a.createdAt,
  (a) => a.applicationId,
);

export class ApplicationQueue {
  private queue = new TenantOrder<Application>(before);

  push(application: Application): void {
    this.queue.add(application.tenantId, application);
  }

  /** Oldest first; optionally for one tenant. */
  list(tenantId?: string): Application[] {
    return (tenantId === undefined ? this.queue.overall() : this.queue.of(tenantId)).map((a) => ({ ...a }));
  }

  /** The queue itself, oldest first and read only, for keyset paging. */
  ordered(): readonly Application[] {
    return this.queue.overall();
  }

  get(applicationId: string): Application | undefined {
    const a = this.queue.overall().find((x) => x.applicationId === applicationId);
    return a && { ...a };
  }

  reset(): void {
    this.queue.clear();
  }

  /** A tenant's applications, oldest first (D-137). */
  exportTenant(tenantId: string): Application[] {
    return this.list(tenantId);
  }

  /** Puts a tenant's applications back into the queue in creation order. */
  importTenant(tenantId: string, state: readonly Application[]): void {
    this.queue.put(
      tenantId,
      state.map((a) => ({ ...a })),
    );
  }

  forgetTenant(tenantId: string): void {
    this.queue.drop(tenantId);
  }
}
