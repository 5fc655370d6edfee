// Taking the snapshots of a shared sandbox (D-138, D-146): which instance writes one (the one committing every
// N-th step), when (between batches; webhook attempts in flight are data of it), and how: the state exported
// by part (a copy, which later steps do not change) while calls wait, then each part turned into JSON and
// compressed in short slices between which calls run, and written in the background; loading one a part at
// a time; and what this instance did with snapshots, for the operator. The replica (replica.ts) says when a
// batch is committed.
// Requirements: none of its own; decisions D-138, D-146, D-137.

import { gunzipSync } from 'node:zlib';
import type { StoreReport } from '../domain/store.js';
import type { Db } from '../store/postgres/pool.js';
import { GLOBAL_PART, readParts, writeSnapshot, type CarriedPart, type EncodedPart } from './snapshots.js';
import { SNAPSHOT, slicedEach, slicedGzip } from './slicedJson.js';
import type { Writer } from './versions.js';

/**
 * The state as of one moment, by part: what belongs to no tenant, and every tenant held, in their order, with its
 * slice, or null when it was not exported (unchanged since a stored state: its part is copied from it, D-152).
 */
export interface StateParts {
  global: unknown;
  tenants: [string, unknown][];
}

/** The state the log rebuilds, as the domain exports and imports it (D-137), whole or one part at a time. */
export interface StatePort {
  /** The format of what `exportParts` returns. */
  readonly format: number;
  /**
   * A copy of the state by part, JSON-safe: the steps that run after it do not change it. `carried`: the tenants
   * not to export (their slice is null).
   */
  exportParts(carried?: (tenantId: string) => boolean): StateParts;
  /** Into the state of a sandbox that has run no step yet: a whole state (a snapshot stored before parts). */
  importState(state: unknown): void;
  /** The same one part at a time: the global part (the state of a sandbox that has run no step yet is replaced)… */
  beginImport(global: unknown): void;
  /** …each tenant's part, in their order… */
  importTenant(tenantId: string, data: unknown): void;
  /** …and the end: the timers of every part re-armed in the order they were made. */
  finishImport(): void;
}

/** The global part of a snapshot: the recorder's counters and what of the state belongs to no tenant. */
interface GlobalPart {
  replica: ReplicaCounters;
  state: unknown;
}

/** The recorder's own counters that a snapshot keeps beside the domain's state. */
export interface ReplicaCounters {
  /** The last attempt number of the one counter attempts were keyed by before D-153 (written no more). */
  sends?: number;
  lastNow: number;
  /** The webhook attempts awaiting their `sent` step, by key (the domain's deliveries name them); absent in format 1. */
  pending?: PendingSendState[];
  /**
   * The tenants a start loads at once (work under way: timers, attempts in flight, listeners), when the others
   * are loaded on demand (D-150); absent: a start loads every part.
   */
  eager?: string[];
  /** With `eager`: every tenant's soonest timer on the sandbox clock (a timers step loads a tenant whose timer is due). */
  due?: [string, number][];
  /**
   * The tenants whose steps the instance skipped since it last held them, with the first and last of those steps: a
   * start applies them when it loads the tenant, and loads these tenants at once (D-172).
   */
  behind?: [string, number, number][];
}

/** A webhook attempt awaiting its `sent` step, as a snapshot keeps it. */
export interface PendingSendState {
  /** The attempt's id (a number in a snapshot written before D-153). */
  key: string | number;
  /** Real time the attempt was made (the lost-attempt sweep counts from it). */
  startedAt: number;
  /** Made by the instance that took the snapshot (informative: after a load no attempt is the loader's). */
  live: boolean;
  /** The partition of the step that made it (its `sent` step's); absent before D-150: `all`. */
  partition?: string;
}

/** What a snapshot stored whole holds (written before parts): the domain's state and the recorder's counters. */
export interface SnapshotPayload {
  replica: ReplicaCounters;
  state: unknown;
}

/**
 * The snapshot a start loads: stored whole (its payload read when it was chosen), by part (read at the start,
 * one part at a time), or none (seq 0: replay the log from its first step).
 */
export interface LoadPlan {
  seq: number;
  payload: SnapshotPayload | null;
  /** Stored by part: how many, and the format they were written in. */
  parts?: number;
  snapshotFormat?: number;
}

