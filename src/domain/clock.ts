// The sandbox clock: real time plus an offset that tests and the control API move forward, and one
// clock per tenant on top of it (the sandbox clock plus the tenant's own offset), so advancing one
// tenant's time expires its reviews, fires its retries and resets its windows without touching anyone
// else's (D-120). Nothing in the sandbox reads Date.now() directly. Timers are scheduled on the time
// of the clock that made them (a tenant's timers on its clock), so advancing a clock fires every timer
// that has come due at once (webhook retries, expiry). Each clock keeps its timers in a binary heap
// with lazy cancellation: a million pending expiries stay cheap to schedule and cancel.
// Requirements: POL-STATE-2, POL-HOOK-1, POL-MCP-3 (time they follow); decisions D-09, D-50, D-120.

import { LazyList } from './lazyList.js';
import { timeHi, timeLo, timeOfSet } from './packedTime.js';
import { SeqMap } from './shardedMap.js';

export type TimerFn = () => void;

/** Runs fn(a, b) after the current task (two arguments, so callers need no closure per call). */
export type Deferrer = <A, B>(fn: (a: A, b: B) => void, a: A, b: B) => void;

/** A pending timer; its time kept as two small integers (a sandbox holds one per pending review, D-199). */
class Timer {
  private readonly atHi: number;
  private readonly atLo: number;
  cancelled = false;
  constructor(
    /** On the time of the zone that holds the timer. */
    at: number,
    readonly seq: number,
    readonly fn: (arg: unknown) => void,
    /** What scheduleCall passes to fn. */
    readonly arg: unknown,
    /** What the timer is for ('webhook retry', 'review expiry'), shown on the clock page. */
    readonly label: string,
    /** What it is about: a delivery id, or the id of the object passed to scheduleCall. */
    readonly ref: string | null,
    readonly zone: Zone,
  ) {
    this.atHi = timeHi(at);
    this.atLo = timeLo(at);
  }

  get at(): number {
    return timeOfSet(this.atHi, this.atLo);
  }
}

export interface TimerView {
  at: string;
  label: string;
  ref: string | null;
  /** The tenant whose clock the timer is on; null: the sandbox clock. */
  tenantId: string | null;
}

/** What one advance of a clock fired: counts per label and the first few timers in order. */
export interface AdvanceRecord {
  /** The tenant whose clock moved; null: the sandbox clock (every tenant's moved with it). */
  tenantId: string | null;
  from: string;
  to: string;
  fired: number;
  byLabel: Record<string, number>;
  first: TimerView[];
}

/**
 * An advance as a clock keeps it: with the sandbox time it was made at, which orders the advances of every clock
 * into the sandbox-wide list when it is read (D-156). Not shown (history() leaves it out).
 */
type KeptAdvance = AdvanceRecord & { at?: number };

/** The order of two clocks in the sandbox-wide list of advances: the sandbox clock's first, then by tenant id. */
const clockOrder = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;

/** Time as one clock (the sandbox's or a tenant's) tells it, and timers on that time. */
export interface TimeSource {
  /** Milliseconds since the epoch on this clock. */
  now(): number;
  iso(ms?: number): string;
  /** Runs fn when this clock reaches `at` (ms), by real waiting or by an advance. Returns a canceller. */
  schedule(at: number, fn: TimerFn, label?: string, ref?: string | null): () => void;
  /** schedule() without a closure per timer, for callers that keep very many: runs fn(arg) at `at`. */
  scheduleCall<A>(at: number, fn: (arg: A) => void, arg: A, label?: string): TimerHandle;
  /** Cancels a timer made by scheduleCall (no effect once it has fired or been cancelled). */
  cancel(handle: TimerHandle): void;
}

/** A pending timer as a snapshot keeps it: data, no closure; its service re-arms it on import (D-137). */
export interface TimerData {
  /** On the time of the clock that holds it. */
  at: number;
  /** Creation order on its clock: re-arming in this order keeps the order of timers due together (D-147). */
  seq: number;
  label: string;
  ref: string | null;
}

