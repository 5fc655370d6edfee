// Tenants resident on demand (D-150, docs/design/tenant-partitions.md, stage B): an instance of a shared sandbox
// keeps in memory the tenants in use and the state of no tenant; every other tenant's slice is stored in
// `sandbox_tenant_states`, as of a step of the log. A step or a read of a tenant that is not in memory first loads
// the tenant's newest stored state at or before the step it has applied. That state is exact, because a tenant's
// state changes only by steps of its own partition (route.ts, test/partition-route.test.ts) and by steps of every
// tenant (`all`), before which every tenant is loaded; the steps of the tenant after it are those the instance
// skipped (D-172: the replica applies them from the log after the load), and no other.
// A tenant whose steps come only from other instances is dropped at once (`write`'s named tenants, D-172): its copy
// is its state, and a load of it waits until that state is written.
// A snapshot's tenant parts are stored states too (as of the snapshot's step); pruning a snapshot keeps, as rows,
// the parts no newer state supersedes.
// Beyond a bound, the tenants used least recently are written to that table and dropped from memory, except a
// tenant with work under way that its exported state does not carry on (an attempt awaiting its answer, a
// listener connected), which a start also loads at once (snapshotter.ts's `eager` list). A tenant's timers are
// data of its state: the instance keeps, for each tenant it dropped, when its soonest timer is due, and queues that
// tenant's timers step then (D-154), which loads it first; a timers step of every zone (a start's) first loads every
// tenant whose timer is due by the step's time, so every instance fires the same timers (the list of due times is
// part of a snapshot, for a start).
// A tenant read from its stored state is decompressed in pieces and has its records made in slices before it is put
// in memory (D-170).
// Requirements: none of the documents; decisions D-150, D-112, D-146, D-170, D-172.

import type { StoreReport } from '../domain/store.js';
import type { Db } from '../store/postgres/pool.js';
import { READABLE_SNAPSHOT_FORMATS, SNAPSHOT_FORMAT } from '../domain/snapshot.js';
import { insertTenantStates, newestStoredState } from './snapshots.js';
import type { ReplicaTiming } from './replica.js';
import { describeWriter, type Writer } from './versions.js';
import {
  FOREGROUND,
  JSON_SLICE_MS,
  type Pace,
  slicedEach,
  slicedGunzip,
  slicedGzip,
  slicedParse,
  slicedWork,
} from './slicedJson.js';

/** The tenants of the state in memory, as residency needs them (the composition root wires the domain's). */
export interface ResidentPort {
  /** The tenants in memory. */
  residentIds(): readonly string[];
  isResident(tenantId: string): boolean;
  /** Work under way that the exported state does not carry on: the tenant stays in memory. */
  busy(tenantId: string): boolean;
  /** When the tenant's soonest timer is due, on the sandbox clock (Infinity: none). */
  nextDue(tenantId: string): number;
  /** How far the sandbox clock is ahead of real time, in ms. */
  sandboxOffset(): number;
  /**
   * Copies of the tenants' slices, JSON-safe, in the order given; what never changes once written may be lists made
   * when read (as a snapshot's, D-151), so their JSON is made in slices (`slicedJson`).
   */
  exportTenants(tenantIds: readonly string[]): unknown[];
  /**
   * Makes in slices (yielding between them) what `importTenant` of the same `data` then only puts in place: the
   * bulk of a long history (D-170). Changes nothing in memory.
   */
  prepareTenant(tenantId: string, data: unknown): Iterator<void, unknown>;
  /** Puts a tenant's slice back (it is not in memory). */
  importTenant(tenantId: string, data: unknown): void;
  forgetTenants(tenantIds: readonly string[]): void;
}

/** A tenant's stored state read and parsed, not yet in memory (`Residency.read`). */
export interface ReadState {
  tenantId: string;
  data: unknown;
  /** The step it was stored at. */
  seq: number;
}

