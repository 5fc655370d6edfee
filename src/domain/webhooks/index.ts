// The webhook outbox: signed deliveries of screening events, with retries on the sandbox clock.
// The tenant's webhookUrl and secret are read when each attempt is made, so fixing a broken URL
// takes effect at the next retry. Advancing the sandbox clock fires every retry that came due.
// A person's redelivery is one extra attempt beside the automatic schedule, never a change to it;
// during a secret rotation each attempt carries a second signature made with the previous secret.
// Requirements: SCR-HOOK-1, SCR-HOOK-2, SCR-HOOK-3, SCR-HOOK-4, SCR-HOOK-5, SCR-HOOK-6, SCR-HOOK-7, SCR-HOOK-8,
// POL-HOOK-1, POL-HOOK-2, POL-HOOK-3, POL-HOOK-4, POL-HOOK-5; decisions D-09, D-10, D-100, D-101, D-119.
// While a tenant's listener is connected, its attempts go to the listener instead (relay.ts, D-119).

import type { CoreContext } from '../context.js';
import { invalid, notFound } from '../../errors/errors.js';
import { limits } from '../plans.js';
import type { Tenant } from '../tenants.js';
import type { Attempt, Delivery, DeliveryState, WebhookEvent } from './delivery.js';
import type { EndpointStats } from './stats.js';
import { LISTENER_URL, type WebhookRelay } from './relay.js';
import { postWebhook } from './sender.js';
import { PREVIOUS_SIGNATURE_HEADER, SIGNATURE_HEADER, sign } from './signer.js';
import { EndpointStatsBook } from './stats.js';

export const USER_AGENT = 'RemoteJobs-Screening-Webhooks/1.0 (sandbox)';
export const DELIVERY_HEADER = 'X-Screening-Delivery';
/** Present (value `true`) only on deliveries made by "send test event" (D-102). */
export const TEST_HEADER = 'X-Screening-Test';
/** Timer label of a webhook retry on the sandbox clock. */
export const RETRY_TIMER = 'webhook retry';

export interface EnqueueInput {
  tenantId: string;
  requestId: string;
  event: WebhookEvent;
  result: object;
}

/** Called each time a delivery reaches `delivered` or `exhausted`. */
export type OutcomeListener = (d: Delivery) => void;

