// The sandbox clock: real time plus an offset that tests and the control API move forward.
// Nothing in the sandbox reads Date.now() directly. Timers are scheduled on sandbox time, so
// advancing the clock fires every timer that has come due at once (webhook retries, expiry).
// Timers live in a binary heap with lazy cancellation: a million pending expiries stay cheap to
// schedule and cancel.
// Requirements: POL-STATE-2, POL-HOOK-1, POL-MCP-3 (time they follow); decisions D-09, D-50.

export type TimerFn = () => void;

/** Runs fn(a, b) after the current task (two arguments, so callers need no closure per call). */
export type Deferrer = <A, B>(fn: (a: A, b: B) => void, a: A, b: B) => void;

interface Timer {
  at: number;
  seq: number;
  fn: (arg: unknown) => void;
  /** What scheduleCall passes to fn. */
  arg: unknown;
  cancelled: boolean;
  /** What the timer is for ('webhook retry', 'review expiry'), shown on the clock page. */
  label: string;
  /** What it is about: a delivery id, or the id of the object passed to scheduleCall. */
  ref: string | null;
}

export interface TimerView {
  at: string;
  label: string;
  ref: string | null;
}

/** What one advance of the clock fired: counts per label and the first few timers in order. */
export interface AdvanceRecord {
  from: string;
  to: string;
  fired: number;
  byLabel: Record<string, number>;
  first: TimerView[];
}

const FIRED_SHOWN = 20;
const HISTORY = 20;
const refOf = (arg: unknown): string | null =>
  typeof arg === 'object' && arg !== null && typeof (arg as { id?: unknown }).id === 'string' ? (arg as { id: string }).id : null;

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
  /** Collects what fires during advance(); null otherwise. */
  private firing: AdvanceRecord | null = null;
  private advances: AdvanceRecord[] = [];

  /** How work "right after the current task" is run; a store replaying calls runs it inside the call (D-112). */
  private deferrer: Deferrer = (fn, a, b) => setImmediate(fn, a, b);

  /** Who fires due timers when real time reaches them; null: this clock, at once. */
  private dispatcher: (() => void) | null = null;

  constructor(private readonly realNow: () => number = () => Date.now()) {}

  /**
   * Hands the firing of timers that real time made due to `dispatch`, which calls fireDueNow() when it
   * sees fit: a store that replays calls across instances fires them as one recorded step (D-112).
   */
  dispatchDueTo(dispatch: () => void): void {
    this.dispatcher = dispatch;
  }

  /** Runs fn(arg) right after the current task: after the answer to the call being served is computed. */
  defer<A, B>(fn: (a: A, b: B) => void, a: A, b: B): void {
    this.deferrer(fn, a, b);
  }

  /** Hands deferred work to `deferrer` instead of the event loop. */
  deferWith(deferrer: Deferrer): void {
    this.deferrer = deferrer;
  }

  /** Fires every timer due at the sandbox time now. */
  fireDueNow(): void {
    this.fireDue();
  }

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
    const from = this.iso();
    this.offsetMs += Math.round(seconds * 1000);
    const rec: AdvanceRecord = { from, to: this.iso(), fired: 0, byLabel: {}, first: [] };
    this.firing = rec;
    try {
      this.fireDue();
    } finally {
      this.firing = null;
    }
    this.advances.unshift(rec);
    this.advances.length = Math.min(this.advances.length, HISTORY);
    return this.now();
  }

  /** The last advances, newest first, with what each one fired. */
  history(): AdvanceRecord[] {
    return this.advances.map((a) => ({ ...a, byLabel: { ...a.byLabel }, first: [...a.first] }));
  }

  /** The `limit` soonest pending timers and the count per label (one pass over the heap). */
  pending(limit = 20): { total: number; byLabel: Record<string, number>; soonest: TimerView[] } {
    const byLabel: Record<string, number> = {};
    const soonest: Timer[] = [];
    for (const t of this.heap) {
      if (t.cancelled) continue;
      byLabel[t.label] = (byLabel[t.label] ?? 0) + 1;
      if (soonest.length < limit || before(t, soonest[soonest.length - 1])) {
        let i = soonest.length < limit ? soonest.length : limit - 1;
        while (i > 0 && before(t, soonest[i - 1])) {
          soonest[i] = soonest[i - 1];
          i--;
        }
        soonest[i] = t;
      }
    }
    return { total: this.live, byLabel, soonest: soonest.map((t) => this.view(t)) };
  }

  private view(t: Timer): TimerView {
    return { at: this.iso(t.at), label: t.label, ref: t.ref ?? refOf(t.arg) };
  }

  /** Runs fn when the sandbox clock reaches `at` (ms), by real waiting or by advance(). Returns a canceller. */
  schedule(at: number, fn: TimerFn, label = 'timer', ref: string | null = null): () => void {
    const timer: Timer = { at, seq: this.seq++, fn, arg: undefined, cancelled: false, label, ref };
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
  scheduleCall<A>(at: number, fn: (arg: A) => void, arg: A, label = 'timer'): TimerHandle {
    const timer: Timer = { at, seq: this.seq++, fn: fn as (arg: unknown) => void, arg, cancelled: false, label, ref: null };
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
    this.advances = [];
    this.arm();
  }

  private fireDue(): void {
    const now = this.now();
    while (this.heap.length > 0 && this.heap[0].at <= now) {
      const t = this.pop()!;
      if (t.cancelled) continue;
      t.cancelled = true;
      this.live--;
      const rec = this.firing;
      if (rec) {
        rec.fired++;
        rec.byLabel[t.label] = (rec.byLabel[t.label] ?? 0) + 1;
        if (rec.first.length < FIRED_SHOWN) rec.first.push(this.view(t));
      }
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
    this.handle = setTimeout(this.onTimer, delay);
    this.handle.unref();
  }

  private readonly onTimer = () => {
    this.handle = null;
    this.armedFor = Infinity;
    if (this.dispatcher) this.dispatcher();
    else this.fireDue();
  };

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