/** What this instance did with snapshots, for the operator (GET /sandbox/v1/store). */
export interface SnapshotActivity {
  /** The step this instance has applied up to. */
  appliedSeq: number;
  /** Where its start began: the snapshot's step (0: the log's start) and the steps replayed after it. */
  loadedFrom: { seq: number; replayedSteps: number; readyMs: number } | null;
  /** The last snapshot it wrote: its step, how long calls waited while the state was exported, its size. */
  lastWritten: StoreReport['instance']['lastWritten'];
  /** Whether a snapshot is due here but waits for the one being written to finish, or as long again after it (D-184). */
  waiting: boolean;
  /** Whether a snapshot taken here is being made or written now (D-189). */
  writing: boolean;
}

const tenth = (ms: number) => Math.round(ms * 10) / 10;

export class Snapshotter {
  private state: StatePort | null = null;
  private wanted = false;
  private writing: Promise<void> | null = null;
  /**
   * When the last snapshot taken here was done being written, and how long it took from its export: the next one due
   * waits as long again (`restAfterWrite` times, D-184), so that writing snapshots takes at most about half of the
   * time however large the tenants that changed have grown (a busy tenant's part is made anew at each, D-161).
   */
  private lastWrite = { doneAt: 0, tookMs: 0 };
  /**
   * What this instance knows of each tenant's stored states (D-152): the step of the newest one it wrote or read
   * (`stored`), and the last step it applied that may have changed the tenant (`changed`; `allChanged` for every
   * tenant). A tenant whose stored state is at or after both is unchanged since: a snapshot copies that state as its
   * part instead of exporting it.
   */
  private readonly stored = new Map<string, number>();
  private readonly changed = new Map<string, number>();
  private allChanged = 0;
  /** The step of the last snapshot written here or by another instance first (D-174): a stop does not take it again. */
  private settledSeq = -1;
  readonly activity: Omit<SnapshotActivity, 'writing'> = {
    appliedSeq: 0,
    loadedFrom: null,
    lastWritten: null,
    waiting: false,
  };

  /** Whether a snapshot taken here is being made or written now (D-189). */
  get writingNow(): boolean {
    return this.writing !== null;
  }

  constructor(
    private readonly db: Db,
    private readonly writer: Writer,
    /** A snapshot every this many steps (Infinity: only at a clean stop). */
    private readonly every: number,
    /** This instance's name in `sandbox_instances`: its own report is not waited for when it prunes. */
    private readonly instance: string,
    /** Tests only: hears a copied part that differs from an export of its tenant made at once (null: not compared). */
    private readonly verify: ((err: Error) => void) | null = null,
    /** The rest after a snapshot written here, in times as long as it took (D-184). */
    private readonly restAfterWrite = 1,
  ) {}

  /** The state snapshots are taken of and loaded into (without it, none is written). */
  hold(port: StatePort): void {
    this.state = port;
  }

  /** Step `seq`, applied here, may have changed the tenant (null: every tenant). */
  changedBy(tenantId: string | null, seq: number): void {
    if (tenantId !== null) return void this.changed.set(tenantId, seq);
    // no stored state before it can be copied any more: what was known of each tenant is dropped (tenants a reset
    // removed included)
    this.allChanged = seq;
    this.changed.clear();
    this.stored.clear();
  }

  /** The tenant's state as of step `seq` is stored (written or read here): its part may be copied from it. */
  storedAt(tenantId: string, seq: number): void {
    if (seq > (this.stored.get(tenantId) ?? -1)) this.stored.set(tenantId, seq);
  }

  /** A tenant dropped from memory, or gone: nothing is known of it any more. */
  forget(tenantId: string): void {
    this.stored.delete(tenantId);
    this.changed.delete(tenantId);
  }

  /** The step of the stored state a snapshot may copy as the tenant's part; null: it must be exported. */
  private carryFrom(tenantId: string): number | null {
    const at = this.stored.get(tenantId);
    if (at === undefined || at < this.allChanged || at < (this.changed.get(tenantId) ?? 0)) return null;
    return at;
  }

  /** The JSON of the tenants `only` names, exported now. */
  private exportedText(only: ReadonlyMap<string, number>): Map<string, string> {
    const out = new Map<string, string>();
    for (const [id, slice] of this.state!.exportParts((t) => !only.has(t)).tenants)
      if (slice !== null) out.set(id, JSON.stringify(slice));
    return out;
  }