/** The sandbox clock's part of a snapshot: its offset, its timers and the last advances (D-137). */
export interface ClockState {
  offsetMs: number;
  /** The creation number the clock's next timer gets. */
  seq: number;
  /** In creation order; a lazy export (a snapshot's) lists a tenant's as they are read (`LazyList`). */
  timers: TimerData[] | LazyList<TimerData>;
  advances: KeptAdvance[];
}

const FIRED_SHOWN = 20;
const HISTORY = 20;
const refOf = (arg: unknown): string | null =>
  typeof arg === 'object' && arg !== null && typeof (arg as { id?: unknown }).id === 'string'
    ? (arg as { id: string }).id
    : null;

/** A live timer as data (what a snapshot keeps of it). */
const timerData = (t: Timer): TimerData => ({ at: t.at, seq: t.seq, label: t.label, ref: t.ref ?? refOf(t.arg) });

/** A timer made by scheduleCall, for cancel(). */
export type TimerHandle = object;

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/** The timers of one clock (the sandbox's or a tenant's), on its own time, and its last advances. */
export class Zone {
  offsetMs = 0;
  heap: Timer[] = [];
  live = 0;
  /** The creation number the zone's next timer gets: each clock numbers its own timers (D-147). */
  seq = 0;
  advances: KeptAdvance[] = [];
  /**
   * The live timers by creation number, in the order they were made: an export lists them without sorting the heap
   * (a tenant with 20,000 pending expiries: about 30 ms of every snapshot, D-158). Trusted while they were made in
   * increasing numbers (`inOrder`); else an export sorts. Kept in blocks of numbers, so that growing it never
   * rehashes every timer at once (D-200).
   */
  readonly bySeq = new SeqMap<Timer>();
  private lastSeq = -Infinity;
  inOrder = true;
  constructor(readonly tenantId: string | null) {}

  /** A live timer made in this zone. */
  track(t: Timer): void {
    // a number not above the last one made is the only way a duplicate or a lower number can come
    if (t.seq <= this.lastSeq) this.inOrder = false;
    this.lastSeq = t.seq;
    this.bySeq.set(t.seq, t);
  }

  /**
   * Drops every timer at once (a reset, a tenant forgotten): each is marked cancelled, so a handle cancelled later does
   * nothing, instead of being removed one by one. Returns how many were live.
   */
  retire(): number {
    for (const t of this.heap) t.cancelled = true;
    const live = this.live;
    this.heap = [];
    this.bySeq.clear();
    this.live = 0;
    return live;
  }

  /** The zone's live timers in creation order. */
  liveInOrder(): Timer[] {
    if (this.inOrder) return [...this.bySeq.values()];
    return this.heap.filter((t) => !t.cancelled).sort((a, b) => a.seq - b.seq);
  }

  /** When the soonest live timer is due, on the sandbox clock's time (Infinity: none). */
  dueOnSandbox(): number {
    while (this.heap.length > 0 && this.heap[0].cancelled) this.pop();
    return this.heap.length > 0 ? this.heap[0].at - this.offsetMs : Infinity;
  }

