// The webhook outbox in a snapshot (D-137): a tenant's deliveries and its endpoints' figures as data. A
// snapshot holds no closures: a restored delivery's retry is armed again at the time it was due, and work
// that had not finished when the snapshot was taken (an attempt in flight, a first attempt still to run) is
// made again.
// Requirements: none of its own (it keeps SCR-HOOK-5's schedule across a restart); decisions D-137.

import { attempt } from './attempt.js';
import type { Delivery, DeliveryState } from './delivery.js';
import { RETRY_TIMER, type Outbox } from './outbox.js';
import type { EndpointStats } from './stats.js';

/** A tenant's webhook state in a snapshot: its deliveries and its endpoints' figures. */
export interface WebhooksTenantState {
  deliveries: DeliveryState[];
  endpoints: EndpointStats[];
}

function rearmRetry(o: Outbox, deliveryId: string, at: number): void {
  const d = o.deliveries.get(deliveryId);
  if (!d) throw new Error(`snapshot: a timer refers to delivery ${deliveryId}, which the snapshot does not hold`);
  d.cancelRetry = o.ctx.clock.of(d.tenantId).schedule(at, () => attempt(o, d, false), RETRY_TIMER, d.id);
}

function resumeRestored(o: Outbox, d: Delivery): void {
  const manual = d.inFlight && (d.status === 'delivered' || d.status === 'exhausted');
  const unfinished = d.inFlight || (d.status === 'pending' && d.attempts.length === 0);
  d.inFlight = false;
  d.retryAfterFlight = false;
  if (unfinished) o.ctx.clock.defer((x: Delivery, m: boolean) => attempt(o, x, m), d, manual);
}

export function exportWebhooksTenant(o: Outbox, tenantId: string): WebhooksTenantState {
  return { deliveries: o.deliveries.exportTenant(tenantId), endpoints: o.stats.exportTenant(tenantId) };
}

export function importWebhooksTenant(o: Outbox, tenantId: string, state: WebhooksTenantState): void {
  o.stats.importTenant(tenantId, state.endpoints);
  for (const d of o.deliveries.importTenant(tenantId, state.deliveries)) resumeRestored(o, d);
}

export function forgetWebhooksTenant(o: Outbox, tenantId: string): void {
  for (const d of o.deliveries.list({ tenantId })) d.cancelRetry?.();
  o.deliveries.forgetTenant(tenantId);
  o.stats.forgetTenant(tenantId);
}

/** The timers of a restored delivery, by label: its retry, at the time it was due. */
export const rearmWebhooks = (o: Outbox) => ({
  [RETRY_TIMER]: (deliveryId: string, at: number) => rearmRetry(o, deliveryId, at),
});
