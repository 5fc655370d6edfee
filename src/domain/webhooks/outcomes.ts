// The outcome fan-out of the webhook outbox: whoever registered is told once when a delivery reaches
// `delivered` (its first 2xx) and once when it is `exhausted`; the screening pipeline moves a request to
// `delivered` or `failed` from here. A listener that throws is logged and the others are still told.
// Requirements: POL-HOOK-3, POL-HOOK-5; decisions D-02.

import type { Delivery } from './delivery.js';

/** Called each time a delivery reaches `delivered` or `exhausted`. */
export type OutcomeListener = (d: Delivery) => void;

export class OutcomeFanOut {
  private readonly listeners = new Set<OutcomeListener>();

  /** Registers a listener; the function returned removes it. */
  add(listener: OutcomeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(d: Delivery): void {
    for (const l of this.listeners) {
      try {
        l(d);
      } catch (err) {
        console.error('webhook outcome listener failed', err);
      }
    }
  }
}
