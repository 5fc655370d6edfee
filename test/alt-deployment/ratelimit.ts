// Fixed per-minute windows aligned to the wall clock, one per key (or per client IP for keyless calls).

export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window ends. */
  reset: number;
  allowed: boolean;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; used: number }>();

  /** Counts one call against `id` unless the window is full; a refused call is not counted. */
  take(id: string, limit: number, now = Date.now()): WindowState {
    return this.count(id, limit, now, true);
  }

  /** The window's state without counting a call. */
  peek(id: string, limit: number, now = Date.now()): WindowState {
    return this.count(id, limit, now, false);
  }

  private count(id: string, limit: number, now: number, counted: boolean): WindowState {
    const start = Math.floor(now / 60_000) * 60_000;
    let w = this.windows.get(id);
    if (!w || w.start !== start) {
      w = { start, used: 0 };
      this.windows.set(id, w);
    }
    const allowed = w.used < limit;
    if (allowed && counted) w.used++;
    return {
      limit,
      remaining: Math.max(0, limit - w.used),
      reset: (start + 60_000) / 1000,
      allowed: counted ? allowed : true,
    };
  }
}