  /** Tests: each part the snapshot of `seq` copied is the JSON its tenant had when the snapshot was taken. */
  private async compareCopied(seq: number, truth: ReadonlyMap<string, string>): Promise<void> {
    // in one statement with its header: a snapshot other instances pruned meanwhile (its header goes before its
    // parts) is not compared
    const { rows: all } = await this.db.query<{ present: boolean; part: string | null; data: Buffer | null }>(
      `SELECT h.seq IS NOT NULL AS present, p.part, p.data FROM (SELECT 1) one
         LEFT JOIN sandbox_snapshots h ON h.seq = $1
         LEFT JOIN sandbox_snapshot_parts p ON p.seq = $1 AND p.part = ANY($2)`,
      [seq, [...truth.keys()]],
    );
    if (!all[0].present) return;
    const rows = all.filter((r): r is { present: boolean; part: string; data: Buffer } => r.part !== null);
    // the request log's measured durations are each instance's own (a part copied from another's snapshot has its)
    const measured = (text: string) =>
      JSON.stringify(JSON.parse(text, (k, v: unknown) => (k === 'durationMs' ? 0 : v)));
    for (const r of rows) {
      const copied = gunzipSync(r.data).toString('utf8');
      const [a, b] = [measured(copied), measured(truth.get(r.part)!)];
      if (a === b) continue;
      let at = 0;
      while (a[at] === b[at]) at++;
      const around = (t: string) => t.slice(Math.max(0, at - 80), at + 80);
      this.verify!(
        new Error(
          `the snapshot of step ${seq} copied a part of tenant ${r.part} that is not its state: they first differ at character ${at}, copied …${around(a)}… against …${around(b)}…`,
        ),
      );
    }
    if (rows.length !== truth.size) this.verify!(new Error(`the snapshot of step ${seq} lacks copied parts`));
  }

  /** Loads a snapshot stored whole into the held state. */
  load(payload: SnapshotPayload): void {
    this.port().importState(payload.state);
  }

  /**
   * Loads the snapshot of step `seq` stored by part, one part at a time (only a page of parts is read and
   * only one part parsed at once); `counters` hears the recorder's counters before the state is imported, and
   * may answer the only tenants whose parts are loaded (the others are loaded on demand, D-150).
   */
  async loadParts(seq: number, counters: (c: ReplicaCounters) => readonly string[] | void): Promise<void> {
    const port = this.port();
    let begun = false;
    await readParts(
      this.db,
      seq,
      (data) => {
        const g = data as GlobalPart;
        const only = counters(g.replica);
        port.beginImport(g.state);
        begun = true;
        return only;
      },
      (tenantId, data) => {
        port.importTenant(tenantId, data);
        // its state is the snapshot's part (D-152)
        this.storedAt(tenantId, seq);
      },
    );
    if (begun) port.finishImport();
  }

  /**
   * Imports the global part of a snapshot and the parts of the tenants given (a scratch core rebuilding one
   * tenant, loader.ts); `counters` hears the recorder's counters first.
   */
  importSome(global: unknown, tenants: [string, unknown][], counters: (c: ReplicaCounters) => void): void {
    const port = this.port();
    const g = global as GlobalPart;
    counters(g.replica);
    port.beginImport(g.state);
    for (const [tenantId, data] of tenants) port.importTenant(tenantId, data);
    port.finishImport();
  }

  private port(): StatePort {
    if (!this.state) throw new Error('a snapshot was chosen but this instance holds no state to load it into');
    return this.state;
  }

  /** This instance committed the steps after `from` up to `to`: the one committing every N-th step writes a snapshot. */
  committed(from: number, to: number): void {
    if (Math.floor(to / this.every) > Math.floor(from / this.every)) this.wanted = true;
  }

  /**
   * Between batches: takes the snapshot that is due. Webhook attempts in flight are data of it (the domain's
   * deliveries, the replica's pending keys, the attempts awaiting a listener's answer), so nothing but a
   * snapshot still being written, or the rest after it (D-184), puts it off: an idle instance takes it at its next
   * sweep (`keepUp`).
   */
  between(seq: number, counters: () => ReplicaCounters): void {
    if (!this.wanted) return;
    this.activity.waiting =
      this.writing !== null || performance.now() - this.lastWrite.doneAt < this.lastWrite.tookMs * this.restAfterWrite;
    if (this.activity.waiting || !this.state) return;
    this.wanted = false;
    this.take(seq, counters());
  }

  /**
   * At a clean stop, with every committed step applied and no step running (call it when no snapshot is
   * being written): takes a snapshot unless this one is written already.
   */
  atStop(seq: number, counters: ReplicaCounters): void {
    if (!this.state || seq === 0 || this.settledSeq === seq) return;
    // no call runs any more: no rest between slices
    this.take(seq, counters, 0);
  }

  /** Waits for a snapshot being written. */
  async settled(): Promise<void> {
    await this.writing;
  }

