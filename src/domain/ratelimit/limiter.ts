// Fixed-window rate limits on the sandbox clock. One limiter instance counts per (bucket) per window:
// the jobs API and the keyed MCP server share one per-minute window per API key; the anonymous MCP
// server uses a per-day window per client IP; talent_search a per-day window per key.
// Requirements: JOB-RATE-4, POL-RATE-1, POL-MCP-3; decisions D-22, D-33.
// The windows of client addresses, counted on one clock that only moves forward, are swept once a window
// when they are two windows old: a window counts nothing once its time is past, and kept they would grow
// with every address ever seen (D-193).

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window resets (>= 1). */
  resetSeconds: number;
  /** Epoch ms at which the window resets. */
  resetAt: number;
}

/** One window as a snapshot keeps it: bucket, window start (ms), calls counted. */
export type WindowState = [bucket: string, start: number, count: number];

interface Window {
  start: number;
  count: number;
}

export class FixedWindowLimiter {
  private windows = new Map<string, Window>();
  /** The start of the window in which the swept buckets' windows were last swept. */
  private sweptAt = -Infinity;

  /**
   * windowStart(now) gives the start of the window containing now; windowEnd the start of the next. `swept`: the
   * buckets counted on one clock that never moves back (a client address's, on the sandbox clock), whose windows
   * two windows old are dropped; the others (a key's, on its tenant's clock) stay until forgotten.
   */
  constructor(
    private readonly windowStart: (now: number) => number,
    private readonly windowEnd: (start: number) => number,
    private readonly swept: (bucket: string) => boolean,
  ) {}

  static perMinute(swept: (bucket: string) => boolean): FixedWindowLimiter {
    return new FixedWindowLimiter(
      (now) => now - (now % 60_000),
      (start) => start + 60_000,
      swept,
    );
  }

  static perUtcDay(swept: (bucket: string) => boolean): FixedWindowLimiter {
    return new FixedWindowLimiter(
      (now) => now - (now % 86_400_000),
      (start) => start + 86_400_000,
      swept,
    );
  }

  /** Counts one call against `bucket` (only when allowed) and says whether it may proceed. */
  hit(bucket: string, limit: number, now: number): RateDecision {
    return this.decide(bucket, limit, now, true);
  }

  /** Reads the state of `bucket` without counting a call. */
  peek(bucket: string, limit: number, now: number): RateDecision {
    return this.decide(bucket, limit, now, false);
  }

  reset(): void {
    this.windows.clear();
    this.sweptAt = -Infinity;
  }

  /** The windows as [bucket, start, count], in the order they were opened; optionally only some buckets (D-137). */
  exportState(keep: (bucket: string) => boolean = () => true): WindowState[] {
    const out: WindowState[] = [];
    for (const [bucket, w] of this.windows) if (keep(bucket)) out.push([bucket, w.start, w.count]);
    return out;
  }

  /** Puts exported windows back (replacing those of the same buckets). */
  importState(windows: readonly WindowState[]): void {
    for (const [bucket, start, count] of windows) this.windows.set(bucket, { start, count });
  }

  /** Drops the windows of the buckets `drop` names. */
  forget(drop: (bucket: string) => boolean): void {
    for (const bucket of [...this.windows.keys()]) if (drop(bucket)) this.windows.delete(bucket);
  }

  private decide(bucket: string, limit: number, now: number, count: boolean): RateDecision {
    const start = this.windowStart(now);
    if (start > this.sweptAt && this.swept(bucket)) this.sweep(start);
    let w = this.windows.get(bucket);
    if (!w || w.start !== start) {
      w = { start, count: 0 };
      this.windows.set(bucket, w);
    }
    const allowed = w.count < limit;
    if (allowed && count) w.count++;
    const resetAt = this.windowEnd(start);
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - w.count),
      resetSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
      resetAt,
    };
  }

  /**
   * At the first decision of a swept bucket in a new window: drops the swept buckets' windows older than the one
   * before it. They count nothing (a call in their bucket opens a new window); the one before is kept, so that a
   * real clock stepped back a little still finds it.
   */
  private sweep(start: number): void {
    this.sweptAt = start;
    const before = this.windowStart(start - 1);
    for (const [bucket, w] of this.windows) if (w.start < before && this.swept(bucket)) this.windows.delete(bucket);
  }
}
