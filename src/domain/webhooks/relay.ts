// The listener port of the webhook outbox: while a developer's listener is connected for a tenant,
// each attempt of that tenant's deliveries is handed to it instead of being posted to the tenant's
// webhookUrl, and the answer it reports back is recorded as the attempt's answer (a 2xx succeeds,
// anything else fails and is retried on the schedule). The transport lives in the sandbox adapter.
// Requirements: SCR-HOOK-3, POL-HOOK-1; decisions D-09, D-119.

import type { SendOutcome } from './sender.js';

/** The `url` recorded for an attempt handed to the tenant's listeners. */
export const LISTENER_URL = 'listener:';

/** One attempt as the listener receives it: exactly what would have been posted, and where from. */
export interface RelayedAttempt {
  /** `<deliveryId>.<attempt number>`: what the listener's answer names. */
  attemptId: string;
  deliveryId: string;
  attempt: number;
  tenantId: string;
  requestId: string;
  event: string;
  /** The exact headers the sandbox would send, signatures untouched. */
  headers: Record<string, string>;
  /** The exact body (UTF-8 text; its bytes are what the signature covers). */
  body: string;
}

export interface WebhookRelay {
  /**
   * True when the relay's state changes only through a shared sandbox's recorded steps, so every instance
   * replaying the log routes each attempt the same way (D-112); a relay fed by one process's connections is not.
   */
  readonly replicated?: boolean;
  /** True while at least one listener of the tenant is connected. */
  connected(tenantId: string): boolean;
  /** Hands the attempt to every listener of the tenant; settles with the answer that counts, or a failure at the timeout. */
  forward(attempt: RelayedAttempt, timeoutMs: number): Promise<SendOutcome>;
  /** The answer to come of an attempt restored from a snapshot as awaiting one (D-137); absent or null: none. */
  resume?(attemptId: string): Promise<SendOutcome> | null;
}

/**
 * An attempt's id, `<deliveryId>.<attempt number>`: what a listener's answer names, and the key a store that records
 * attempts awaits the answer by (D-153).
 */
export const attemptIdOf = (deliveryId: string, attempt: number): string => `${deliveryId}.${attempt}`;

/** The delivery a listener attempt's id names (its part before the attempt number). */
export const deliveryOfAttempt = (attemptId: string): string => attemptId.slice(0, attemptId.lastIndexOf('.'));
