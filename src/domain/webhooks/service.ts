// What the webhook outbox offers the rest of the sandbox: the screening pipeline enqueues deliveries and
// hears their outcomes; the control API, the console and the dashboard read them, send test events and
// redeliver; the listen adapter connects its relay. Built by createWebhooks (index.ts).
// Requirements: SCR-HOOK-1, SCR-HOOK-2, POL-HOOK-3; decisions D-09, D-102, D-112, D-119.

import type { Resettable } from '../context.js';
import type { Delivery } from './delivery.js';
import type { EnqueueInput } from './outbox.js';
import type { OutcomeListener } from './outcomes.js';
import type { WebhookReader } from './read.js';
import type { WebhookRelay } from './relay.js';
import type { WebhooksTenantState } from './snapshot.js';

export interface WebhookService extends WebhookReader, Resettable {
  /** Whether one of the tenant's deliveries has an attempt awaiting the receiver's answer. */
  inFlight(tenantId: string): boolean;
  /** Creates a delivery and makes its first attempt right after the current task. */
  enqueue(input: EnqueueInput): Delivery;
  /**
   * "Send test event": a `screening.scored` delivery with a sample result, signed like any other,
   * marked with X-Screening-Test: true, retried on the same schedule, and seen by no request.
   */
  sendTest(tenantId: string, result: object): Delivery;
  /** One extra attempt now, whatever the delivery's status; the automatic schedule is left as it is. */
  redeliver(id: string): Delivery;
  /**
   * Connects the developers' listeners (D-119). On a store that replays calls (a shared sandbox, D-112) only a
   * replicated relay is taken (D-140): every instance must route each attempt the same way.
   */
  useRelay(relay: WebhookRelay): boolean;
  /** Tells `listener` of every delivery reaching `delivered` or `exhausted`; the function returned stops it. */
  onOutcome(listener: OutcomeListener): () => void;
  /** Drops every delivery, its scheduled retry and the answers of attempts still in flight. */
  reset(): void;
  /** A tenant's deliveries and endpoint figures for a snapshot (D-137). */
  exportTenant(tenantId: string): WebhooksTenantState;
  /** Restores them; unfinished attempts are made again, retries come back through `rearm`. */
  importTenant(tenantId: string, state: WebhooksTenantState): void;
  /** Drops a tenant's deliveries, their scheduled retries and its endpoint figures. */
  forgetTenant(tenantId: string): void;
  /** The timers of a restored delivery, by label: its retry, at the time it was due. */
  readonly rearm: Record<string, (deliveryId: string, at: number) => void>;
}
