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

interface WindowState {
  remaining: number | null;
  resetAt: number | null;
  /** X-RateLimit-Limit; 0 means the key has no window at all here (e.g. a tier the API refuses): nothing to wait for. */
  limit: number | null;
  /** Calls let through and not answered yet: they will count in this window. */
  inflight: number;
}

/** A call let through by beforeCall; handed back to observe (or release) when it is answered. */
export interface Ticket {
  window: WindowState | null;
  settled: boolean;
}

/**
 * One state per window, not per key: a key may have several (this project's documents rate-limit the
 * jobs API; a deployment may also limit its screening API, with another limit and count), told apart by
 * the X-RateLimit-Limit each lane (surface) of the key reports. Checks run side by side, so calls of one
 * key may be in flight together: each takes a place in its window before it goes, and the window is
 * waited out only when the calls already sent will have used it up.
 */
export class RateGovernor {
  private readonly windows = new Map<string, WindowState>();
  /** credential + lane → the limit that lane last reported (which window its calls count in). */
  private readonly laneLimit = new Map<string, string>();
  /** credential → the window it last reported (for a lane that has not reported one yet). */
  private readonly lastWindow = new Map<string, string>();
  /** Pauses taken (for the run's notes), in milliseconds, in all and per masked credential. */
  pausedMs = 0;
  retries = 0;
  readonly pausedBy = new Map<string, number>();

  private windowId(credential: string, lane: string): string | null {
    const limit = this.laneLimit.get(`${credential}\u0000${lane}`);
    return limit !== undefined ? `${credential}\u0000${limit}` : (this.lastWindow.get(credential) ?? null);
  }

  /** Waits, before a call with this credential on this lane, until its window has room; the ticket goes back to observe. */
  async beforeCall(credential: string, lane = ''): Promise<Ticket> {
    for (;;) {
      const id = this.windowId(credential, lane);
      const s = id === null ? undefined : this.windows.get(id);
      if (!s || s.remaining === null || s.resetAt === null || s.limit === 0 || s.remaining - s.inflight > 0) {
        if (s) s.inflight++;
        return { window: s ?? null, settled: false };
      }
      const wait = Math.min(MAX_PAUSE_MS, s.resetAt - Date.now());
      if (wait > 0) {
        const who = maskSecret(credential);
        this.pausedBy.set(who, (this.pausedBy.get(who) ?? 0) + wait);
        await this.pause(wait);
      }
      // a new window (or the longest pause taken): the count is known again from the next answer
      s.remaining = null;
    }
  }

  /** The call of this ticket got no answer: its place in the window is given back. */
  release(ticket: Ticket | undefined): void {
    if (!ticket || ticket.settled) return;
    ticket.settled = true;
    if (ticket.window) ticket.window.inflight = Math.max(0, ticket.window.inflight - 1);
  }

  /** Calls seen per masked credential (for the run's notes). */
  readonly calls = new Map<string, number>();

  /** Learns the window from a response's headers. */
  observe(credential: string, status: number, headers: Record<string, string>, lane = '', ticket?: Ticket): void {
    this.release(ticket);
    const who = maskSecret(credential);
    this.calls.set(who, (this.calls.get(who) ?? 0) + 1);
    // a 401 or 403 answers before the key's window is known, so its numbers may be another window's (a
    // per-IP one, say): every other answer (2xx, 400, 402, 404, 429…) counts in the key's window
    if (status === 401 || status === 403) return;
    const remaining = headers['x-ratelimit-remaining'];
    const reset = resetMs(headers['x-ratelimit-reset']);
    const limit = headers['x-ratelimit-limit'];
    const limitOk = limit !== undefined && /^\s*\d+\s*$/.test(limit);
    if (limitOk) this.laneLimit.set(`${credential}\u0000${lane}`, String(Number(limit)));
    const id = this.windowId(credential, lane) ?? `${credential}\u0000?`;
    const s = this.windows.get(id) ?? { remaining: null, resetAt: null, limit: null, inflight: 0 };
    if (limitOk) s.limit = Number(limit);
    if (remaining !== undefined && /^\s*\d+\s*$/.test(remaining)) s.remaining = Number(remaining);
    if (reset !== null) s.resetAt = Date.now() + reset;
    if (status === 429) s.remaining = 0;
    this.windows.set(id, s);
    this.lastWindow.set(credential, id);
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