/** What this instance did with tenants, for the operator (GET /sandbox/v1/store's `instance.residency`). */
export type ResidencyActivity = NonNullable<NonNullable<StoreReport['instance']>['residency']>;

/** Tenants loaded per round trip (a step of every tenant loads them all). */
const LOAD_PAGE = 200;
/** Rows per INSERT when tenants are dropped. */
const EVICT_PER_INSERT = 200;

const tenth = (ms: number) => Math.round(ms * 10) / 10;

/**
 * The newest stored state of each tenant at or before step `upTo`: a row, or a part of a snapshot. Only the newest
 * one's data is read (a tenant dropped many times has many rows until the next snapshot prunes them).
 */
const NEWEST_SQL = `SELECT t.id AS tenant_id, n.seq, n.data, n.snapshot_format, n.code_version
   FROM unnest($1::text[]) AS t(id)
   CROSS JOIN LATERAL ${newestStoredState('t.id', '$2')} n`;

/** A stored state this version cannot read, named with the version that wrote it and the way forward. */
export function refuseTenantState(
  row: { tenant_id: string; seq: number; snapshot_format: number; code_version: string },
  mine: Writer,
): Error {
  return new Error(
    `the stored state of tenant ${row.tenant_id} (step ${row.seq}) has snapshot format ${row.snapshot_format}, written by ${describeWriter({ logFormat: mine.logFormat, codeVersion: row.code_version })}; this instance (${describeWriter(mine)}) reads snapshot formats ${READABLE_SNAPSHOT_FORMATS.join(', ')}: start the version that wrote it, or reset the sandbox`,
  );
}

export class Residency {
  private port: ResidentPort | null = null;
  /** When each tenant in memory was last used (a step or a read of it), as a count of uses. */
  private used = new Map<string, number>();
  private uses = 0;
  /** For each tenant not in memory that has timers: when its soonest one is due, on the sandbox clock. */
  private due = new Map<string, number>();
  private readonly counts = { loaded: 0, loadedAhead: 0, loadMs: 0, evicted: 0, evictMs: 0, skipped: 0, replayed: 0 };
  /**
   * For each tenant in memory, when (real time, ms) a call or read of it last ran here, and when a step of it that
   * another instance ran was last applied here: a tenant whose steps only come from elsewhere is dropped after a
   * while, so that its steps are skipped from then on (D-172).
   */
  private readonly servedAt = new Map<string, number>();
  private readonly foreignAt = new Map<string, number>();
  /** How many calls and reads of tenants arrived here, and the count at each tenant's last one. */
  private served = 0;
  private readonly servedCount = new Map<string, number>();
  /** The tenants `write` is writing, and whether a step changed each since its copy (`changed`). */
  private readonly leaving = new Map<string, boolean>();
  /** The tenants whose state is being read ahead, and whether each was loaded or dropped since (`watch`). */
  private readonly watched = new Map<string, boolean>();

  constructor(
    private readonly db: Db,
    /** Tenants kept in memory beyond those with work under way (Infinity: every tenant, nothing stored). */
    readonly bound: number,
    private readonly writer: Writer,
    /** Tests only: how long each read waits before it starts (ReplicaTiming.readPauseMs). */
    private readonly readPauseMs: number,
    /** How long the tenants named to leave at once may take to forget, in one round of `write` (ReplicaTiming). */
    private readonly dropSliceMs: number,
  ) {}

  /** Whether tenants are loaded on demand: always, once the tenants in memory are held (a scratch core holds none). */
  get on(): boolean {
    return this.port !== null;
  }

  /** Whether idle tenants are dropped beyond the bound (0 given: never, every tenant stays once loaded). */
  get drops(): boolean {
    return this.port !== null && Number.isFinite(this.bound);
  }

  hold(port: ResidentPort): void {
    this.port = port;
  }

  /** Who hears of each tenant loaded (with the step of its stored state) and dropped (null). */
  private stored: (tenantId: string, seq: number | null) => void = () => {};

  whenStored(fn: (tenantId: string, seq: number | null) => void): void {
    this.stored = fn;
  }

