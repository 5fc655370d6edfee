// The webhook outbox: signed deliveries of screening events, with retries on the sandbox clock.
// The tenant's webhookUrl and secret are read when each attempt is made, so fixing a broken URL
// takes effect at the next retry. Advancing the sandbox clock fires every retry that came due.

import type { CoreContext } from '../context.js';
import { invalid, notFound } from '../../errors/errors.js';
import { limits } from '../plans.js';
import type { Tenant } from '../tenants.js';
import { type Attempt, type Delivery, DeliveryStore, type WebhookEvent } from './delivery.js';
import { postWebhook } from './sender.js';
import { SIGNATURE_HEADER, sign } from './signer.js';

export const USER_AGENT = 'RemoteJobs-Screening-Webhooks/1.0 (sandbox)';
export const DELIVERY_HEADER = 'X-Screening-Delivery';

export interface EnqueueInput {
  tenantId: string;
  requestId: string;
  event: WebhookEvent;
  result: object;
}

/** Called each time a delivery reaches `delivered` or `exhausted`. */
export type OutcomeListener = (d: Delivery) => void;

export function createWebhooks(ctx: CoreContext) {
  const store = new DeliveryStore();
  const listeners = new Set<OutcomeListener>();
  const { timeoutMs, retryScheduleSeconds: schedule } = limits.policy.webhook;
  // bumped by reset(): answers to attempts started before it are dropped
  let generation = 0;

  const tenantOf = (id: string): Tenant | null => {
    try {
      return ctx.tenants.get(id);
    } catch {
      return null;
    }
  };

  function bodyOf(d: Delivery, now: number): string {
    return JSON.stringify({ requestId: d.requestId, tenantId: d.tenantId, event: d.event, result: d.result, deliveredAt: ctx.clock.iso(now) });
  }

  function signatureOf(secret: string, body: string): string {
    // planted bug: a secret the tenant does not have
    return sign(ctx.faults.bug('wrong_webhook_secret') ? `${secret}-wrong` : secret, body);
  }

  function notify(d: Delivery): void {
    for (const l of listeners) {
      try {
        l(d);
      } catch (err) {
        console.error('webhook outcome listener failed', err);
      }
    }
  }

  function record(d: Delivery, a: Attempt): void {
    d.attempts.push(a);
    if (a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300) {
      const first = d.status !== 'delivered';
      d.status = 'delivered';
      if (first) notify(d);
      return;
    }
    // a failed redelivery does not undo an earlier success, nor restart an exhausted schedule
    if (d.status === 'delivered' || d.status === 'exhausted') return;
    d.failures++;
    if (d.failures <= schedule.length) {
      d.status = 'retrying';
      d.nextAttemptAt = ctx.clock.now() + schedule[d.failures - 1] * 1000;
      d.cancelRetry = ctx.clock.schedule(d.nextAttemptAt, () => attempt(d));
    } else {
      d.status = 'exhausted';
      notify(d);
    }
  }

  function attempt(d: Delivery): void {
    if (d.inFlight) return;
    d.cancelRetry?.();
    d.cancelRetry = null;
    d.nextAttemptAt = null;
    const n = d.attempts.length + 1;
    const now = ctx.clock.now();
    const at = ctx.clock.iso(now);
    const tenant = tenantOf(d.tenantId);
    d.body = bodyOf(d, now);
    d.signature = tenant ? signatureOf(tenant.webhookSecret, d.body) : '';
    d.url = tenant?.webhookUrl ?? null;
    const injected = ctx.faults.takeWebhookFailure();
    if (injected !== null) {
      record(d, { attempt: n, at, statusCode: injected, error: `receiver answered ${injected} (injected by a sandbox chaos rule; nothing was sent)`, durationMs: 0 });
      return;
    }
    if (!d.url) {
      record(d, { attempt: n, at, statusCode: null, error: 'the tenant has no webhookUrl configured', durationMs: 0 });
      return;
    }
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: d.signature,
      [DELIVERY_HEADER]: d.id,
      'X-Screening-Event': d.event,
    };
    const gen = generation;
    d.inFlight = true;
    void postWebhook(d.url, headers, d.body, timeoutMs).then((out) => {
      if (gen !== generation) return;
      d.inFlight = false;
      record(d, { attempt: n, at, ...out });
    });
  }

  return {
    /** Creates a delivery and makes its first attempt right after the current task. */
    enqueue(input: EnqueueInput): Delivery {
      const now = ctx.clock.now();
      const tenant = tenantOf(input.tenantId);
      const d: Delivery = {
        id: ctx.ids.next('whd'),
        ...input,
        url: tenant?.webhookUrl ?? null,
        body: '',
        signature: '',
        status: 'pending',
        attempts: [],
        failures: 0,
        nextAttemptAt: null,
        createdAt: now,
        inFlight: false,
        cancelRetry: null,
      };
      d.body = bodyOf(d, now);
      d.signature = tenant ? signatureOf(tenant.webhookSecret, d.body) : '';
      store.add(d);
      const gen = generation;
      setImmediate(() => {
        // a redelivery may already have made the first attempt
        if (gen === generation && d.attempts.length === 0 && !d.inFlight) attempt(d);
      });
      return d;
    },

    /** A new attempt now, whatever the delivery's status (the console's "redeliver"). */
    redeliver(id: string): Delivery {
      const d = store.get(id);
      if (!d) throw notFound(`no webhook delivery ${id}`);
      if (d.inFlight) throw invalid(`delivery ${id} has an attempt in flight; redeliver after it completes`, 'id');
      attempt(d);
      return d;
    },

    get(id: string): Delivery | undefined {
      return store.get(id);
    },

    list(filter: { tenantId?: string; requestId?: string } = {}): Delivery[] {
      return store.list(filter);
    },

    onOutcome(listener: OutcomeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    reset(): void {
      generation++;
      for (const d of store.all()) d.cancelRetry?.();
      store.clear();
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhooks>;
export { deliveryView, type Delivery, type DeliveryView, type WebhookEvent } from './delivery.js';
export { sign, verify, SIGNATURE_HEADER } from './signer.js';
