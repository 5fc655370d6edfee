// The sandbox outbox: e-mails the employer tools would send (hire shortlists, listing notices).
// Nothing leaves the sandbox; GET /sandbox/v1/outbox shows them.
// Requirements: MCP-TOOL-12, MCP-TOOL-13; decisions D-32.

import type { CoreContext } from '../context.js';
import { byTimeThenId, insertInOrder, mergeInOrder } from '../mergeOrder.js';

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
  private messages: OutboxMessage[] = [];
  /** The tenant whose call sent each message (by message id); a message of no tenant has none. */
  private senders = new Map<string, string>();

  constructor(private readonly ctx: Pick<CoreContext, 'ids' | 'clock'>) {}

  /** Sends a message for a call of `tenantId` (its id drawn on the tenant's stream, D-143). */
  send(tenantId: string, input: Omit<OutboxMessage, 'id' | 'createdAt'>): OutboxMessage {
    const msg: OutboxMessage = { id: this.ctx.ids.nextOf(tenantId, 'msg'), createdAt: this.ctx.clock.iso(), ...input };
    insertInOrder(this.messages, msg, before);
    this.senders.set(msg.id, tenantId);
    return msg;
  }

  /** Oldest first; optionally only those sent to one address. */
  list(to?: string): OutboxMessage[] {
    const all = to ? this.messages.filter((m) => m.to.toLowerCase() === to.toLowerCase()) : this.messages;
    return all.map((m) => structuredClone(m));
  }

  /** Every message, oldest first, read only (the control API pages through it). */
  ordered(): readonly OutboxMessage[] {
    return this.messages;
  }

  clear(): void {
    this.messages = [];
    this.senders.clear();
  }

  /** The messages of no tenant's call (global in a snapshot, D-137). */
  exportState(): OutboxMessage[] {
    return structuredClone(this.messages.filter((m) => !this.senders.has(m.id)));
  }

  importState(state: readonly OutboxMessage[]): void {
    this.clear();
    this.messages = structuredClone([...state]);
  }

  /** The messages a tenant's calls sent, oldest first (D-143). */
  exportTenant(tenantId: string): OutboxMessage[] {
    return structuredClone(this.messages.filter((m) => this.senders.get(m.id) === tenantId));
  }

  importTenant(tenantId: string, state: readonly OutboxMessage[]): void {
    this.forgetTenant(tenantId);
    for (const m of state) this.senders.set(m.id, tenantId);
    this.messages = mergeInOrder(this.messages, structuredClone([...state]), before);
  }

  forgetTenant(tenantId: string): void {
    if (![...this.senders.values()].includes(tenantId)) return;
    this.messages = this.messages.filter((m) => {
      if (this.senders.get(m.id) !== tenantId) return true;
      this.senders.delete(m.id);
      return false;
    });
  }
}