  /** A step or a read used the tenant. */
  touch(tenantId: string): void {
    this.used.set(tenantId, ++this.uses);
  }

  /**
   * Forgets the use of tenants no longer in memory that were not dropped (a reset removed them), and the due
   * times of dropped tenants that no longer exist (`exists`: the directory's answer).
   */
  forgetGone(exists: (tenantId: string) => boolean): void {
    const port = this.port;
    if (!port) return;
    for (const id of this.used.keys()) if (!port.isResident(id)) this.used.delete(id);
    for (const m of [this.servedAt, this.foreignAt, this.servedCount])
      for (const id of m.keys()) if (!port.isResident(id)) m.delete(id);
    for (const id of this.due.keys()) if (!exists(id)) this.due.delete(id);
  }

  /** How many tenants' uses are remembered (every one in memory, at most). */
  usesKept(): number {
    return this.used.size;
  }

  /** Whether the tenant is in memory (always, when tenants are not loaded on demand). */
  holds(tenantId: string): boolean {
    return this.port?.isResident(tenantId) ?? true;
  }

  /** The tenants of `ids` that are not in memory. */
  missing(ids: Iterable<string>): string[] {
    const port = this.port;
    if (!port) return [];
    const out: string[] = [];
    for (const id of ids) if (!port.isResident(id)) out.push(id);
    return out;
  }

  /**
   * Loads the tenants `ids` (none of them in memory) from their newest stored state at or before step `upTo`
   * (the step this instance has applied); `around` runs the imports (the replica drops the work they defer).
   * `every`: the ids are the directory's, which may name tenants a later step creates (at a start, the directory
   * is the log head's): those are passed over.
   */
  async load(
    ids: readonly string[],
    upTo: number,
    around: (fn: () => void) => void,
    every = false,
  ): Promise<{ tenantId: string; seq: number }[]> {
    const t0 = performance.now();
    const out: { tenantId: string; seq: number }[] = [];
    for (let i = 0; i < ids.length; i += LOAD_PAGE) {
      const states = await this.read(ids.slice(i, i + LOAD_PAGE), upTo, every);
      this.adopt(states, around);
      for (const { tenantId, seq } of states) out.push({ tenantId, seq });
    }
    this.counts.loadMs += performance.now() - t0;
    return out;
  }

  /**
   * The newest stored states of the tenants `ids` at or before step `upTo`, read and parsed (in slices between
   * which calls run, D-160), not yet in memory: `adopt` puts them there. Read outside any step (a prefetch), such
   * a state is still the tenant's exact one when `adopt` runs if the tenant was neither loaded nor dropped since
   * (`watch`, `unwatch`): every step of a tenant runs with the tenant in memory.
   */
  async read(
    ids: readonly string[],
    upTo: number,
    every = false,
    pace: Readonly<Pace> = FOREGROUND,
  ): Promise<ReadState[]> {
    if (this.readPauseMs) await new Promise((r) => setTimeout(r, this.readPauseMs));
    const { rows } = await this.db.query<{
      tenant_id: string;
      seq: number;
      data: Buffer;
      snapshot_format: number;
      code_version: string;
    }>(NEWEST_SQL, [ids, upTo]);
    if (rows.length !== ids.length && !every) {
      const found = new Set(rows.map((r) => r.tenant_id));
      const lost = ids.filter((id) => !found.has(id));
      throw new Error(
        `tenant ${lost.join(', ')} is in the directory but has no stored state at or before step ${upTo}`,
      );
    }
    const out: ReadState[] = [];
    for (const r of rows) {
      if (!READABLE_SNAPSHOT_FORMATS.includes(r.snapshot_format)) throw refuseTenantState(r, this.writer);
      // decompressed in pieces, parsed in slices (D-160, D-170)
      const data = await slicedParse(await slicedGunzip(r.data), pace.sliceMs, pace.restRatio);
      // the records of a long history made now, in slices, so that `adopt` only puts them in place (D-170)
      if (this.port) await slicedWork(this.port.prepareTenant(r.tenant_id, data), pace.sliceMs, pace.restRatio);
      out.push({ tenantId: r.tenant_id, data, seq: Number(r.seq) });
    }
    return out;
  }

