// The webhook outbox: signed deliveries of screening events, with retries on the sandbox clock.
// The tenant's webhookUrl and secret are read when each attempt is made, so fixing a broken URL
// takes effect at the next retry. Advancing the sandbox clock fires every retry that came due.
// A person's redelivery is one extra attempt beside the automatic schedule, never a change to it;
// during a secret rotation each attempt carries a second signature made with the previous secret.
// Requirements: SCR-HOOK-1, SCR-HOOK-2, SCR-HOOK-3, SCR-HOOK-4, SCR-HOOK-5, SCR-HOOK-6, SCR-HOOK-7, SCR-HOOK-8,
// POL-HOOK-1, POL-HOOK-2, POL-HOOK-3, POL-HOOK-4, POL-HOOK-5; decisions D-09, D-10, D-100, D-101, D-119.
// While a tenant's listener is connected, its attempts go to the listener instead (relay.ts, D-119).
// The pieces, each readable alone: outbox.ts (the shared state), attempt.ts (one attempt), retries.ts (the
// retry schedule), outcomes.ts (the outcome fan-out), actions.ts (enqueue, test event, redelivery), read.ts
// (the read side), snapshot.ts (the outbox as data); service.ts says what the whole offers.

import type { CoreContext } from '../context.js';
import { createDelivery, redeliver, sendTestEvent } from './actions.js';
import { openOutbox } from './outbox.js';
import { OutcomeFanOut } from './outcomes.js';
import { webhookReader } from './read.js';
import type { WebhookService } from './service.js';
import { exportWebhooksTenant, forgetWebhooksTenant, importWebhooksTenant, rearmWebhooks } from './snapshot.js';

export function createWebhooks(ctx: CoreContext): WebhookService {
  const outbox = openOutbox(ctx, new OutcomeFanOut());

  return {
    ...webhookReader(outbox),
    inFlight: (tenantId) => outbox.deliveries.list({ tenantId }).some((d) => d.inFlight),
    enqueue: (input) => createDelivery(outbox, input, false),
    sendTest: (tenantId, result) => sendTestEvent(outbox, tenantId, result),
    redeliver: (id) => redeliver(outbox, id),
    useRelay(relay) {
      // on a store that replays calls (a shared sandbox, D-112) only a replicated relay is taken: every
      // instance must route each attempt the same way
      if (ctx.store.sendWebhook && !relay.replicated) return false;
      outbox.relay = relay;
      return true;
    },
    onOutcome: (listener) => outbox.outcomes.add(listener),
    exportTenant: (tenantId) => exportWebhooksTenant(outbox, tenantId),
    importTenant: (tenantId, state) => importWebhooksTenant(outbox, tenantId, state),
    forgetTenant: (tenantId) => forgetWebhooksTenant(outbox, tenantId),
    rearm: rearmWebhooks(outbox),
    reset(): void {
      outbox.generation++;
      for (const d of outbox.deliveries.all()) d.cancelRetry?.();
      outbox.deliveries.clear();
      outbox.stats.clear();
    },
  };
}

export type { WebhookService } from './service.js';
export { DELIVERY_HEADER, RETRY_TIMER, TEST_HEADER, USER_AGENT, type EnqueueInput } from './outbox.js';
export type { OutcomeListener } from './outcomes.js';
export { deliveryView, type Delivery, type DeliveryView, type WebhookEvent } from './delivery.js';
export { sign, verify, verifyAny, SIGNATURE_HEADER, PREVIOUS_SIGNATURE_HEADER } from './signer.js';
