// The sandbox clock: real time plus an offset that tests and the control API move forward.
// Nothing in the sandbox reads Date.now() directly. Timers are scheduled on sandbox time, so
// advancing the clock fires every timer that has come due at once (webhook retries, expiry).
// Timers live in a binary heap with lazy cancellation: a million pending expiries stay cheap to
// schedule and cancel.
// Requirements: POL-STATE-2, POL-HOOK-1, POL-MCP-3 (time they follow); decisions D-09, D-50.

export type TimerFn = () => void;

interface Timer {
  at: number;
  seq: number;
  fn: (arg: unknown) => void;
  /** What scheduleCall passes to fn. */
  arg: unknown;
  cancelled: boolean;
}

/** A timer made by scheduleCall, for cancel(). */
export type TimerHandle = object;

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

export class Clock {
  private offsetMs = 0;
  private heap: Timer[] = [];
  private live = 0;
  private seq = 0;
  private handle: NodeJS.Timeout | null = null;
  private armedFor = Infinity;

  constructor(private readonly realNow: () => number = () => Date.now()) {}

  /** Milliseconds since the epoch, on the sandbox clock. */
  now(): number {
    return this.realNow() + this.offsetMs;
  }

  iso(ms: number = this.now()): string {
    return new Date(ms).toISOString();
  }

  /** Moves the sandbox clock forward and fires every timer that is now due. */
  advance(seconds: number): number {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('seconds must be a non-negative number');
    this.offsetMs += Math.round(seconds * 1000);
    this.fireDue();
    return this.now();
  }

  /** Runs fn when the sandbox clock reaches `at` (ms), by real waiting or by advance(). Returns a canceller. */
  schedule(at: number, fn: TimerFn): () => void {
    const timer: Timer = { at, seq: this.seq++, fn, arg: undefined, cancelled: false };
    this.push(timer);
    this.live++;
    if (at < this.armedFor) this.arm();
    return () => {
      if (timer.cancelled) return;
      timer.cancelled = true;
      this.live--;
    };
  }

  /** schedule() without a closure per timer, for callers that keep very many: runs fn(arg) at `at`. */
  scheduleCall<A>(at: number, fn: (arg: A) => void, arg: A): TimerHandle {
    const timer: Timer = { at, seq: this.seq++, fn: fn as (arg: unknown) => void, arg, cancelled: false };
    this.push(timer);
    this.live++;
    if (at < this.armedFor) this.arm();
    return timer;
  }

  /** Cancels a timer made by scheduleCall (no effect once it has fired or been cancelled). */
  cancel(handle: TimerHandle): void {
    const timer = handle as Timer;
    if (timer.cancelled) return;
    timer.cancelled = true;
    this.live--;
  }

  pendingTimers(): number {
    return this.live;
  }

  /** Drops every timer (reset, shutdown). */
  clear(): void {
    for (const t of this.heap) t.cancelled = true;
    this.heap = [];
    this.live = 0;
    this.arm();
  }

  private fireDue(): void {
    const now = this.now();
    while (this.heap.length > 0 && this.heap[0].at <= now) {
      const t = this.pop()!;
      if (t.cancelled) continue;
      t.cancelled = true;
      this.live--;
      try {
        t.fn(t.arg);
      } catch (err) {
        console.error('sandbox clock timer failed', err);
      }
    }
    this.arm();
  }

  private arm(): void {
    while (this.heap.length > 0 && this.heap[0].cancelled) this.pop();
    if (this.handle) clearTimeout(this.handle);
    this.handle = null;
    this.armedFor = Infinity;
    if (this.heap.length === 0) return;
    this.armedFor = this.heap[0].at;
    const delay = Math.max(0, Math.min(this.heap[0].at - this.now(), 2 ** 31 - 1));
    this.handle = setTimeout(() => this.fireDue(), delay);
    this.handle.unref();
  }

  private push(t: Timer): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private pop(): Timer | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