  push(t: Timer): void {
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

  pop(): Timer | undefined {
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

  remember(rec: KeptAdvance): void {
    this.advances.unshift(rec);
    this.advances.length = Math.min(this.advances.length, HISTORY);
  }
}

/** A tenant's clock: the sandbox clock plus the tenant's offset, with the tenant's own timers. */
export class TenantClock implements TimeSource {
  constructor(
    private readonly clock: Clock,
    private readonly zone: Zone,
  ) {}

  get tenantId(): string {
    return this.zone.tenantId!;
  }

  /** How far this tenant's clock is ahead of the sandbox clock (ms). */
  get offsetMs(): number {
    return this.zone.offsetMs;
  }

  now(): number {
    return this.clock.now() + this.zone.offsetMs;
  }

  iso(ms: number = this.now()): string {
    return this.clock.iso(ms);
  }

  schedule(at: number, fn: TimerFn, label = 'timer', ref: string | null = null): () => void {
    return this.clock.scheduleIn(this.zone, at, fn, label, ref);
  }

  scheduleCall<A>(at: number, fn: (arg: A) => void, arg: A, label = 'timer'): TimerHandle {
    return this.clock.scheduleCallIn(this.zone, at, fn, arg, label);
  }

  cancel(handle: TimerHandle): void {
    this.clock.cancel(handle);
  }
}

export class Clock implements TimeSource {
  private offsetMs = 0;
  /** The sandbox clock's own timers (nothing of a tenant's). */
  private readonly root = new Zone(null);
  /** Every tenant clock made so far, by tenant id. */
  private zones = new Map<string, Zone>();
  private tenantClocks = new Map<string, TenantClock>();
  private live = 0;
  /** Set while a timer is re-armed from a snapshot: the creation number it takes (rearmAs). */
  private forcedSeq: number | null = null;
  private handle: NodeJS.Timeout | null = null;
  private armedFor = Infinity;
  /** Collects what fires during advance(); null otherwise. */
  private firing: AdvanceRecord | null = null;

  /** How work "right after the current task" is run; a store replaying calls runs it inside the call (D-112). */
  private deferrer: Deferrer = (fn, a, b) => setImmediate(fn, a, b);

  /** Who fires due timers when real time reaches them, told whose are due; null: this clock, at once. */
  private dispatcher: ((zones: (string | null)[]) => void) | null = null;

  /** Hears the zone of each timer that fires: its tenant, or null for the sandbox clock's own. */
  private onFire: ((tenantId: string | null) => void) | null = null;

  constructor(private readonly realNow: () => number = () => Date.now()) {}

  /**
   * Hands the firing of timers that real time made due to `dispatch`, told the zones whose timers are due (a
   * tenant's id; null: the sandbox clock's own), which calls fireDueNow() when it sees fit: a store that replays
   * calls across instances fires each tenant's as a recorded step of that tenant (D-112, D-154). The clock arms
   * again once a zone's timers are fired.
   */
  dispatchDueTo(dispatch: (zones: (string | null)[]) => void): void {
    this.dispatcher = dispatch;
  }

  /** Runs fn(arg) right after the current task: after the answer to the call being served is computed. */
  defer<A, B>(fn: (a: A, b: B) => void, a: A, b: B): void {
    this.deferrer(fn, a, b);
  }

  /**
   * Tells `fn` the tenant of each timer as it fires (null: a timer of the sandbox clock itself): a store that
   * snapshots only the tenants that changed learns which ones a firing of timers changed (D-152).
   */
  observeFiring(fn: (tenantId: string | null) => void): void {
    this.onFire = fn;
  }

  /** Hands deferred work to `deferrer` instead of the event loop. */
  deferWith(deferrer: Deferrer): void {
    this.deferrer = deferrer;
  }

  /** Fires every timer due at the sandbox time now; with a tenant, only that tenant's (D-154). */
  fireDueNow(tenantId?: string): void {
    if (tenantId === undefined) this.fireDue(null);
    else {
      const zone = this.zones.get(tenantId);
      if (zone) this.fireDue(zone);
    }
  }

  /** The zones whose soonest timer is due at the sandbox time now: tenants' ids, null for the sandbox clock's own. */
  dueZones(): (string | null)[] {
    const now = this.now();
    const out: (string | null)[] = [];
    for (const z of this.zoneList()) if (z.dueOnSandbox() <= now) out.push(z.tenantId);
    return out;
  }

  /** Milliseconds since the epoch, on the sandbox clock. */
  now(): number {
    return this.realNow() + this.offsetMs;
  }

  /** The clock of one tenant (made on first use, at the sandbox time: offset 0). */
  of(tenantId: string): TenantClock {
    let tc = this.tenantClocks.get(tenantId);
    if (tc === undefined) {
      const zone = new Zone(tenantId);
      this.zones.set(tenantId, zone);
      this.tenantClocks.set(tenantId, (tc = new TenantClock(this, zone)));
    }
    return tc;
  }

  /** Whether a tenant's clock holds a timer still to fire. */
  hasTimers(tenantId: string): boolean {
    return this.zones.get(tenantId)?.heap.some((t) => !t.cancelled) ?? false;
  }

  /** When a tenant's soonest timer is due, on the sandbox clock (Infinity: none). */
  nextDueOf(tenantId: string): number {
    return this.zones.get(tenantId)?.dueOnSandbox() ?? Infinity;
  }

  /** How far the sandbox clock is ahead of real time, in ms. */
  sandboxOffsetMs(): number {
    return this.offsetMs;
  }

  /** Forgets a tenant's clock and drops its timers, the zone whole (`Zone.retire`). */
  forget(tenantId: string): void {
    const zone = this.zones.get(tenantId);
    if (!zone) return;
    this.live -= zone.retire();
    this.zones.delete(tenantId);
    this.tenantClocks.delete(tenantId);
    this.arm();
  }

  iso(ms: number = this.now()): string {
    // every API call stamps its log entry: calls within one millisecond share the string
    if (ms !== this.lastIsoMs) {
      this.lastIsoMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }
  private lastIsoMs = NaN;
  private lastIso = '';

  /** Moves the sandbox clock (and with it every tenant's) forward and fires every timer that is now due. */
  advance(seconds: number): number {
    return this.move(this.root, seconds);
  }

  /** Moves one tenant's clock forward and fires that tenant's timers that are now due. */
  advanceTenant(tenantId: string, seconds: number): number {
    this.of(tenantId);
    return this.move(this.zones.get(tenantId)!, seconds);
  }

  private move(zone: Zone, seconds: number): number {
    if (!Number.isFinite(seconds) || seconds < 0) throw new RangeError('seconds must be a non-negative number');
    const at = this.now();
    const nowOf = () => this.now() + zone.offsetMs;
    const from = this.iso(nowOf());
    const ms = Math.round(seconds * 1000);
    if (zone === this.root) this.offsetMs += ms;
    else zone.offsetMs += ms;
    const rec: KeptAdvance = {
      tenantId: zone.tenantId,
      from,
      to: this.iso(nowOf()),
      fired: 0,
      byLabel: {},
      first: [],
      at,
    };
    this.firing = rec;
    try {
      // the sandbox clock moves every tenant's; a tenant's moves its own, and fires no other tenant's timers (D-154)
      this.fireDue(zone === this.root ? null : zone);
    } finally {
      this.firing = null;
    }
    // each clock keeps its own: a tenant's advance changes nothing of the sandbox clock's (D-156)
    zone.remember(rec);
    return nowOf();
  }

  /**
   * The last advances, newest first, with what each one fired: of every clock (undefined), of the sandbox clock
   * alone (null), or of one tenant's clock. Every clock's are merged by the sandbox time they were made at; ties
   * (one millisecond) go to the sandbox clock's, then by tenant id, then newest first within a clock.
   */
  history(tenantId?: string | null): AdvanceRecord[] {
    let list: KeptAdvance[];
    if (tenantId === null) list = this.root.advances;
    else if (tenantId !== undefined) list = this.zones.get(tenantId)?.advances ?? [];
    else {
      const all: [KeptAdvance, number][] = [];
      for (const z of this.zoneList()) z.advances.forEach((a, i) => all.push([a, i]));
      all.sort(([a, i], [b, j]) => (b.at ?? 0) - (a.at ?? 0) || clockOrder(a.tenantId, b.tenantId) || i - j);
      list = all.slice(0, HISTORY).map(([a]) => a);
    }
    return list.map(({ at: _at, ...a }) => ({ ...a, byLabel: { ...a.byLabel }, first: [...a.first] }));
  }

  /** The `limit` soonest pending timers and the count per label: all, or one tenant's (one pass over the timers). */
  pending(limit = 20, tenantId?: string): { total: number; byLabel: Record<string, number>; soonest: TimerView[] } {
    const byLabel: Record<string, number> = {};
    const soonest: { t: Timer; due: number }[] = [];
    const zones =
      tenantId === undefined
        ? [this.root, ...this.zones.values()]
        : [this.zones.get(tenantId)].filter((z) => z !== undefined);
    let total = 0;
    for (const z of zones) {
      total += z.live;
      for (const t of z.heap) {
        if (t.cancelled) continue;
        byLabel[t.label] = (byLabel[t.label] ?? 0) + 1;
        const due = t.at - z.offsetMs;
        const earlier = (a: { t: Timer; due: number }) => due < a.due || (due === a.due && t.seq < a.t.seq);
        if (soonest.length < limit || earlier(soonest[soonest.length - 1])) {
          let i = soonest.length < limit ? soonest.length : limit - 1;
          while (i > 0 && earlier(soonest[i - 1])) {
            soonest[i] = soonest[i - 1];
            i--;
          }
          soonest[i] = { t, due };
        }
      }
    }
    return { total, byLabel, soonest: soonest.map((s) => this.view(s.t)) };
  }

  private view(t: Timer): TimerView {
    return { at: this.iso(t.at), label: t.label, ref: t.ref ?? refOf(t.arg), tenantId: t.zone.tenantId };
  }

  schedule(at: number, fn: TimerFn, label = 'timer', ref: string | null = null): () => void {
    return this.scheduleIn(this.root, at, fn, label, ref);
  }

  scheduleCall<A>(at: number, fn: (arg: A) => void, arg: A, label = 'timer'): TimerHandle {
    return this.scheduleCallIn(this.root, at, fn, arg, label);
  }

  /** schedule() on a zone's time (the tenant clocks' schedule). */
  scheduleIn(zone: Zone, at: number, fn: TimerFn, label: string, ref: string | null): () => void {
    const timer = this.add(zone, at, fn, undefined, label, ref);
    return () => {
      if (timer.cancelled) return;
      this.kill(timer);
    };
  }

  /** scheduleCall() on a zone's time. */
  scheduleCallIn<A>(zone: Zone, at: number, fn: (arg: A) => void, arg: A, label: string): TimerHandle {
    return this.add(zone, at, fn as (arg: unknown) => void, arg, label, null);
  }

  private add(
    zone: Zone,
    at: number,
    fn: (arg: unknown) => void,
    arg: unknown,
    label: string,
    ref: string | null,
  ): Timer {
    let seq: number;
    if (this.forcedSeq === null) seq = zone.seq++;
    else {
      seq = this.forcedSeq;
      zone.seq = Math.max(zone.seq, seq + 1);
    }
    const timer = new Timer(at, seq, fn, arg, label, ref, zone);
    zone.push(timer);
    zone.track(timer);
    zone.live++;
    this.live++;
    // sooner than whatever is armed: it is the soonest, so arm for it without looking at the others
    const due = at - zone.offsetMs;
    if (due < this.armedFor) this.armAt(due);
    return timer;
  }

  private kill(timer: Timer): void {
    timer.cancelled = true;
    timer.zone.bySeq.delete(timer.seq);
    timer.zone.live--;
    this.live--;
  }

  cancel(handle: TimerHandle): void {
    const timer = handle as Timer;
    if (timer.cancelled) return;
    this.kill(timer);
  }

  /** The sandbox clock's offset, its own timers as data and its own last advances (D-137, D-156). */
  exportState(): ClockState {
    return {
      offsetMs: this.offsetMs,
      seq: this.root.seq,
      timers: this.timersOf(this.root),
      advances: structuredClone(this.root.advances),
    };
  }

  /** Takes the offset and history of an exported clock; the timers are re-armed by their services. */
  importState(state: ClockState): void {
    this.offsetMs = state.offsetMs;
    this.root.seq = Math.max(this.root.seq, state.seq);
    // a snapshot written before D-156 lists every clock's advances here: the sandbox clock's are its own
    this.root.advances = structuredClone(state.advances.filter((a) => a.tenantId === null));
  }

  /** Runs `rearm`, whose one timer takes the creation number `seq` it had when exported (import only). */
  rearmAs(seq: number, rearm: () => void): void {
    this.forcedSeq = seq;
    try {
      rearm();
    } finally {
      this.forcedSeq = null;
    }
  }

  /**
   * One tenant's clock: its offset, its pending timers as data and its last advances; null: never used. `lazy` (a
   * snapshot's): the timers are listed as they are read, each as it was at the export (a timer's data never changes),
   * and a writer may keep the text of full blocks of them while the timers are the same ones (slicedJson.ts, D-161):
   * a tenant with 60,000 requests awaiting review spent 8-18 ms of every snapshot's copy making their data.
   */
  exportTenant(tenantId: string, lazy = false): ClockState | null {
    const zone = this.zones.get(tenantId);
    if (!zone) return null;
    let timers: ClockState['timers'];
    if (!lazy) timers = this.timersOf(zone);
    else {
      const live = zone.liveInOrder();
      const item = (i: number) => timerData(live[i]);
      timers = new LazyList(live.length, item, (i) => JSON.stringify(item(i)), {
        source: zone,
        token: (i, into) => void into.push(live[i]),
      });
    }
    return { offsetMs: zone.offsetMs, seq: zone.seq, timers, advances: structuredClone(zone.advances) };
  }

  /** Makes a tenant's clock from its exported state, without timers (its services re-arm them). */
  importTenant(tenantId: string, state: ClockState | null): void {
    if (state === null) return;
    this.of(tenantId);
    const zone = this.zones.get(tenantId)!;
    zone.offsetMs = state.offsetMs;
    zone.seq = state.seq;
    zone.advances = structuredClone(state.advances);
  }

  /** A zone's live timers in creation order. */
  private timersOf(zone: Zone): TimerData[] {
    return zone.liveInOrder().map(timerData);
  }

  /** Pending timers: all, or one tenant's. */
  pendingTimers(tenantId?: string): number {
    return tenantId === undefined ? this.live : (this.zones.get(tenantId)?.live ?? 0);
  }

  /** Drops every timer and every tenant clock (reset, shutdown); the sandbox clock keeps its time. */
  clear(): void {
    for (const z of [this.root, ...this.zones.values()]) z.retire();
    this.zones.clear();
    this.tenantClocks.clear();
    this.live = 0;
    this.root.advances = [];
    this.arm();
  }

  /** The zone whose soonest timer is due first (on the sandbox clock) at or before `now`, or null. */
  private nextDue(now: number): Zone | null {
    let best: Zone | null = null;
    let bestDue = Infinity;
    let bestSeq = Infinity;
    for (const z of this.zoneList()) {
      const due = z.dueOnSandbox();
      if (due > now) continue;
      const seq = z.heap[0].seq;
      if (due < bestDue || (due === bestDue && seq < bestSeq)) {
        best = z;
        bestDue = due;
        bestSeq = seq;
      }
    }
    return best;
  }

  private *zoneList(): Iterable<Zone> {
    yield this.root;
    yield* this.zones.values();
  }

  /** Fires the timers due now, in the order they are due: every zone's, or one zone's (`only`). */
  private fireDue(only: Zone | null): void {
    const now = this.now();
    const next = only ? () => (only.dueOnSandbox() <= now ? only : null) : () => this.nextDue(now);
    for (let z = next(); z !== null; z = next()) {
      // fire this zone's timers while they stay ahead of every other zone's
      const t = z.pop()!;
      if (t.cancelled) continue;
      this.kill(t);
      this.onFire?.(z.tenantId);
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

  /** Arms the real timer for the soonest timer of every zone. */
  private arm(): void {
    let soonest = Infinity;
    for (const z of this.zoneList()) soonest = Math.min(soonest, z.dueOnSandbox());
    this.armAt(soonest);
  }

  private armAt(due: number): void {
    if (this.handle) clearTimeout(this.handle);
    this.handle = null;
    this.armedFor = due;
    if (due === Infinity) return;
    const delay = Math.max(0, Math.min(due - this.now(), 2 ** 31 - 1));
    this.handle = setTimeout(this.onTimer, delay);
    this.handle.unref();
  }

  private readonly onTimer = () => {
    this.handle = null;
    this.armedFor = Infinity;
    if (!this.dispatcher) return this.fireDue(null);
    const zones = this.dueZones();
    // none due (their timers were cancelled): armed for the soonest again, as a firing would
    if (zones.length) this.dispatcher(zones);
    else this.arm();
  };
}