  /**
   * Puts tenants' states read by `read` in memory (between steps); `around` runs the imports. `ahead`: read
   * before their calls took a turn (a prefetch).
   */
  adopt(states: readonly ReadState[], around: (fn: () => void) => void, ahead = false): void {
    const port = this.port!;
    around(() => {
      for (const { tenantId, data, seq } of states) {
        port.importTenant(tenantId, data);
        this.due.delete(tenantId);
        this.touch(tenantId);
        this.stored(tenantId, seq);
        this.moved(tenantId);
      }
    });
    this.counts.loaded += states.length;
    if (ahead) this.counts.loadedAhead += states.length;
  }

  /** A read ahead of the tenant's state begins: from now on, its load or drop here is noted (`unwatch`). */
  watch(tenantId: string): void {
    this.watched.set(tenantId, false);
  }

  /** The read ahead is over: whether the tenant stayed as it was (neither loaded nor dropped since `watch`). */
  unwatch(tenantId: string): boolean {
    const moved = this.watched.get(tenantId) !== false;
    this.watched.delete(tenantId);
    return !moved;
  }

  /**
   * A step of the tenant, not in memory here, was skipped (D-172): its timers are its holder's to fire. A read of its
   * state under way stays good: the replica applies the skipped steps after it (D-175).
   */
  skipped(tenantId: string): void {
    this.due.delete(tenantId);
    this.counts.skipped++;
  }

  /** Steps of tenants skipped earlier, applied when they were loaded (D-172). */
  countReplayed(n: number): void {
    this.counts.replayed += n;
  }

  /**
   * A call or read of the tenant arrived (`arrived`) or ran here (`live`), or a step of it that another instance ran was
   * applied here.
   */
  usedBy(tenantId: string, live: boolean, arrived = false): void {
    (live ? this.servedAt : this.foreignAt).set(tenantId, performance.now());
    // counted once, as it arrives (or as it runs, when its tenant was not known as it arrived)
    if (live && arrived) this.servedCount.set(tenantId, ++this.served);
    else if (live && !this.servedCount.has(tenantId)) this.servedCount.set(tenantId, this.served);
  }

  /**
   * The tenants in memory whose steps came only from other instances for `foreignIdleMs` and `foreignIdleCalls` calls
   * of other tenants here, or for `foreignIdleLongMs` (none of their calls arrived here meanwhile, and none is
   * `waiting`): dropping them lets this instance skip their steps (D-172, D-192).
   */
  foreignOnly(
    {
      foreignIdleMs: idleMs,
      foreignIdleCalls: idleCalls,
      foreignIdleLongMs: longMs,
    }: Readonly<Pick<ReplicaTiming, 'foreignIdleMs' | 'foreignIdleCalls' | 'foreignIdleLongMs'>>,
    waiting: () => ReadonlySet<string>,
  ): string[] {
    const now = performance.now();
    const out: string[] = [];
    let calls: ReadonlySet<string> | null = null;
    for (const [id, at] of this.foreignAt) {
      const served = this.servedAt.get(id) ?? -Infinity;
      if (at <= served || now - served < idleMs || !this.port?.isResident(id)) continue;
      // and `idleCalls` calls of other tenants arrived here since its last one: an instance held up (its calls wait
      // for a load, so no new ones arrive) drops nothing for that; but an instance with few calls of its own drops it
      // after `longMs` (D-192)
      if (this.served - (this.servedCount.get(id) ?? -Infinity) < idleCalls && now - served < longMs) continue;
      // a tenant with calls waiting here is served here, however long they have waited
      calls ??= waiting();
      if (!calls.has(id)) out.push(id);
    }
    return out;
  }

  private moved(tenantId: string): void {
    if (this.watched.has(tenantId)) this.watched.set(tenantId, true);
  }

