// The sandbox clock: real time plus an offset that tests and the control API move forward.
// Nothing in the sandbox reads Date.now() directly. Timers are scheduled on sandbox time, so
// advancing the clock fires every timer that has come due at once (webhook retries, expiry).

export type TimerFn = () => void;

interface Timer {
  at: number;
  seq: number;
  fn: TimerFn;
}

export class Clock {
  private offsetMs = 0;
  private timers: Timer[] = [];
  private seq = 0;
  private handle: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<(now: number) => void>();

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
    const now = this.now();
    for (const l of this.listeners) l(now);
    return now;
  }

  /** Called after every advance (after due timers ran). */
  onAdvance(listener: (now: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs fn when the sandbox clock reaches `at` (ms), by real waiting or by advance(). */
  schedule(at: number, fn: TimerFn): () => void {
    const timer: Timer = { at, seq: this.seq++, fn };
    // keep sorted by (at, seq); timers are few compared with requests, insertion is cheap
    let i = this.timers.length;
    while (i > 0 && (this.timers[i - 1].at > at || (this.timers[i - 1].at === at && this.timers[i - 1].seq > timer.seq))) i--;
    this.timers.splice(i, 0, timer);
    this.arm();
    return () => {
      const idx = this.timers.indexOf(timer);
      if (idx >= 0) this.timers.splice(idx, 1);
      this.arm();
    };
  }

  pendingTimers(): number {
    return this.timers.length;
  }

  /** Drops every timer (reset, shutdown). */
  clear(): void {
    this.timers = [];
    this.arm();
  }

  private fireDue(): void {
    const now = this.now();
    while (this.timers.length > 0 && this.timers[0].at <= now) {
      const t = this.timers.shift()!;
      try {
        t.fn();
      } catch (err) {
        console.error('sandbox clock timer failed', err);
      }
    }
    this.arm();
  }

  private arm(): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = null;
    if (this.timers.length === 0) return;
    const delay = Math.max(0, Math.min(this.timers[0].at - this.now(), 2 ** 31 - 1));
    this.handle = setTimeout(() => this.fireDue(), delay);
    this.handle.unref();
  }
}
