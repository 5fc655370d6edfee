// What starts attempts: a new delivery (its first attempt right after the current task), a person's
// "send test event" (a sample `screening.scored` marked X-Screening-Test, retried like any other, seen by
// no request) and a person's redelivery (one extra attempt beside the automatic schedule, never a change
// to it). Each delivery is signed like every attempt, with the rotation's second signature when one is open.
// Requirements: SCR-HOOK-1, SCR-HOOK-2, SCR-HOOK-3, SCR-HOOK-7, SCR-HOOK-8, POL-HOOK-2, POL-HOOK-5; decisions
// D-09, D-10, D-101, D-102, D-119.

import { invalid, notFound } from '../../errors/errors.js';
import { copyData, freezeData } from '../copy.js';
import { attempt, bodyOf, signatureOf } from './attempt.js';
import type { Delivery } from './delivery.js';
import { tenantOf, viaListener, type EnqueueInput, type Outbox } from './outbox.js';

function firstAttempt(o: Outbox, d: Delivery, gen: number): void {
  // a redelivery may already have made the first attempt
  if (gen === o.generation && d.attempts.length === 0 && !d.inFlight) attempt(o, d, false);
}

/** Creates a delivery and makes its first attempt right after the current task. */
export function createDelivery(o: Outbox, input: EnqueueInput, test: boolean): Delivery {
  const { ctx } = o;
  const now = ctx.clock.of(input.tenantId).now();
  const tenant = tenantOf(o, input.tenantId);
  const d: Delivery = {
    id: ctx.ids.nextOf(input.tenantId, 'whd'),
    ...input,
    // never changed once made: a frozen copy, which an export shares (D-158)
    result: freezeData(copyData(input.result)),
    url: tenant?.webhookUrl ?? null,
    body: '',
    signature: '',
    status: 'pending',
    attempts: [],
    failures: 0,
    nextAttemptAt: null,
    createdAt: now,
    inFlight: false,
    flight: null,
    cancelRetry: null,
    retryAfterFlight: false,
    test,
  };
  d.body = bodyOf(o, d, now);
  d.signature = tenant ? signatureOf(o, tenant.webhookSecret, d.body) : '';
  o.deliveries.add(d);
  ctx.clock.defer((gen: number, delivery: Delivery) => firstAttempt(o, delivery, gen), o.generation, d);
  return d;
}

/** "Send test event" (D-102): refused when the tenant's events have nowhere to go. */
export function sendTestEvent(o: Outbox, tenantId: string, result: object): Delivery {
  const { ctx } = o;
  const tenant = ctx.tenants.get(tenantId);
  if (!tenant.webhookUrl && !viaListener(o, tenantId))
    throw invalid(
      `tenant ${tenantId} has no webhookUrl and no listener is connected; set one (or connect a listener) before sending a test event`,
      'tenantId',
    );
  return createDelivery(
    o,
    {
      tenantId,
      requestId: ctx.ids.nextOf(tenantId, 'scr').replace(/^scr_/, 'scr_test_'),
      event: 'screening.scored',
      result,
    },
    true,
  );
}

/** One extra attempt now, whatever the delivery's status; the automatic schedule is left as it is. */
export function redeliver(o: Outbox, id: string): Delivery {
  const d = o.deliveries.get(id);
  if (!d) throw notFound(`no webhook delivery ${id}`);
  if (d.inFlight) throw invalid(`delivery ${id} has an attempt in flight; redeliver after it completes`, 'id');
  attempt(o, d, true);
  return d;
}
