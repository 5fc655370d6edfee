// The harness's own traffic must never be mistaken for the target's behaviour: it paces calls per key
// from the X-RateLimit-* headers the target sends, honours Retry-After on a 429 and retries, so a 429
// reaches a check only when the check asked to spend a rate window (`rateProbe`). Header forms the
// documents leave open are all read: Retry-After as seconds or an HTTP-date, X-RateLimit-Reset as
// seconds until the reset or as a Unix time (seconds or milliseconds).

/** Longest single pause (a rate window is a minute in the documents). */
const MAX_PAUSE_MS = 65_000;

/** Milliseconds from `now` that a Retry-After value asks for; null when it is neither form. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) || !/[a-z]/i.test(v) ? null : Math.max(0, at - now);
}

/** Milliseconds from `now` until an X-RateLimit-Reset value; null when it is not a number. */
export function resetMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return null;
  const n = Number(value);
  if (n > 1e12) return Math.max(0, n - now); // Unix milliseconds
  if (n > 1e9) return Math.max(0, n * 1000 - now); // Unix seconds
  return Math.round(n * 1000); // seconds until the reset
}

import { maskSecret } from './http.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface KeyState {
  remaining: number | null;
  resetAt: number | null;
  /** X-RateLimit-Limit; 0 means the key has no window at all here (e.g. a tier the API refuses): nothing to wait for. */
  limit: number | null;
}

export class RateGovernor {
  private readonly keys = new Map<string, KeyState>();
  /** Pauses taken (for the run's notes), in milliseconds, in all and per masked credential. */
  pausedMs = 0;
  retries = 0;
  readonly pausedBy = new Map<string, number>();

  /** Waits, before a call with this credential, until its window has room. */
  async beforeCall(credential: string): Promise<void> {
    const s = this.keys.get(credential);
    if (!s || s.remaining === null || s.remaining > 0 || s.resetAt === null || s.limit === 0) return;
    const wait = Math.min(MAX_PAUSE_MS, s.resetAt - Date.now());
    if (wait > 0) {
      const who = maskSecret(credential);
      this.pausedBy.set(who, (this.pausedBy.get(who) ?? 0) + wait);
      await this.pause(wait);
    }
    s.remaining = null;
  }

  /** Calls seen per masked credential (for the run's notes). */
  readonly calls = new Map<string, number>();

  /** Learns the window from a response's headers. */
  observe(credential: string, status: number, headers: Record<string, string>): void {
    const who = maskSecret(credential);
    this.calls.set(who, (this.calls.get(who) ?? 0) + 1);
    const remaining = headers['x-ratelimit-remaining'];
    const reset = resetMs(headers['x-ratelimit-reset']);
    const s = this.keys.get(credential) ?? { remaining: null, resetAt: null, limit: null };
    const limit = headers['x-ratelimit-limit'];
    if (limit !== undefined && /^\s*\d+\s*$/.test(limit)) s.limit = Number(limit);
    if (remaining !== undefined && /^\s*\d+\s*$/.test(remaining)) s.remaining = Number(remaining);
    if (reset !== null) s.resetAt = Date.now() + reset;
    if (status === 429) s.remaining = 0;
    this.keys.set(credential, s);
  }

  /** How long to wait before retrying a 429 (Retry-After, else the window reset, else a second). */
  retryDelay(headers: Record<string, string>): number {
    const ms = retryAfterMs(headers['retry-after']) ?? resetMs(headers['x-ratelimit-reset']) ?? 1000;
    return Math.min(MAX_PAUSE_MS, Math.max(50, ms));
  }

  async pause(ms: number): Promise<void> {
    this.pausedMs += ms;
    await sleep(ms);
  }
}