  /**
   * Exports the state as of `seq` now, by part (calls wait meanwhile: a copy, no JSON yet), then turns each part
   * into JSON in slices (`SNAPSHOT`: at most 4 ms, each followed by a pause three times as long, D-166, D-194) between which calls
   * run, compresses them off the event loop, and writes them in the background. Steps that run meanwhile do not change the copy: the snapshot is the state
   * after step `seq`.
   */
  private take(seq: number, counters: ReplicaCounters, restRatio = SNAPSHOT.restRatio): void {
    const t0 = performance.now();
    let parts: StateParts;
    // the tenants unchanged since a stored state this instance knows of: copied from it, not exported (D-152)
    const since = new Map<string, number>();
    try {
      parts = this.state!.exportParts((id) => {
        const at = this.carryFrom(id);
        if (at !== null) since.set(id, at);
        return at !== null;
      });
    } catch (err) {
      console.error(`shared sandbox: the state as of step ${seq} could not be exported (${(err as Error).message})`);
      return;
    }
    const global: GlobalPart = { replica: { ...counters }, state: parts.global };
    const carried: CarriedPart[] = [];
    parts.tenants.forEach(([id], i) => {
      const from = since.get(id);
      if (from !== undefined) carried.push({ part: id, ord: i + 1, since: from });
    });
    // tests: the copied tenants exported too, to compare with what the database copies
    const truth = this.verify && carried.length ? this.exportedText(since) : null;
    const encoding = encode(global, parts.tenants, restRatio);
    // what calls waited for: the copy, and the JSON made before encode first lets them run (the global part's, a slice)
    const exportMs = performance.now() - t0;
    this.writing = encoding
      .then(async (encoded) => {
        const written = await writeSnapshot(
          this.db,
          seq,
          encoded,
          this.writer,
          this.state!.format,
          this.instance,
          carried,
          counters.behind?.length ? Math.min(...counters.behind.map((b) => b[1])) : null,
        );
        // the tenants exported are stored as of `seq` either way (the snapshot's parts, or rows when another instance
        // wrote the snapshot of this step first, D-174)
        for (const p of encoded) if (p.part !== GLOBAL_PART) this.storedAt(p.part, seq);
        this.settledSeq = seq;
        if (!written) return;
        for (const c of carried) this.storedAt(c.part, seq);
        if (truth) await this.compareCopied(seq, truth);
        this.activity.lastWritten = {
          seq,
          exportMs: tenth(exportMs),
          writeMs: tenth(performance.now() - t0),
          bytes: written.bytes,
          rawBytes: written.rawBytes,
          exported: encoded.length - 1,
          carried: carried.length,
        };
      })
      .catch((err: unknown) => {
        // the log still holds every step: a failed snapshot costs only a longer next start; a part it meant to copy
        // may be gone (pruned meanwhile): the next snapshot exports those tenants
        for (const c of carried) this.stored.delete(c.part);
        console.error(`shared sandbox: the snapshot of step ${seq} could not be written (${(err as Error).message})`);
      })
      .finally(() => {
        this.writing = null;
        const doneAt = performance.now();
        this.lastWrite = { doneAt, tookMs: doneAt - t0 };
      });
  }
}

/** One part's JSON with lines or not, compressed as it is made (slicedJson.ts). */
async function encodePart(
  part: string,
  ord: number,
  value: unknown,
  lines: boolean,
  restRatio: number,
): Promise<EncodedPart> {
  const { pieces, bytes, rawBytes } = await slicedGzip(value, SNAPSHOT.sliceMs, lines, restRatio);
  return { part, ord, pieces, bytes, rawBytes };
}

/**
 * The parts exported as compressed JSON, the global one first (ord 0; each tenant's ord its place among the
 * tenants, after it), one tenant after the other: JSON is made in slices (`SNAPSHOT`; a large part in slices of
 * its own, slicedJson.ts), each followed by a pause in which calls run, and compressed as it is made; each
 * tenant's exported copy is let go as soon as its JSON is made. A tenant whose slice is null is carried, not
 * encoded.
 */
async function encode(global: GlobalPart, tenants: [string, unknown][], restRatio: number): Promise<EncodedPart[]> {
  const out = [await encodePart(GLOBAL_PART, 0, global, false, restRatio)];
  const parts = await slicedEach(tenants, { ...SNAPSHOT, restRatio }, async ([tenantId, value], i) => {
    if (tenantId === GLOBAL_PART) throw new Error(`a tenant's id is the global part's name (${GLOBAL_PART})`);
    if (value === null) return null;
    tenants[i] = [tenantId, null];
    // with its leaves on lines of their own: a tenant loaded from it is read in slices (D-160)
    return encodePart(tenantId, i + 1, value, true, restRatio);
  });
  for (const p of parts) if (p) out.push(p);
  return out;
}