  /** Time spent reading a tenant's state outside any step (a prefetch), counted with the loads. */
  countLoad(ms: number): void {
    this.counts.loadMs += ms;
  }

  /**
   * Beyond the bound (with some slack, so that dropping tenants is done in rounds), writes the tenants used
   * least recently to their stored state as of step `at` and drops them from memory; never one that is busy or
   * in `keep`. The rows are committed before the tenants are dropped.
   */
  async evict(at: number, keep: ReadonlySet<string>, extra: readonly string[] = []): Promise<void> {
    this.drop(await this.write(at, keep, extra), keep);
  }

  /**
   * The first half of `evict`, which may run while steps run (D-160): the tenants to drop are chosen and copied
   * now, between steps, as of step `at`; their stored states are written in the background. `drop` then drops
   * them, between steps, unless a step changed one of them meanwhile (`changed`): that one stays in memory, and
   * the state written is still its exact state as of `at`.
   */
  async write(at: number, keep: ReadonlySet<string>, extra: readonly string[] = []): Promise<string[]> {
    const port = this.port;
    if (!port || !this.drops) return [];
    const ids = port.residentIds();
    const slack = Math.floor(this.bound / 16);
    const going: string[] = [];
    const t0 = performance.now();
    // the tenants named (their steps come only from elsewhere, D-172), whatever the bound, leave memory now, each
    // copied as it leaves: the copy is its state as of `at`, its steps (which keep coming from elsewhere) are skipped
    // from now on instead of applied here, and a load of it waits for the write. Forgetting a long history takes
    // milliseconds, during which no call runs: as many leave as fit in `dropSliceMs` (one at least), the others at
    // the next rounds (D-192)
    const leaves = (id: string) => !keep.has(id) && !this.leaving.has(id) && port.isResident(id) && !port.busy(id);
    const copies: unknown[] = [];
    for (const id of new Set(extra)) {
      if (going.length && performance.now() - t0 >= this.dropSliceMs) break;
      if (!leaves(id)) continue;
      going.push(id);
      this.leaving.set(id, false);
      copies.push(port.exportTenants([id])[0]);
      this.forget([id]);
    }
    const named = going.length;
    if (ids.length > this.bound + slack) {
      const order = ids
        .filter((id) => !keep.has(id) && !this.leaving.has(id) && !going.includes(id))
        .map((id) => [id, this.used.get(id) ?? 0] as const)
        .sort((a, b) => a[1] - b[1]);
      for (const [id] of order) {
        if (ids.length - going.length <= this.bound) break;
        if (!port.busy(id)) going.push(id);
      }
    }
    if (!going.length) return [];
    const chosen = going.slice(named);
    for (const id of chosen) this.leaving.set(id, false);
    // the others' copies now, between steps (a copy is cheap: a list of the requests, each exported when read, D-167)
    copies.push(...port.exportTenants(chosen));
    for (let i = 0; i < going.length; i += EVICT_PER_INSERT) {
      const page = going.slice(i, i + EVICT_PER_INSERT);
      // one tenant after the other, in slices between which calls are read (a tenant with a long history is
      // megabytes of JSON, D-159; a page of small tenants made side by side held calls up for 200 ms, D-168), with
      // its leaves on lines of their own, so that a load reads it in slices too (D-160)
      const rows = await slicedEach(page, FOREGROUND, async (id, k) => {
        const copy = copies[i + k];
        copies[i + k] = null;
        return { tenantId: id, ...(await slicedGzip(copy, JSON_SLICE_MS, true)) };
      });
      await insertTenantStates(this.db, at, rows, SNAPSHOT_FORMAT, this.writer.codeVersion);
    }
    this.counts.evictMs += performance.now() - t0;
    return going;
  }

