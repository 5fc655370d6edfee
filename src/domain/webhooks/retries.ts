// The retry schedule of the webhook outbox: what an attempt's answer does to its delivery. A 2xx delivers
// it (and cancels a retry still scheduled); a failure schedules the next retry on the tenant's sandbox clock
// until the schedule is spent, then the delivery is exhausted. A person's redelivery changes nothing of the
// schedule, of an earlier success or of an exhausted delivery.
// Requirements: POL-HOOK-1, POL-HOOK-3; decisions D-09, D-100, D-120.

import { freezeData } from '../copy.js';
import type { Attempt, Delivery } from './delivery.js';
import { RETRY_TIMER, type Outbox } from './outbox.js';

/**
 * Records an attempt's answer and moves the delivery on. `sent`: the attempt reached the network (not a
 * chaos rule, not a missing URL), so it counts for the endpoint. `retry` makes the next automatic attempt.
 */
export function recordAttempt(o: Outbox, d: Delivery, a: Attempt, sent: boolean, retry: () => void): void {
  // an attempt never changes once made: frozen, an export shares it (D-158)
  d.attempts.push(freezeData(a));
  if (sent && a.url) o.stats.record(d.tenantId, a.url, a.statusCode, a.at);
  if (a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300) {
    const first = d.status !== 'delivered';
    d.status = 'delivered';
    // delivered: a retry still scheduled has nothing left to do
    clearScheduledRetry(d);
    if (first) o.outcomes.notify(d);
    return;
  }
  // a failed redelivery changes nothing: not the schedule, not an earlier success, not an exhausted delivery
  if (a.manual || d.status === 'delivered' || d.status === 'exhausted') return;
  d.failures++;
  if (d.failures <= o.schedule.length) {
    d.status = 'retrying';
    scheduleNext(o, d, retry);
  } else {
    d.status = 'exhausted';
    o.outcomes.notify(d);
  }
}

function scheduleNext(o: Outbox, d: Delivery, retry: () => void): void {
  // on the tenant's clock: advancing it fires its retries, and nobody else's (D-120)
  const clock = o.ctx.clock.of(d.tenantId);
  d.nextAttemptAt = clock.now() + o.schedule[d.failures - 1] * 1000;
  d.cancelRetry = clock.schedule(d.nextAttemptAt, retry, RETRY_TIMER, d.id);
}

/** An automatic attempt is about to be made: the retry it replaces is no longer due. */
export function clearScheduledRetry(d: Delivery): void {
  d.cancelRetry?.();
  d.cancelRetry = null;
  d.nextAttemptAt = null;
}
