// The webhook outbox in a snapshot (D-137): a tenant's deliveries and its endpoints' figures as data. A
// snapshot holds no closures: a restored delivery's retry is armed again at the time it was due; an attempt
// in flight is data (what it sent, and the store's key of its answer), so when the store still awaits that
// answer (a shared sandbox, D-112/D-138) the restored attempt is finished by it, exactly as it would have
// been without the snapshot; otherwise (the in-memory default: the answer was a promise of the exporting
// process) it is made again, like a first attempt still to run.
// Requirements: none of its own (it keeps SCR-HOOK-5's schedule across a restart); decisions D-137.

import { attempt, awaitAnswer } from './attempt.js';
import type { Delivery, DeliveryState, Flight } from './delivery.js';
import { attemptIdOf, LISTENER_URL } from './relay.js';
import type { SendOutcome } from './sender.js';
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

/** The answer still awaited for a restored attempt in flight: the store's (by key) or the listeners' (by attempt id). */
function answerOf(o: Outbox, d: Delivery, flight: Flight): Promise<SendOutcome> | null {
  // a number: a key of a snapshot written before attempts were awaited by their id (D-153)
  if (flight.key !== null) return o.ctx.store.resumeWebhook?.(String(flight.key)) ?? null;
  if (flight.start.url === LISTENER_URL) return o.relay?.resume?.(attemptIdOf(d.id, flight.start.attempt)) ?? null;
  return null;
}

function resumeRestored(o: Outbox, d: Delivery): void {
  const answer = d.inFlight && d.flight ? answerOf(o, d, d.flight) : null;
  if (answer) {
    awaitAnswer(o, d, answer);
    return;
  }
  const manual = d.inFlight && (d.status === 'delivered' || d.status === 'exhausted');
  const unfinished = d.inFlight || (d.status === 'pending' && d.attempts.length === 0);
  d.inFlight = false;
  d.flight = null;
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
