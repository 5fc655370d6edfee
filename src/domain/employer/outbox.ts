// The sandbox outbox: e-mails the employer tools would send (hire shortlists, listing notices).
// Nothing leaves the sandbox; GET /sandbox/v1/outbox shows them.
// Requirements: MCP-TOOL-12, MCP-TOOL-13; decisions D-32.

import type { CoreContext } from '../context.js';

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

export class Outbox {
  private messages: OutboxMessage[] = [];

  constructor(private readonly ctx: Pick<CoreContext, 'ids' | 'clock'>) {}

  send(input: Omit<OutboxMessage, 'id' | 'createdAt'>): OutboxMessage {
    const msg: OutboxMessage = { id: this.ctx.ids.next('msg'), createdAt: this.ctx.clock.iso(), ...input };
    this.messages.push(msg);
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
  }

  /** Every message: they name an address, not a tenant, so they are global in a snapshot (D-136). */
  exportState(): OutboxMessage[] {
    return structuredClone(this.messages);
  }

  importState(state: readonly OutboxMessage[]): void {
    this.messages = structuredClone([...state]);
  }
}
