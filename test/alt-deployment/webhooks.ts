// Webhook deliveries: pretty-printed bodies signed with upper-case hex HMAC-SHA256, retried 1 s, 3 s and 10 s later.
import { createHmac } from 'node:crypto';
import type { Timers } from './timers.js';

export const RETRY_DELAYS_MS = [1000, 3000, 10_000];
export const ATTEMPT_TIMEOUT_MS = 5000;

export interface Delivery {
  url: string;
  secret: string;
  event: 'screening.scored' | 'screening.review_decided';
  body: Record<string, unknown>;
}

export interface SigningFaults {
  wrongSecret?: boolean;
  compactSignature?: boolean;
  /** The header carries the bare hex digest. */
  noPrefix?: boolean;
  /** Every delivery is signed with this secret, whoever's it is. */
  secretOverride?: string;
}

export const sign = (secret: string, bytes: string) =>
  'sha256=' + createHmac('sha256', secret).update(bytes, 'utf8').digest('hex').toUpperCase();

export class Deliverer {
  constructor(
    private readonly timers: Timers,
    private readonly faults: SigningFaults,
  ) {}

  /** Sends `d`, retrying on failure; resolves true once a 2xx acknowledged it, false when retries ran out. */
  send(d: Delivery): Promise<boolean> {
    return new Promise((resolve) => {
      const attempt = async (n: number) => {
        if (await this.attempt(d)) return resolve(true);
        if (n >= RETRY_DELAYS_MS.length || this.timers.stopped) return resolve(false);
        this.timers.after(RETRY_DELAYS_MS[n], () => void attempt(n + 1));
      };
      void attempt(0);
    });
  }

  private async attempt(d: Delivery): Promise<boolean> {
    const body = { ...d.body, deliveredAt: new Date().toISOString() };
    const bytes = JSON.stringify(body, null, 2);
    const signed = this.faults.compactSignature ? JSON.stringify(body) : bytes;
    const secret = this.faults.secretOverride ?? (this.faults.wrongSecret ? `${d.secret}-rotated` : d.secret);
    const signature = this.faults.noPrefix ? sign(secret, signed).slice('sha256='.length) : sign(secret, signed);
    try {
      const res = await fetch(d.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-screening-signature': signature,
          'x-screening-event': d.event,
        },
        body: bytes,
        redirect: 'manual',
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.status >= 200 && res.status < 300;
    } catch {
      return false;
    }
  }
}