export function createWebhooks(ctx: CoreContext) {
  const store = ctx.store.deliveries;
  const send = ctx.store.sendWebhook ?? postWebhook;
  const listeners = new Set<OutcomeListener>();
  const stats = new EndpointStatsBook();
  const { timeoutMs, retryScheduleSeconds: schedule } = limits.policy.webhook;
  // bumped by reset(): answers to attempts started before it are dropped
  let generation = 0;
  // the developers' listeners (D-119); a store that must see every attempt (D-112) takes none
  let relay: WebhookRelay | null = null;
  const viaListener = (tenantId: string) => relay !== null && relay.connected(tenantId);

  const tenantOf = (id: string): Tenant | null => {
    try {
      return ctx.tenants.get(id);
    } catch {
      return null;
    }
  };

  function bodyOf(d: Delivery, now: number): string {
    return JSON.stringify({
      requestId: d.requestId,
      tenantId: d.tenantId,
      event: d.event,
      result: d.result,
      deliveredAt: ctx.clock.iso(now),
    });
  }

  function signatureOf(secret: string, body: string): string {
    return sign(ctx.faults.planted.signingSecret(secret), body);
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

  function scheduleNext(d: Delivery): void {
    // on the tenant's clock: advancing it fires its retries, and nobody else's (D-120)
    const clock = ctx.clock.of(d.tenantId);
    d.nextAttemptAt = clock.now() + schedule[d.failures - 1] * 1000;
    d.cancelRetry = clock.schedule(d.nextAttemptAt, () => attempt(d, false), RETRY_TIMER, d.id);
  }

  /** `sent`: the attempt reached the network (not a chaos rule, not a missing URL), so it counts for the endpoint. */
  function record(d: Delivery, a: Attempt, sent = false): void {
    d.attempts.push(a);
    if (sent && a.url) stats.record(d.tenantId, a.url, a.statusCode, a.at);
    if (a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300) {
      const first = d.status !== 'delivered';
      d.status = 'delivered';
      // delivered: a retry still scheduled has nothing left to do
      d.cancelRetry?.();
      d.cancelRetry = null;
      d.nextAttemptAt = null;
      if (first) notify(d);
      return;
    }
    // a failed redelivery changes nothing: not the schedule, not an earlier success, not an exhausted delivery
    if (a.manual || d.status === 'delivered' || d.status === 'exhausted') return;
    d.failures++;
    if (d.failures <= schedule.length) {
      d.status = 'retrying';
      scheduleNext(d);
    } else {
      d.status = 'exhausted';
      notify(d);
    }
  }

  function headersOf(d: Delivery, previousSignature: string | null): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: d.signature,
      [DELIVERY_HEADER]: d.id,
      'X-Screening-Event': d.event,
    };
    if (previousSignature) headers[PREVIOUS_SIGNATURE_HEADER] = previousSignature;
    if (d.test) headers[TEST_HEADER] = 'true';
    return headers;
  }

  function attempt(d: Delivery, manual: boolean): void {
    if (d.inFlight) {
      if (!manual) d.retryAfterFlight = true;
      return;
    }
    if (!manual) {
      d.cancelRetry?.();
      d.cancelRetry = null;
      d.nextAttemptAt = null;
    }
    const n = d.attempts.length + 1;
    const now = ctx.clock.of(d.tenantId).now();
    const at = ctx.clock.iso(now);
    const tenant = tenantOf(d.tenantId);
    d.body = bodyOf(d, now);
    d.signature = tenant ? signatureOf(tenant.webhookSecret, d.body) : '';
    const previous = tenant ? ctx.tenants.previousSecretOf(tenant) : null;
    const previousSignature = previous ? signatureOf(previous, d.body) : null;
    const relayed = viaListener(d.tenantId);
    d.url = relayed ? LISTENER_URL : (tenant?.webhookUrl ?? null);
    const requestHeaders = headersOf(d, previousSignature);
    const base = {
      attempt: n,
      at,
      manual,
      url: d.url,
      requestHeaders,
      body: d.body,
      signature: d.signature,
      responseBody: '',
      responseTruncated: false,
      durationMs: 0,
    };
    const injected = ctx.faults.takeWebhookFailure(d.tenantId);
    if (injected !== null) {
      record(d, {
        ...base,
        statusCode: injected,
        error: `receiver answered ${injected} (injected by a sandbox chaos rule; nothing was sent)`,
      });
      return;
    }
    if (!d.url) {
      record(d, { ...base, statusCode: null, error: 'the tenant has no webhookUrl configured' });
      return;
    }
    const gen = generation;
    d.inFlight = true;
    const sent = relayed
      ? relay!.forward(
          {
            attemptId: `${d.id}.${n}`,
            deliveryId: d.id,
            attempt: n,
            tenantId: d.tenantId,
            requestId: d.requestId,
            event: d.event,
            headers: requestHeaders,
            body: d.body,
          },
          timeoutMs,
        )
      : send(d.url, requestHeaders, d.body, timeoutMs);
    void sent.then((out) => {
      if (gen !== generation) return;
      d.inFlight = false;
      record(d, { ...base, ...out }, true);
      if (d.retryAfterFlight) {
        d.retryAfterFlight = false;
        if (d.status === 'retrying') attempt(d, false);
      }
    });
  }

  function firstAttempt(d: Delivery, gen: number): void {
    // a redelivery may already have made the first attempt
    if (gen === generation && d.attempts.length === 0 && !d.inFlight) attempt(d, false);
  }

  // a snapshot holds no closures (D-136): a restored delivery's retry is armed again, and work that had not
  // finished when the snapshot was taken (an attempt in flight, a first attempt still to run) is made again
  function rearmRetry(deliveryId: string, at: number): void {
    const d = store.get(deliveryId);
    if (!d) throw new Error(`snapshot: a timer refers to delivery ${deliveryId}, which the snapshot does not hold`);
    d.cancelRetry = ctx.clock.of(d.tenantId).schedule(at, () => attempt(d, false), RETRY_TIMER, d.id);
  }

  function resumeRestored(d: Delivery): void {
    const manual = d.inFlight && (d.status === 'delivered' || d.status === 'exhausted');
    const unfinished = d.inFlight || (d.status === 'pending' && d.attempts.length === 0);
    d.inFlight = false;
    d.retryAfterFlight = false;
    if (unfinished) ctx.clock.defer((x: Delivery, m: boolean) => attempt(x, m), d, manual);
  }

  function create(input: EnqueueInput, test: boolean): Delivery {
    const now = ctx.clock.of(input.tenantId).now();
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
      retryAfterFlight: false,
      test,
    };
    d.body = bodyOf(d, now);
    d.signature = tenant ? signatureOf(tenant.webhookSecret, d.body) : '';
    store.add(d);
    ctx.clock.defer(firstAttempt, d, generation);
    return d;
  }

  return {
    /** Creates a delivery and makes its first attempt right after the current task. */
    enqueue(input: EnqueueInput): Delivery {
      return create(input, false);
    },

    /**
     * "Send test event": a `screening.scored` delivery with a sample result, signed like any other,
     * marked with X-Screening-Test: true, retried on the same schedule, and seen by no request.
     */
    sendTest(tenantId: string, result: object): Delivery {
      const tenant = ctx.tenants.get(tenantId);
      if (!tenant.webhookUrl && !viaListener(tenantId))
        throw invalid(
          `tenant ${tenantId} has no webhookUrl and no listener is connected; set one (or connect a listener) before sending a test event`,
          'tenantId',
        );
      return create(
        { tenantId, requestId: ctx.ids.next('scr').replace(/^scr_/, 'scr_test_'), event: 'screening.scored', result },
        true,
      );
    },

    /** Whether the tenant's events have somewhere to go now: a webhookUrl, or a connected listener (D-119). */
    hasDestination(tenantId: string): boolean {
      return !!tenantOf(tenantId)?.webhookUrl || viaListener(tenantId);
    },
    /** One extra attempt now, whatever the delivery's status; the automatic schedule is left as it is. */
    redeliver(id: string): Delivery {
      const d = store.get(id);
      if (!d) throw notFound(`no webhook delivery ${id}`);
      if (d.inFlight) throw invalid(`delivery ${id} has an attempt in flight; redeliver after it completes`, 'id');
      attempt(d, true);
      return d;
    },

    /** Creation order, read only (keyset paging in the control API). */
    ordered(filter: { tenantId?: string; requestId?: string } = {}): readonly Delivery[] {
      return store.ordered(filter);
    },

    /** Attempts and success rate per endpoint (tenant + URL), most recently used first. */
    endpoints(tenantId?: string) {
      return stats.list(tenantId);
    },

    get(id: string): Delivery | undefined {
      return store.get(id);
    },

    list(filter: { tenantId?: string; requestId?: string } = {}): Delivery[] {
      return store.list(filter);
    },

    /**
     * Connects the developers' listeners (D-119). False when the store makes the attempts itself (a shared
     * sandbox, D-112): every instance must make the same attempt, and a listener is connected to one of them.
     */
    useRelay(r: WebhookRelay): boolean {
      if (ctx.store.sendWebhook) return false;
      relay = r;
      return true;
    },
    exportTenant: (tenantId: string): WebhooksTenantState => ({
      deliveries: store.exportTenant(tenantId),
      endpoints: stats.exportTenant(tenantId),
    }),
    importTenant(tenantId: string, state: WebhooksTenantState): void {
      stats.importTenant(tenantId, state.endpoints);
      for (const d of store.importTenant(tenantId, state.deliveries)) resumeRestored(d);
    },
    forgetTenant(tenantId: string): void {
      for (const d of store.list({ tenantId })) d.cancelRetry?.();
      store.forgetTenant(tenantId);
      stats.forgetTenant(tenantId);
    },
    /** The timers of a restored delivery, by label: its retry, at the time it was due (D-136). */
    rearm: {
      [RETRY_TIMER]: (deliveryId: string, at: number) => rearmRetry(deliveryId, at),
    },
    onOutcome(listener: OutcomeListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    reset(): void {
      generation++;
      for (const d of store.all()) d.cancelRetry?.();
      store.clear();
      stats.clear();
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhooks>;

/** A tenant's webhook state in a snapshot: its deliveries and its endpoints' figures (D-136). */
export interface WebhooksTenantState {
  deliveries: DeliveryState[];
  endpoints: EndpointStats[];
}
export { deliveryView, type Delivery, type DeliveryView, type WebhookEvent } from './delivery.js';
export { sign, verify, verifyAny, SIGNATURE_HEADER, PREVIOUS_SIGNATURE_HEADER } from './signer.js';
