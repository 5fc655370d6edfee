import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Clock } from './clock.js';

describe('sandbox clock', () => {
  it('fires due timers in time order when advanced, and skips cancelled ones', () => {
    const base = 1_700_000_000_000;
    const clock = new Clock(() => base);
    const fired: string[] = [];
    clock.schedule(base + 3000, () => fired.push('c'));
    clock.schedule(base + 1000, () => fired.push('a'));
    const cancel = clock.schedule(base + 2000, () => fired.push('b'));
    clock.schedule(base + 1000, () => fired.push('a2'));
    clock.schedule(base + 10_000, () => fired.push('late'));
    cancel();
    expect(clock.pendingTimers()).toBe(4);
    clock.advance(5);
    expect(fired).toEqual(['a', 'a2', 'c']);
    expect(clock.pendingTimers()).toBe(1);
    expect(clock.now()).toBe(base + 5000);
    clock.clear();
    clock.advance(100);
    expect(fired).toEqual(['a', 'a2', 'c']);
  });

  it('exports exactly its live timers in creation order, whatever was scheduled, cancelled, fired or re-armed out of order (D-158)', () => {
    const op = fc.oneof(
      fc.record({ t: fc.constant('schedule' as const), in: fc.integer({ min: 1, max: 50 }) }),
      fc.record({ t: fc.constant('cancel' as const), pick: fc.nat() }),
      fc.record({ t: fc.constant('advance' as const), s: fc.integer({ min: 0, max: 30 }) }),
      // a timer re-armed from a snapshot takes the creation number it had: here lower than any made (and unique)
      fc.record({
        t: fc.constant('rearm' as const),
        seq: fc.integer({ min: -40, max: -1 }),
        in: fc.integer({ min: 1, max: 50 }),
      }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const base = 1_700_000_000_000;
        const clock = new Clock(() => base);
        const live = new Map<string, () => void>();
        let n = 0;
        const add = (inS: number) => {
          const label = `t${n++}`;
          live.set(
            label,
            clock.schedule(clock.now() + inS * 1000, () => live.delete(label), label),
          );
        };
        const used = new Set<number>();
        for (const o of ops) {
          if (o.t === 'schedule') add(o.in);
          else if (o.t === 'cancel' && live.size) {
            const [label, cancel] = [...live][o.pick % live.size];
            cancel();
            live.delete(label);
          } else if (o.t === 'advance') clock.advance(o.s);
          else if (o.t === 'rearm' && !used.has(o.seq)) {
            used.add(o.seq);
            clock.rearmAs(o.seq, () => add(o.in));
          }
          const timers = [...clock.exportState().timers];
          expect(timers.map((t) => t.label).sort()).toEqual([...live.keys()].sort());
          for (let i = 1; i < timers.length; i++) expect(timers[i].seq).toBeGreaterThan(timers[i - 1].seq);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("forgets a tenant's clock whole: its timers never fire, the counts drop by its live ones, a later cancel of one changes nothing", () => {
    const base = 1_700_000_000_000;
    const clock = new Clock(() => base);
    const fired: string[] = [];
    const [a, b] = [clock.of('ten_a'), clock.of('ten_b')];
    const cancelA = [1, 2, 3].map((s) => a.schedule(base + s * 1000, () => fired.push(`a${s}`)));
    const handleA = a.scheduleCall(base + 4000, (x: string) => fired.push(x), 'a4');
    b.schedule(base + 2000, () => fired.push('b'));
    clock.schedule(base + 3000, () => fired.push('root'));
    cancelA[1]();
    expect([clock.pendingTimers(), clock.pendingTimers('ten_a')]).toEqual([5, 3]);
    clock.forget('ten_a');
    expect([clock.pendingTimers(), clock.pendingTimers('ten_a'), clock.pendingTimers('ten_b')]).toEqual([2, 0, 1]);
    // its services cancel what they hold after the clock went (snapshot.ts's forgetRecords): nothing is counted twice
    cancelA[0]();
    a.cancel(handleA);
    expect(clock.pendingTimers()).toBe(2);
    clock.advance(10);
    expect(fired).toEqual(['b', 'root']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('refuses to move backwards', () => {
    const clock = new Clock(() => 0);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it('keeps scheduling and cancelling cheap for many timers', () => {
    const clock = new Clock(() => 0);
    const cancels = Array.from({ length: 100_000 }, (_, i) => clock.schedule(1000 + i, () => {}));
    for (const c of cancels) c();
    expect(clock.pendingTimers()).toBe(0);
    clock.clear();
  });

  it("keeps each tenant's timers on its own clock: a tenant advance fires only that tenant's, the sandbox advance everyone's, in time order", () => {
    const base = 1_700_000_000_000;
    const clock = new Clock(() => base);
    const fired: string[] = [];
    const a = clock.of('ten_a');
    const b = clock.of('ten_b');
    a.schedule(base + 60_000, () => fired.push('a60'), 'review expiry', 'a');
    b.schedule(base + 30_000, () => fired.push('b30'));
    b.schedule(base + 90_000, () => fired.push('b90'));
    clock.schedule(base + 45_000, () => fired.push('sandbox45'));
    expect(clock.pendingTimers('ten_a')).toBe(1);
    expect(clock.pending(10, 'ten_b').soonest.map((t) => t.tenantId)).toEqual(['ten_b', 'ten_b']);
    clock.advanceTenant('ten_a', 60);
    expect(fired).toEqual(['a60']);
    expect(a.now()).toBe(base + 60_000);
    expect(b.now()).toBe(base);
    expect(clock.history('ten_a')[0]).toMatchObject({ tenantId: 'ten_a', fired: 1, byLabel: { 'review expiry': 1 } });
    expect(clock.history('ten_b')).toEqual([]);
    // on the sandbox clock: b's at 30 s, a's at 100 - 60 = 40 s, the sandbox's at 45 s; b's 90 s stays
    a.schedule(base + 60_000 + 40_000, () => fired.push('a100'));
    clock.advance(50);
    expect(fired).toEqual(['a60', 'b30', 'a100', 'sandbox45']);
    expect(b.now()).toBe(base + 50_000);
    expect(a.now()).toBe(base + 110_000);
    expect(clock.pendingTimers()).toBe(1);
    clock.clear();
    expect(clock.of('ten_a').offsetMs).toBe(0);
  });

  it("fires only the advanced tenant's timers, even when another tenant's came due in real time and wait for their turn (D-154)", () => {
    let real = 1_700_000_000_000;
    const clock = new Clock(() => real);
    const fired: string[] = [];
    const told: (string | null)[][] = [];
    // a store that fires timers as recorded steps: the clock only says whose are due
    clock.dispatchDueTo((zones) => told.push(zones));
    clock.of('ten_a').schedule(real + 60_000, () => fired.push('a60'));
    clock.of('ten_b').schedule(real + 1_000, () => fired.push('b1'));
    clock.schedule(real + 2_000, () => fired.push('sandbox2'));
    real += 5_000;
    expect(clock.dueZones()).toEqual([null, 'ten_b']);
    // a's advance fires a's timer and neither b's nor the sandbox clock's, though both are due by real time
    clock.advanceTenant('ten_a', 60);
    expect(fired).toEqual(['a60']);
    expect(clock.history('ten_a')[0]).toMatchObject({ fired: 1 });
    // b's timers step fires b's alone; then the step of every zone the sandbox clock's
    clock.fireDueNow('ten_b');
    expect(fired).toEqual(['a60', 'b1']);
    expect(clock.dueZones()).toEqual([null]);
    clock.fireDueNow('ten_unknown');
    clock.fireDueNow();
    expect(fired).toEqual(['a60', 'b1', 'sandbox2']);
    expect(clock.dueZones()).toEqual([]);
    clock.clear();
  });

  it('tells its dispatcher which zones are due when real time reaches them', async () => {
    const clock = new Clock();
    const told: (string | null)[][] = [];
    let resolve!: () => void;
    const heard = new Promise<void>((r) => (resolve = r));
    clock.dispatchDueTo((zones) => {
      told.push(zones);
      resolve();
    });
    const fired: string[] = [];
    clock.of('ten_b').schedule(clock.now() + 5, () => fired.push('b'));
    clock.of('ten_c').schedule(clock.now() + 60_000, () => fired.push('c'));
    await heard;
    // told, not fired: the store fires them as a step of ten_b
    expect(told).toEqual([['ten_b']]);
    expect(fired).toEqual([]);
    clock.fireDueNow('ten_b');
    expect(fired).toEqual(['b']);
    clock.clear();
  });

  it("keeps each clock's advances with it, and lists every clock's merged by the sandbox time they were made at (D-156)", () => {
    let real = 1_700_000_000_000;
    const clock = new Clock(() => real);
    clock.advanceTenant('ten_b', 10);
    real += 1_000;
    clock.advance(5);
    real += 1_000;
    clock.advanceTenant('ten_a', 20);
    clock.advanceTenant('ten_c', 30);
    const who = (list: { tenantId: string | null }[]) => list.map((a) => a.tenantId);
    // newest first; the two made in one millisecond by tenant id
    expect(who(clock.history())).toEqual(['ten_a', 'ten_c', null, 'ten_b']);
    expect(who(clock.history(null))).toEqual([null]);
    expect(who(clock.history('ten_b'))).toEqual(['ten_b']);
    // the ordering time is kept, not shown
    expect(Object.keys(clock.history()[0]).sort()).toEqual(['byLabel', 'fired', 'first', 'from', 'tenantId', 'to']);
    // the sandbox clock's state holds its own advances only; a state written before holds every clock's
    const state = clock.exportState();
    expect(who(state.advances)).toEqual([null]);
    const older = { ...state, advances: [{ ...state.advances[0], tenantId: 'ten_b' }, ...state.advances] };
    const next = new Clock(() => real);
    next.importState(older);
    expect(who(next.history())).toEqual([null]);
    clock.clear();
  });
});
