// The sandbox outbox: e-mails the employer tools would send (hire shortlists, listing notices).
// Nothing leaves the sandbox; GET /sandbox/v1/outbox shows them.
// Requirements: MCP-TOOL-12, MCP-TOOL-13; decisions D-32.

import type { CoreContext } from '../context.js';
import { byTimeThenId, TenantOrder } from '../mergeOrder.js';

export type OutboxKind = 'hire_shortlist' | 'listing_published' | 'listing_review' | 'listing_rejected';

export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  body: string;
  kind: OutboxKind;
  createdAt: string;
  data: Record<string, unknown>;
}

const before = byTimeThenId<OutboxMessage>(
  (m) => m.createdAt,
  (m) => m.id,
);

export class Outbox {
  /** By the tenant whose call sent them; those of no tenant's call (a whole snapshot's global part) under ''. */
  private messages = new TenantOrder<OutboxMessage>(before);

  constructor(private readonly ctx: Pick<CoreContext, 'ids' | 'clock'>) {}

  /** Sends a message for a call of `tenantId` (its id drawn on the tenant's stream, D-147). */
  send(tenantId: string, input: Omit<OutboxMessage, 'id' | 'createdAt'>): OutboxMessage {
    const msg: OutboxMessage = { id: this.ctx.ids.nextOf(tenantId, 'msg'), createdAt: this.ctx.clock.iso(), ...input };
    this.messages.add(tenantId, msg);
    return msg;
  }

  /** Oldest first; optionally only those sent to one address. */
  list(to?: string): OutboxMessage[] {
    const every = this.messages.overall();
    const all = to ? every.filter((m) => m.to.toLowerCase() === to.toLowerCase()) : every;
    return all.map((m) => structuredClone(m));
  }

  /** Every message, oldest first, read only (the control API pages through it). */
  ordered(): readonly OutboxMessage[] {
    return this.messages.overall();
  }

  clear(): void {
    this.messages.clear();
  }

  /** The messages of no tenant's call (global in a snapshot, D-137). */
  exportState(): OutboxMessage[] {
    return structuredClone([...this.messages.of('')]);
  }

  importState(state: readonly OutboxMessage[]): void {
    this.clear();
    this.messages.put('', structuredClone([...state]));
  }

  /** The messages a tenant's calls sent, oldest first (D-147). */
  exportTenant(tenantId: string): OutboxMessage[] {
    return structuredClone([...this.messages.of(tenantId)]);
  }

  importTenant(tenantId: string, state: readonly OutboxMessage[]): void {
    this.messages.put(tenantId, structuredClone([...state]));
  }

  forgetTenant(tenantId: string): void {
    this.messages.drop(tenantId);
  }
}
