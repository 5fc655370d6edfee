// Taking the snapshots of a shared sandbox (D-138): which instance writes one (the one committing every
// N-th step), when (between batches; webhook attempts in flight are data of it), and how (the state exported and
// turned into JSON while calls wait, then compressed and written in the background); and what this
// instance did with snapshots, for the operator. The replica (replica.ts) says when a batch is committed.
// Requirements: none of its own; decisions D-138, D-137.

import type { Db } from '../store/postgres/pool.js';
import { writeSnapshot } from './snapshots.js';
import type { Writer } from './versions.js';

/** The state the log rebuilds, as the domain exports and imports it (D-137). */
export interface StatePort {
  /** The format of what `exportState` returns. */
  readonly format: number;
  exportState(): unknown;
  /** Into the state of a sandbox that has run no step yet. */
  importState(state: unknown): void;
}

/** The recorder's own counters that a snapshot keeps beside the domain's state. */
export interface ReplicaCounters {
  sends: number;
  lastNow: number;
  /** The webhook attempts awaiting their `sent` step, by key (the domain's deliveries name them); absent in format 1. */
  pending?: PendingSendState[];
}

/** A webhook attempt awaiting its `sent` step, as a snapshot keeps it. */
export interface PendingSendState {
  key: number;
  /** Real time the attempt was made (the lost-attempt sweep counts from it). */
  startedAt: number;
  /** Made by the instance that took the snapshot (informative: after a load no attempt is the loader's). */
  live: boolean;
}

/** What a snapshot holds: the domain's state and the recorder's counters, as of one step. */
export interface SnapshotPayload {
  replica: ReplicaCounters;
  state: unknown;
}

/** The snapshot a start loads (null: replay the log from its first step). */
export interface LoadPlan {
  seq: number;
  payload: SnapshotPayload | null;
}

/** What this instance did with snapshots, for the operator (GET /sandbox/v1/store). */
export interface SnapshotActivity {
  /** The step this instance has applied up to. */
  appliedSeq: number;
  /** Where its start began: the snapshot's step (0: the log's start) and the steps replayed after it. */
  loadedFrom: { seq: number; replayedSteps: number; readyMs: number } | null;
  /** The last snapshot it wrote: its step, how long calls waited while the state was exported, its size. */
  lastWritten: { seq: number; exportMs: number; writeMs: number; bytes: number; rawBytes: number } | null;
  /** Whether a snapshot is due here but waits for the one being written to finish. */
  waiting: boolean;
}

const tenth = (ms: number) => Math.round(ms * 10) / 10;

export class Snapshotter {
  private state: StatePort | null = null;
  private wanted = false;
  private writing: Promise<void> | null = null;
  readonly activity: SnapshotActivity = { appliedSeq: 0, loadedFrom: null, lastWritten: null, waiting: false };

  constructor(
    private readonly db: Db,
    private readonly writer: Writer,
    /** A snapshot every this many steps (Infinity: only at a clean stop). */
    private readonly every: number,
    /** This instance's name in `sandbox_instances`: its own report is not waited for when it prunes. */
    private readonly instance: string,
  ) {}

  /** The state snapshots are taken of and loaded into (without it, none is written). */
  hold(port: StatePort): void {
    this.state = port;
  }

  /** Loads a snapshot's state into the held state. */
  load(payload: SnapshotPayload): void {
    if (!this.state) throw new Error('a snapshot was chosen but this instance holds no state to load it into');
    this.state.importState(payload.state);
  }

  /** This instance committed the steps after `from` up to `to`: the one committing every N-th step writes a snapshot. */
  committed(from: number, to: number): void {
    if (Math.floor(to / this.every) > Math.floor(from / this.every)) this.wanted = true;
  }

  /**
   * Between batches: takes the snapshot that is due. Webhook attempts in flight are data of it (the domain's
   * deliveries, the replica's pending keys, the attempts awaiting a listener's answer), so nothing but a
   * snapshot still being written puts it off.
   */
  between(seq: number, counters: () => ReplicaCounters): void {
    if (!this.wanted) return;
    this.activity.waiting = this.writing !== null;
    if (this.activity.waiting || !this.state) return;
    this.wanted = false;
    this.take(seq, counters());
  }

  /**
   * At a clean stop, with every committed step applied and no step running (call it when no snapshot is
   * being written): takes a snapshot unless this one is written already.
   */
  atStop(seq: number, counters: ReplicaCounters): void {
    if (!this.state || seq === 0 || this.activity.lastWritten?.seq === seq) return;
    this.take(seq, counters);
  }

  /** Waits for a snapshot being written. */
  async settled(): Promise<void> {
    await this.writing;
  }

  /** Exports the state as of `seq` now (calls wait meanwhile), then compresses and writes it in the background. */
  private take(seq: number, counters: ReplicaCounters): void {
    const t0 = performance.now();
    let json: string;
    try {
      const payload: SnapshotPayload = { replica: { ...counters }, state: this.state!.exportState() };
      json = JSON.stringify(payload);
    } catch (err) {
      console.error(`shared sandbox: the state as of step ${seq} could not be exported (${(err as Error).message})`);
      return;
    }
    const exportMs = performance.now() - t0;
    const rawBytes = Buffer.byteLength(json, 'utf8');
    this.writing = writeSnapshot(this.db, seq, json, this.writer, this.state!.format, this.instance)
      .then((bytes) => {
        this.activity.lastWritten = {
          seq,
          exportMs: tenth(exportMs),
          writeMs: tenth(performance.now() - t0),
          bytes,
          rawBytes,
        };
      })
      .catch((err: unknown) => {
        // the log still holds every step: a failed snapshot costs only a longer next start
        console.error(`shared sandbox: the snapshot of step ${seq} could not be written (${(err as Error).message})`);
      })
      .finally(() => {
        this.writing = null;
      });
  }
}