  /**
   * The second half of `evict`, between steps: drops the tenants `write` wrote, except those a step changed since
   * their copy, those that became busy or are now in `keep`, and those no longer in memory.
   */
  drop(ids: readonly string[], keep: ReadonlySet<string>): void {
    const port = this.port;
    if (!port || !ids.length) return;
    const gone: string[] = [];
    for (const id of ids) {
      const changed = this.leaving.get(id) !== false;
      this.leaving.delete(id);
      if (changed || keep.has(id) || !port.isResident(id) || port.busy(id)) continue;
      gone.push(id);
    }
    this.forget(gone);
  }

  /** Whether the tenant's stored state is being written (`write`): a load of it waits for the write. */
  writing(tenantId: string): boolean {
    return this.leaving.has(tenantId);
  }

  /** Drops tenants from memory, between steps, their stored states written or being written. */
  private forget(gone: readonly string[]): void {
    const port = this.port;
    if (!port || !gone.length) return;
    for (const id of gone) {
      this.stored(id, null);
      this.moved(id);
      const due = port.nextDue(id);
      if (Number.isFinite(due)) this.due.set(id, due);
      this.used.delete(id);
      this.servedAt.delete(id);
      this.foreignAt.delete(id);
      this.servedCount.delete(id);
    }
    port.forgetTenants(gone);
    this.counts.evicted += gone.length;
  }

  /**
   * A step changed the tenant (null: every tenant, a step of every tenant): one being written by `write` is not
   * dropped by `drop`.
   */
  changed(tenantId: string | null): void {
    if (!this.leaving.size) return;
    if (tenantId === null) for (const id of this.leaving.keys()) this.leaving.set(id, true);
    else if (this.leaving.has(tenantId)) this.leaving.set(tenantId, true);
  }

  /** How far the sandbox clock is ahead of real time, in ms. */
  private sandboxOffset(): number {
    return this.port?.sandboxOffset() ?? 0;
  }

  /** The tenants in memory. */
  residentIds(): readonly string[] {
    return this.port?.residentIds() ?? [];
  }

  /** The tenants in memory that must stay there: busy, or in `keep` (a start loads them at once). */
  busyOrKept(keep: ReadonlySet<string>): string[] {
    const port = this.port;
    if (!port) return [];
    return port.residentIds().filter((id) => keep.has(id) || port.busy(id));
  }

  /** The tenants not in memory whose soonest timer is due by `realNow` (real time: on the sandbox clock, plus its offset). */
  dueBy(realNow: number): string[] {
    const sandboxNow = realNow + this.sandboxOffset();
    const out: string[] = [];
    for (const [id, at] of this.due) if (at <= sandboxNow) out.push(id);
    return out;
  }

  /** When the soonest timer of a tenant not in memory is due, in real time (Infinity: none). */
  soonestDueReal(): number {
    let soonest = Infinity;
    for (const at of this.due.values()) soonest = Math.min(soonest, at);
    return this.port && Number.isFinite(soonest) ? soonest - this.port.sandboxOffset() : Infinity;
  }

  /** Every tenant's soonest timer, in memory or not (a snapshot keeps it for a start). */
  dueList(): [string, number][] {
    const out = [...this.due];
    const port = this.port;
    if (port)
      for (const id of port.residentIds()) {
        const at = port.nextDue(id);
        if (Number.isFinite(at)) out.push([id, at]);
      }
    return out;
  }

  /** At a start that loaded only some tenants: the due times of the others, from the snapshot. */
  restoreDue(list: readonly [string, number][]): void {
    const port = this.port;
    for (const [id, at] of list) if (!port?.isResident(id)) this.due.set(id, at);
  }

  activity(): ResidencyActivity {
    return {
      bound: Number.isFinite(this.bound) ? this.bound : null,
      resident: this.port?.residentIds().length ?? 0,
      loaded: this.counts.loaded,
      loadedAhead: this.counts.loadedAhead,
      loadMs: tenth(this.counts.loadMs),
      evicted: this.counts.evicted,
      evictMs: tenth(this.counts.evictMs),
      skipped: this.counts.skipped,
      replayed: this.counts.replayed,
    };
  }
}
