// The webhook outbox's shared state: what the attempt, the retry schedule, the outcome fan-out, the person's
// actions and the read side of createWebhooks (index.ts) all work on, and the headers every attempt carries.
// The tenant's webhookUrl and secret are read when each attempt is made, so fixing a broken URL takes
// effect at the next retry; while a tenant's listener is connected its attempts go there instead (D-119).
// Requirements: SCR-HOOK-8, POL-HOOK-2; decisions D-10, D-100, D-102, D-112, D-119.

import type { CoreContext } from '../context.js';
import { limits } from '../plans.js';
import type { Tenant } from '../tenants.js';
import type { DeliveryStore, WebhookEvent } from './delivery.js';
import type { OutcomeFanOut } from './outcomes.js';
import type { WebhookRelay } from './relay.js';
import { postWebhook, type SendWebhook } from './sender.js';
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

/** The state one createWebhooks works on; every piece of the outbox is handed it. */
export interface Outbox {
  readonly ctx: CoreContext;
  /** The deliveries with their attempts. */
  readonly deliveries: DeliveryStore;
  /** Makes one attempt: the store's own when it replays calls across instances (D-112), else an HTTP POST. */
  readonly send: SendWebhook;
  /** Attempts and success rate per endpoint (tenant + URL). */
  readonly stats: EndpointStatsBook;
  /** Who is told when a delivery reaches `delivered` or `exhausted`. */
  readonly outcomes: OutcomeFanOut;
  readonly timeoutMs: number;
  /** Seconds from a failed attempt to the next one, one entry per retry (D-09). */
  readonly schedule: readonly number[];
  /** Bumped by reset(): answers to attempts started before it are dropped. */
  generation: number;
  /** The developers' listeners (D-119); a store that must see every attempt (D-112) takes none. */
  relay: WebhookRelay | null;
}

export function openOutbox(ctx: CoreContext, outcomes: OutcomeFanOut): Outbox {
  const { timeoutMs, retryScheduleSeconds } = limits.policy.webhook;
  return {
    ctx,
    deliveries: ctx.store.deliveries,
    send: ctx.store.sendWebhook ?? postWebhook,
    stats: new EndpointStatsBook(),
    outcomes,
    timeoutMs,
    schedule: retryScheduleSeconds,
    generation: 0,
    relay: null,
  };
}

/** Whether the tenant's attempts go to a connected listener instead of its webhookUrl (D-119). */
export function viaListener(o: Outbox, tenantId: string): boolean {
  return o.relay !== null && o.relay.connected(tenantId);
}

/** The tenant, or null once it is gone (its deliveries then have no URL and no secret). */
export function tenantOf(o: Outbox, id: string): Tenant | null {
  try {
    return o.ctx.tenants.get(id);
  } catch {
    return null;
  }
}
