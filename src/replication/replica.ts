// One sandbox over several instances (D-112): every instance keeps the whole state in memory, as the
// in-memory default does, and PostgreSQL holds the ordered log of recorded steps (steps.ts) that
// every instance applies in the same order. A step that changes state runs on one instance at a time:
// the instance takes the log's advisory lock in a transaction, applies the steps other instances
// committed since its last one, runs its own queued steps, appends them and commits; only then are
// their answers sent. So:
// - whatever one instance acknowledged is in the log before the client hears of it, and a restart
//   (or another instance) rebuilds it by replaying the log;
// - every call sees every step acknowledged before it, on any instance: no lagging cache;
// - idempotency, credits, ledger sequence, rate windows and chaos counts are decided in one total
//   order, so concurrent calls on different instances behave as they do on one process;
// - steps queued while a transaction is open are committed together (group commit).
// Webhook attempts are made only by the instance that runs the step making them; the receiver's
// answer comes back as a `sent` step. Real-time timers are fired by a `timers` step. The attempts awaiting
// their `sent` step are data of a snapshot (their keys), so an instance started from it finishes them too.
// A start loads the snapshot chosen when the store opened and applies only the steps after it; every
// step carries the version that wrote it, and a step of another version or after a gap is refused (D-138).
// Once started, an instance skips the steps of the tenants it does not hold and applies them from the log when it
// loads such a tenant; every tenant behind is loaded before a step that changes what tenants' steps read (D-172).
// While other instances append, a batch of tenants' calls takes the log's lock shared and its tenants' locks instead,
// and runs beside theirs (tenantLocks.ts, D-173).
// Requirements: none of its own (it preserves the behaviour of every service); decisions D-112, D-113, D-21, D-138,
// D-172, D-173.

import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { limits } from '../domain/plans.js';
import type { Deferrer } from '../domain/clock.js';
import { Rng } from '../domain/rng.js';
import { deliveryOfAttempt } from '../domain/webhooks/relay.js';
import {
  postWebhook,
  type ResumeWebhook,
  type SendOutcome,
  type SendWebhook,
  type SentWebhook,
} from '../domain/webhooks/sender.js';
import type { Db } from '../store/postgres/pool.js';
import { directorySql, TenantDirectory, type DirectoryChange, type DirectorySource } from './directory.js';
import {
  changesWhatTenantsRead,
  partitionOf,
  readsEveryTenant,
  signsIn,
  type Partition,
  type RoutedCall,
} from './route.js';
import { tenantBase, tenantStepsSql } from './loader.js';
import { NEWEST_STORED_SEQ_SQL, registerStart, SnapshotGone } from './snapshots.js';
import { APPEND_LOCK, tenantLocksSql, tryTenantLocksSql } from './tenantLocks.js';
import { Residency, type ReadState, type ResidencyActivity, type ResidentPort } from './residency.js';
import { BACKGROUND } from './slicedJson.js';
import {
  connectionOf,
  partitionText,
  requestOf,
  tenantOfPartition,
  routedCall,
  settled,
  takenBy,
  type ListenOp,
  type LoggedStep,
  type NodeHandler,
  type Step,
} from './steps.js';
import {
  Snapshotter,
  type LoadPlan,
  type PendingSendState,
  type ReplicaCounters,
  type SnapshotActivity,
  type StatePort,
} from './snapshotter.js';
import { CODE_VERSION, describeWriter, LOG_FORMAT, sameWriter, type Writer } from './versions.js';

/** The advisory lock that orders appends to the log (any constant shared by every instance). */
export const LOG_LOCK = 0x5a4e_1065;
/** The channel a commit notifies when it handed webhook attempts to listeners (held by any instance). */
export const LISTEN_CHANNEL = 'sandbox_listen';
const BATCH_MAX = 256;
/**
 * While calls of several partitions wait, a batch takes at most this many of each, oldest first (D-151): a tenant
 * sending calls as fast as it can fills whole batches only while no other tenant waits, and another tenant's call
 * waits for a short batch, not for a long one of the first's.
 */
const FAIR_SHARE = 8;
const CATCH_UP_PAGE = 2_000;
/** The statement prepared on the writer's connection (openWriter). */
const APPEND_STATEMENT = 'sandbox_append';
/** The number of the first of the steps an append answered (they are numbered in a row). */
const firstAppended = (appended: pg.QueryResult) =>
  Math.min(...(appended.rows as { seq: string }[]).map((r) => Number(r.seq)));
/** Refuses a batch whose steps were appended anywhere but right after step `after`. */
function expectAppendedAfter(first: number, after: number): void {
  if (first !== after + 1) throw new Error(`the steps of a batch were appended at ${first}, not after step ${after}`);
}
/**
 * The SQL of a page of the steps after step `after`, in order (only those before `before`, when given). Never
 * prepared, the numbers in the text, so it is planned with them each time (D-183): a generic plan made while the log
 * was small scans the whole log, and a connection keeps it until an ANALYZE of the log replaces it (the writer's page,
 * prepared since D-180, read 40 MB for every batch, 2.8 ms of PostgreSQL's time a round trip); planned with the
 * numbers, the index on `seq` is taken at any size (about 45 µs of planning).
 */
const pageSql = (after: number, before?: number) =>
  `SELECT seq, step, body, log_format, code_version, partition FROM sandbox_log WHERE seq > ${Math.floor(after)}${before === undefined ? '' : ` AND seq < ${Math.floor(before)}`} ORDER BY seq LIMIT ${CATCH_UP_PAGE}; `;
/**
 * A batch of tenants' calls runs beside other instances' batches, under its tenants' locks (D-173), while steps
 * another instance committed were read less than this long ago; an instance alone keeps one round trip a batch.
 */
const BESIDE_AFTER_FOREIGN_MS = 2_000;
/**
 * How the replica notices what happens without a step: a webhook attempt taken for lost with its instance
 * once the receiver timeout and `lostAttemptGraceMs` have passed since it was made, looked for every
 * `sweepMs`, when an idle instance also applies the others' steps (D-113, D-138). Tests shorten both
 * (a StoreHooks option, never a setting); a deployment always runs these defaults.
 */
export interface ReplicaTiming {
  lostAttemptGraceMs: number;
  sweepMs: number;
  /**
   * A batch stops taking its next step once its steps have run this long: the calls that arrive meanwhile are read
   * only between batches (a batch runs without a turn of the event loop), so a call waits at most about this long
   * before it is even seen (D-151). Tests set 0: every batch is cut after its first step.
   */
  batchBudgetMs: number;
  /**
   * How long a tenant's state read ahead of its calls waits before it may be put in memory (D-160). Tests lengthen
   * it, so that a step of the tenant applied meanwhile comes first; a deployment waits for nothing.
   */
  prefetchPauseMs: number;
  /**
   * How long a tenant whose stored state was written in the background waits before it may be dropped (D-160).
   * Tests lengthen it, so that a step of the tenant applied meanwhile comes first; a deployment waits for nothing.
   */
  dropPauseMs: number;
  /**
   * The tenants served elsewhere that leave at once (D-172) are forgotten in one turn, during which no call runs: as
   * many as fit in this long leave in a round (one at least), the others at the next rounds (D-192). Tests set 0: one
   * per round.
   */
  dropSliceMs: number;
  /**
   * How long each read of tenants' stored states waits before it starts. Tests lengthen it, so that a load takes long
   * (D-188); a deployment waits for nothing.
   */
  readPauseMs: number;
  /**
   * A tenant in memory whose steps have come only from other instances for this long (none of its calls ran here) is
   * dropped, so that its steps are skipped from then on (D-172). Tests shorten it.
   */
  foreignIdleMs: number;
  /** …and after this many calls of other tenants arrived here since its last one. Tests set 0. */
  foreignIdleCalls: number;
  /**
   * …or, with fewer calls arrived, once its steps have come only from other instances for this long: an instance with
   * few calls of its own keeps no tenant served elsewhere for good (D-192). Tests shorten it.
   */
  foreignIdleLongMs: number;
  /**
   * A tenant moved here has the steps this instance skipped applied in slices of this long between batches, its
   * calls waiting meanwhile and every other tenant's running (D-175). Tests set 0: one step per slice.
   */
  replaySliceMs: number;
  /**
   * …and waits this long after each slice before its next one (the other tenants' calls run meanwhile). Tests lengthen
   * it, so that a move spans many batches; a deployment waits for nothing.
   */
  replayPauseMs: number;
  /**
   * After a snapshot taken here is written, the next one due waits this many times as long as the last one took
   * (D-184). Tests lengthen it, so that a snapshot due meanwhile is seen waiting.
   */
  snapshotRestRatio: number;
  /**
   * While other instances write (their steps were applied here within `sweepMs`), an idle instance applies what they
   * committed every this long, not only at its sweep, so that a call arriving here waits for the steps of this long at
   * most before it runs (D-191). Not below `sweepMs`: off (an idle instance reads the log at its sweep only).
   */
  followMs: number;
}
export const DEFAULT_REPLICA_TIMING: Readonly<ReplicaTiming> = Object.freeze({
  lostAttemptGraceMs: 10_000,
  sweepMs: 2_000,
  batchBudgetMs: 4,
  prefetchPauseMs: 0,
  dropPauseMs: 0,
  dropSliceMs: 50,
  readPauseMs: 0,
  foreignIdleMs: 2_000,
  foreignIdleCalls: 500,
  foreignIdleLongMs: 30_000,
  replaySliceMs: 8,
  replayPauseMs: 0,
  snapshotRestRatio: 1,
  followMs: 100,
});
/** An instance not heard of for this many sweeps is taken for gone: the tenants it may have held are loaded (D-172). */
const GONE_AFTER_SWEEPS = 5;

/**
 * A tenant whose steps this instance skipped since it last held it (D-172): the first and last of them, and whether a
 * stored state at or after the last is known (its holder wrote one: loading it replays nothing).
 */
interface Behind {
  first: number;
  last: number;
  covered: boolean;
}

/**
 * A tenant moved here, in memory from its stored state as of step `after`, whose steps skipped here up to `last` are
 * being applied between batches (D-175): `rows` read from the log and not applied yet, from `at`; `from`, the first
 * step the log must still hold (checked before the first page); the calls and reads that wait for it.
 */
interface Replaying {
  items: Item[];
  after: number;
  last: number;
  from: number;
  rows: StoredStep[];
  at: number;
  count: number;
  /** When its next slice may run (performance.now(); `replayPauseMs` after the last one). */
  resumeAt: number;
  /** The next page of its steps being read (between batches no one waits for the database), and its failure. */
  reading: Promise<void> | null;
  failed: Error | null;
}

/** How long the tenants read ahead are put in memory for between two batches, at most (one at least, D-175). */
const ADOPT_SLICE_MS = 8;
/** Steps of a moved tenant read per round trip (D-175). */
const REPLAY_PAGE = 500;

/** What of the domain tells a tenant's step that may change the state of no tenant (a coupling, D-172). */
export interface CouplingPort {
  /** How many times a rule of no tenant fired so far. */
  firesOfNoTenant(): number;
  /** Whether a rule of no tenant is active (a tenant's call may fire it). */
  rulesOfNoTenant(): boolean;
}
/** How often a busy instance reports how far it applied the log (an idle one reports every `sweepMs`). */
const REPORT_EVERY_MS = 200;

export type AppFetch = (req: Request, env: unknown) => Response | Promise<Response>;

/** A scratch core of the same settings on its own recorder (never started, recording nothing), for a rebuild. */
export interface Scratch {
  replica: Replica;
  exportTenant(tenantId: string): unknown;
  dispose(): Promise<void>;
}

interface Item {
  /** Null for a read: it needs the log applied first and records nothing. */
  step: Step | null;
  /** Whose turn it takes in a batch (fairBatch): the partition its call is routed to, as known when it arrived. */
  turn: string;
  /** The tenant of a call or read routed to one, as known when it arrived (its state is read first when not in memory). */
  tenant?: string;
  /** A call's partition as routed when it arrived. */
  routed?: Routed | null;
  body: Buffer | null;
  run(): Promise<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

/** A tenant's stored state being read outside the queue, and the calls and reads that wait for it. */
interface Prefetch {
  items: Item[];
  states: ReadState[] | null;
}

/** A step as the log holds it: its JSON text (not jsonb: nothing queries inside it, and text costs the database nothing to store). */
interface StoredStep {
  seq: number;
  step: string;
  body: Buffer | null;
  log_format: number | null;
  code_version: string | null;
  /** Null on a step written before steps carried their partition: read as `all`. */
  partition: string | null;
}

export interface ReplicaOptions {
  /** Who this instance writes as (its steps and snapshots carry it). */
  writer: Writer;
  /** A snapshot is written by the instance committing every this-many-th step (and at a clean stop). */
  snapshotEvery: number;
  /** Tests only: shorter lost-attempt grace and sweep (default DEFAULT_REPLICA_TIMING). */
  timing?: Partial<ReplicaTiming>;
  /** Tenants kept in memory beyond those with work under way; the others are loaded on demand (default: every tenant). */
  residentTenants?: number;
  /** Tests only: a snapshot's copied parts compared with an export of them, a difference stopping the instance (D-152). */
  verifyCarriedParts?: boolean;
  /** Tests only: runs once a start read its snapshot (the step it is of), before it reads the log after it. */
  afterSnapshotRead?: (seq: number) => Promise<void>;
}

/** A string as an SQL literal under standard_conforming_strings: backslashes are plain characters. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

// every byte that is not printable ASCII, and the quote and the backslash
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\x00-\x1f'\\\x7f-\xff]/g;
const escapeByte = (c: string) =>
  c === "'" ? "''" : c === '\\' ? '\\\\' : `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`;

/**
 * Bytes as a bytea literal under standard_conforming_strings, in bytea's escape format: printable ASCII as
 * itself, a backslash doubled, a quote doubled, any other byte as \ooo. A JSON body costs about its own
 * size in the statement (the hex format costs twice), and no byte depends on the connection's encoding.
 */
export const byteaLiteral = (bytes: Buffer) => `'${bytes.toString('latin1').replace(UNPRINTABLE, escapeByte)}'::bytea`;

/** A body that was not kept because it passed every route's limit: only its (capped) size is recorded. */
export interface Oversize {
  oversize: number;
}

/** A call's partition as the router decided it, and the version of the directory it decided against. */
interface Routed {
  partition: Partition;
  version: number;
}

/** What a recorded call answers, and how long a chaos latency rule holds the answer back. */
interface Answer {
  response: Response | null;
  delayMs: number;
}

interface PendingSend {
  /** The answer to come, as the domain awaits it (again, after a restore: resumeWebhook). */
  answer: Promise<SendOutcome>;
  resolve(out: SendOutcome): void;
  startedAt: number;
  /** Made by this instance (its answer will come); else made elsewhere, or before a restart. */
  live: boolean;
  givenUp: boolean;
  /** The partition of the step that made the attempt (its `sent` step's); `all` when not known (restored). */
  partition: string;
}

export class Replica {
  private apps = new Map<string, AppFetch>();
  /** The calls of an app that a Node-level handler answers itself when it takes them (the REST fast path). */
  private fast = new Map<string, NodeHandler>();
  private applied = 0;
  private queue: Item[] = [];
  private running = false;
  private started = false;
  private closed = false;
  private fatal: Error | null = null;
  // the step being run: its sandbox time, and its random bytes (recorded when live, read when replayed)
  private frozen: number | null = null;
  private lastNow = 0;
  private tape: string[] | null = null;
  private tapeAt = 0;
  private live = false;
  // webhook attempts awaiting their `sent` step, by attempt id (D-153; a key restored from a snapshot of log format 1
  // is its number, as text)
  private pending = new Map<string, PendingSend>();
  // the timers steps queued and not yet run, by zone: a tenant's id, or '' for a step firing every zone's
  private timersQueued = new Set<string>();
  // work a step deferred ("right after the current task"), run before the step ends
  // each entry keeps a function with the two arguments it was deferred with (their types were checked then)
  private deferred: (() => void)[] = [];
  private inStep = false;
  // the connection that holds the log's lock for each batch of steps
  private writer: pg.PoolClient | null = null;
  /**
   * The writer's transaction holds the log's lock between two batches (taken again in the first one's commit
   * round trip while calls waited), with the page of steps committed elsewhere read under it, still to apply.
   */
  private held: { page: StoredStep[] } | null = null;
  /** The writer's transaction is open without the lock (not granted again at the last commit). */
  private opened = false;
  /**
   * The writer's transaction holds the log's lock shared and the locks of the tenants whose calls waited at the last
   * commit of a batch run beside others' (taken again in its round trip, D-173), with the page read under them.
   */
  private besideHeld: { tenants: Set<string>; page: StoredStep[] } | null = null;
  /** The writer's transaction holds some of those locks, not all: the next round trip ends it first. */
  private partlyHeld = false;
  private fireDue: ((tenantId?: string) => void) | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private follower: NodeJS.Timeout | null = null;
  // secrets drawn outside any step (the demo seed at start-up) must be the same on every instance
  private readonly seeded: Rng;
  // this instance's name in `sandbox_instances` (how far it applied the log): drawn outside any step
  private readonly instance = `ins_${randomBytes(8).toString('hex')}`;
  private reportedAt = 0;
  // the webhook listeners' steps (listeners.ts), and whether this batch's commit must wake their instances
  private onListen: ((op: ListenOp) => void) | null = null;
  private notifyListeners = false;
  /** Stopped: its queue ran out after `close`, and its writer is released. */
  private stopped = false;
  private readonly closers: (() => Promise<void>)[] = [];
  // snapshots (D-138, D-137): the one a start loads, and the ones this instance takes
  private plan: LoadPlan = { seq: 0, payload: null };
  private choose: (() => Promise<LoadPlan>) | null = null;
  private readonly snapshots: Snapshotter;
  /** Where routing looks tenants up (directory.ts), kept by the steps; and the state it is diffed against. */
  readonly directory = new TenantDirectory();
  private dirSource: DirectorySource | null = null;
  /** Whether this instance has compared its directory with its state under the lock since it started. */
  private dirChecked = false;
  /** Directory changes made outside a step (the demo tenants), written with the next batch. */
  private dirExtra: DirectoryChange[] = [];
  /** The partition of the step being run. */
  private partition = 'all';
  /** The tenant of each connected webhook listener, from the `connect` steps (for the partition of a `gone`). */
  private listenerTenants = new Map<string, string>();
  /** A scratch recorder records nothing: it only replays steps read from the log (rebuildTenant). */
  private scratch = false;
  private makeScratch: (() => Promise<Scratch>) | null = null;
  /** How many steps of each kind of partition this instance committed and applied (the operator report). */
  readonly partitionCounts = { tenant: 0, global: 0, create: 0, all: 0 };
  private readonly timing: Readonly<ReplicaTiming>;
  /** The tenants in memory, loaded on demand and dropped beyond a bound (residency.ts, D-150). */
  private readonly residency: Residency;
  /** The real-time timer of the soonest timer of a tenant not in memory, and when it is armed for. */
  private dueTimer: NodeJS.Timeout | null = null;
  private dueArmedAt = Infinity;
  /** Tenants whose stored state is being read outside the queue, with the calls waiting for it (park). */
  private readonly prefetching = new Map<string, Prefetch>();
  /** The last read ahead of a tenant's state begun: the next one waits for it (readingAhead). */
  private readsAhead: Promise<unknown> = Promise.resolve();
  /** Tenants whose read is done, to be put in memory between batches. */
  private prefetched: string[] = [];
  /** The drop of idle tenants whose stored states are being written, if any (evictInBackground). */
  private evicting: Promise<void> | null = null;
  /** Tenants whose stored state is written, to be dropped between batches. */
  private written: string[] = [];
  /** The tenants whose steps this instance skipped since it last held them (D-172). */
  private readonly behind = new Map<string, Behind>();
  /** Tenants moved here whose skipped steps are being applied between batches (D-175). */
  private readonly replaying = new Map<string, Replaying>();
  /** Ends the loop's wait for a page of a moved tenant's steps: a call or a read ahead arrived (advanceReplays). */
  private wake: (() => void) | null = null;
  /** What tells a tenant's step that changes the state of no tenant (set before calls arrive; none: never). */
  private couplings: CouplingPort | null = null;
  /** The other instances heard of lately (a holder gone is noticed by its absence, D-172). */
  private othersSeen = new Set<string>();
  private checkingOthers = false;
  /** When this instance last read a step another instance committed (performance.now()). */
  private foreignAt = -Infinity;
  /** Batches run under the log's lock alone, and beside other instances' under their tenants' locks (D-173). */
  readonly batchCounts = { alone: 0, beside: 0 };

  constructor(
    readonly db: Db,
    seed: number,
    /** The sandbox's first start: the time its demo data is seeded at, on every instance. */
    startedAt: number,
    private readonly onFatal: (err: Error) => void = (err) => {
      console.error(`shared sandbox: ${err.message}; this instance stops so a restart rebuilds it from the log`);
      process.exit(70);
    },
    private readonly options: ReplicaOptions = {
      writer: { logFormat: LOG_FORMAT, codeVersion: CODE_VERSION },
      snapshotEvery: Infinity,
    },
  ) {
    this.seeded = new Rng(seed).fork('shared secrets');
    this.frozen = startedAt;
    this.timing = { ...DEFAULT_REPLICA_TIMING, ...options.timing };
    this.snapshots = new Snapshotter(
      db,
      options.writer,
      options.snapshotEvery,
      this.instance,
      options.verifyCarriedParts ? (err) => this.stop(err, []) : null,
      this.timing.snapshotRestRatio,
    );
    this.residency = new Residency(
      db,
      options.residentTenants ?? Infinity,
      options.writer,
      this.timing.readPauseMs,
      this.timing.dropSliceMs,
    );
    // what a snapshot may copy instead of exporting: a tenant loaded is its stored state; one dropped is not held
    this.residency.whenStored((tenantId, seq) =>
      seq === null ? this.snapshots.forget(tenantId) : this.snapshots.storedAt(tenantId, seq),
    );
  }

  /** The clock's deferrer: inside a step, deferred work runs before the step ends; outside, after the task. */
  readonly defer: Deferrer = (fn, a, b) => {
    if (this.inStep) this.deferred.push(() => fn(a, b));
    else setImmediate(fn, a, b);
  };

  /** The sandbox clock's real-time source: the step's recorded time while a step runs. */
  readonly now = (): number => this.frozen ?? Date.now();

  /** Random bytes for secrets: fresh and recorded in a live step, read back in a replay. */
  readonly entropy = (length: number): Uint8Array => {
    if (this.tape === null) return Uint8Array.from({ length }, () => Math.floor(this.seeded.next() * 256));
    if (this.live) {
      const bytes = randomBytes(length);
      this.tape.push(bytes.toString('base64'));
      return bytes;
    }
    const recorded = this.tape[this.tapeAt++];
    if (recorded === undefined) throw new Error('a replayed call drew more random bytes than it recorded');
    return Buffer.from(recorded, 'base64');
  };

  /** The webhook port: only the instance running the step sends; every instance waits for the `sent` step. */
  readonly sendWebhook: SendWebhook = (url, headers, body, timeoutMs, attemptId) => {
    const key = attemptId;
    const p = this.awaitSent(key, this.now(), this.live, this.partition);
    if (this.live)
      void postWebhook(url, headers, body, timeoutMs).then((out) =>
        this.submitBackground({ t: 'sent', key, out, now: 0 }),
      );
    return Object.assign(p.answer, { key }) satisfies SentWebhook;
  };

  /**
   * The answer to come of an attempt restored in flight from a snapshot or a tenant's stored state: its `sent` step
   * settles it. One this instance does not await yet is awaited from now on (D-185): its start was skipped here with
   * its tenant's steps (D-172), and its `sent` step, by the instance that made it or by any that gives it up for lost,
   * is in the log after that state, among the tenant's steps applied after the load.
   */
  readonly resumeWebhook: ResumeWebhook = (key) =>
    (this.pending.get(key) ?? this.awaitSent(key, Date.now(), false)).answer;

  /** The tenants whose timers fired during the step being run (null: a timer of the sandbox clock itself). */
  private fired: (string | null)[] = [];

  /** The clock's firing observer: which tenants a step's timers changed (a `timers` step changes only those). */
  readonly timerFired = (tenantId: string | null): void => {
    if (this.inStep) this.fired.push(tenantId);
    // outside any step (never, while the clock's timers are fired by steps): what it changed is in no stored state
    else this.snapshots.changedBy(tenantId, this.applied + 1);
  };

  /**
   * What the step just run as step `seq` may have changed, for the snapshots that copy the parts of tenants unchanged
   * since their stored state (D-152): its tenant; every tenant for an `all` step but a `timers` one, which changes the
   * tenants whose timers fired; the tenants a `create` step made. A `global` step changes no tenant (D-143).
   */
  private noteChanges(step: Step, partition: string, seq: number, fired = this.fired.splice(0)): void {
    const changedBy = (tenantId: string | null) => {
      this.snapshots.changedBy(tenantId, seq);
      // a tenant being dropped in the background stays when a step changed it (D-160)
      this.residency.changed(tenantId);
    };
    const tenantId = tenantOfPartition(partition);
    if (tenantId !== null) changedBy(tenantId);
    else if (partition === 'all' && step.t !== 'timers') {
      changedBy(null);
      // a step of every tenant may have removed some (a reset): their use no longer counts
      this.residency.forgetGone(this.exists);
    }
    if (step.t === 'call' && step.dir) for (const [kind, name] of step.dir) if (kind === 'tenant') changedBy(name);
    for (const t of fired) changedBy(t);
  }

  /**
   * The partition of the `sent` step of attempt `key`: the step's that made it; for an attempt restored without it
   * (a snapshot written before D-150), its delivery's tenant, which the attempt's id names (D-153); else `all`.
   */
  private sentPartition(key: string): string {
    const made = this.pending.get(key)?.partition;
    if (made !== undefined && made !== 'all') return made;
    return (key.includes('.') ? this.directory.tenantOfObject('delivery', deliveryOfAttempt(key)) : null) ?? 'all';
  }

  /** A pending entry: the attempt `key` awaits its `sent` step. */
  private awaitSent(key: string, startedAt: number, live: boolean, partition = 'all'): PendingSend {
    let resolve!: (out: SendOutcome) => void;
    const answer = new Promise<SendOutcome>((r) => (resolve = r));
    const p: PendingSend = { answer, resolve, startedAt, live, givenUp: false, partition };
    this.pending.set(key, p);
    return p;
  }

  /** The apps whose calls are recorded, by name (a step names the app it ran on). */
  mount(name: string, app: AppFetch, fast?: NodeHandler): void {
    this.apps.set(name, app);
    if (fast) this.fast.set(name, fast);
  }

  /**
   * The clock's timers that real time made due are fired by `timers` steps: one per tenant whose timers are due,
   * in that tenant's partition (D-154); the sandbox clock's own by a step firing every zone's.
   */
  fireTimersWith(fireDue: (tenantId?: string) => void): (zones: (string | null)[]) => void {
    this.fireDue = fireDue;
    return (zones) => {
      for (const zone of zones) this.queueTimers(zone ?? undefined);
    };
  }

  /** Queues a timers step for a tenant's zone (or every zone), unless one is queued already. */
  private queueTimers(zone: string | undefined): void {
    const key = zone ?? '';
    if (this.timersQueued.has(key) || !this.started || this.closed) return;
    this.timersQueued.add(key);
    this.submitBackground(zone === undefined ? { t: 'timers', now: 0 } : { t: 'timers', now: 0, zone });
  }

  /** Marks a scratch recorder (index.ts): it never records a step. */
  markScratch(): void {
    this.scratch = true;
  }

  /** How a scratch core of this sandbox is made (the composition root knows its apps). */
  scratchWith(make: () => Promise<Scratch>): void {
    this.makeScratch = make;
  }

  /**
   * A tenant's slice as the log says it is after the steps applied here, rebuilt without this instance's memory
   * (loader.ts): the newest snapshot's global part and the tenant's part imported into a scratch core, then the
   * steps after it whose partition is the tenant's, global, create or all, replayed there in log order.
   * Call it between batches (inside `read`).
   */
  async rebuildTenant(tenantId: string): Promise<unknown> {
    if (!this.makeScratch) throw new Error('this instance cannot make a scratch core');
    const upTo = this.applied;
    const base = await tenantBase(this.db, tenantId, upTo);
    const scratch = await this.makeScratch();
    const r = scratch.replica;
    try {
      r.frozen = null;
      const counters = (c: ReplicaCounters) => {
        for (const p of c.pending ?? []) r.awaitSent(String(p.key), p.startedAt, false, p.partition);
        r.lastNow = c.lastNow;
      };
      r.inStep = true;
      try {
        if ('whole' in base) {
          counters(base.whole.replica);
          r.snapshots.load(base.whole);
        } else if ('global' in base)
          r.snapshots.importSome(base.global, base.tenant === null ? [] : [[tenantId, base.tenant]], counters);
      } finally {
        r.inStep = false;
      }
      // as at a start: the work an import defers is not the log's
      r.deferred.splice(0);
      // the tenant's own steps between its stored state and the snapshot (steps its instance skipped, D-172)
      if ('tenantSeq' in base && base.tenantSeq < base.seq)
        await this.applyTenantSteps(r, tenantId, base.tenantSeq, base.seq);
      const partitions = [tenantId, 'global', 'create', 'all'];
      for (let after = base.seq; ;) {
        const { rows } = await this.db.query<StoredStep>(tenantStepsSql(after, upTo, CATCH_UP_PAGE), [partitions]);
        for (const row of rows) {
          r.partition = row.partition ?? 'all';
          await r.apply(JSON.parse(row.step) as Step, row.body, false);
          after = Number(row.seq);
        }
        if (rows.length < CATCH_UP_PAGE) break;
      }
      return scratch.exportTenant(tenantId);
    } finally {
      await scratch.dispose();
    }
  }

  /** The state the directory is kept from (set before the log is applied). */
  holdDirectory(source: DirectorySource): void {
    this.dirSource = source;
  }

  /** The tenants in memory, for loading them on demand and dropping them (set before the log is applied). */
  holdTenants(port: ResidentPort): void {
    this.residency.hold(port);
  }

  /**
   * Whether a read is the operator's (only the operator's reads across tenants load every tenant: anyone else's is
   * refused, and must not cost that).
   */
  private isOperator: (call: RoutedCall) => boolean = () => true;

  /** How the operator's reads are told from others (set before calls arrive). */
  recognizeOperator(fn: (call: RoutedCall) => boolean): void {
    this.isOperator = fn;
  }

  /** What this instance did with tenants in memory, for the operator. */
  residencyActivity(): ResidencyActivity {
    return { ...this.residency.activity(), behind: this.behind.size, replaying: this.replaying.size };
  }

  /** What tells a tenant's step that changes the state of no tenant (set before calls arrive, D-172). */
  holdCouplings(port: CouplingPort): void {
    this.couplings = port;
  }

  /** How many tenants' last uses this instance remembers (for tests: never more than it holds). */
  residencyUsesKept(): number {
    return this.residency.usesKept();
  }

  /**
   * Before a step of `partition` (or a read) runs: the tenant it concerns is loaded when it is not in memory;
   * every tenant before a step of every tenant or a read across tenants (`every`); before a timers step (`dueAt`,
   * its real time), every tenant whose soonest timer is due by then, so every instance fires the same timers.
   */
  private async ensureResident(partition: string, every: boolean, dueAt?: number): Promise<void> {
    const r = this.residency;
    if (!r.on) return;
    // a step or read of every tenant, or every zone's timers, reads the tenants moved here whole (D-175)
    if ((every || dueAt !== undefined) && this.replaying.size) await this.finishReplays();
    let ids: string[];
    const tenantId = tenantOfPartition(partition);
    if (every) ids = r.missing(this.directory.tenantIds());
    else if (dueAt !== undefined) ids = r.dueBy(dueAt);
    else if (tenantId === null || !this.directory.hasTenant(tenantId)) return;
    else {
      // a call routed to it only as it runs (the directory changed since it arrived) finds it whole
      if (this.replaying.has(tenantId)) await this.replay(tenantId, Infinity, true);
      r.touch(tenantId);
      ids = r.missing([tenantId]);
    }
    if (!ids.length) return;
    await this.loadTenants(ids, every);
  }

  /**
   * Loads the tenants `ids` (none in memory) from their newest stored states, then applies the steps of those that
   * this instance skipped since the state (D-172), read from the log by partition.
   */
  private async loadTenants(ids: readonly string[], every: boolean): Promise<void> {
    // a tenant dropped while its stored state is written is loaded from that state (D-172)
    while (ids.some((id) => this.residency.writing(id))) {
      if (!this.evicting && !this.written.length) throw new Error('a tenant is being written by no drop under way');
      if (this.evicting) await this.evicting;
      this.dropWritten();
    }
    const loaded = await this.residency.load(ids, this.applied, (fn) => this.importing(fn), every);
    if (this.behind.size) await this.replayBehind(loaded);
    this.armDue();
  }

  /**
   * Whether this instance skips a step (D-172): a step another instance ran of a tenant it does not hold. Not a step
   * that changed the state of no tenant, a listener's (the board of listeners is every instance's), nor an attempt's
   * answer this instance awaits.
   */
  private skips(step: Step, partition: string): boolean {
    if (!this.skipping || step.t === 'listen' || (step.t === 'call' && step.g)) return false;
    const tenantId = tenantOfPartition(partition);
    if (tenantId === null || !this.directory.hasTenant(tenantId)) return false;
    // a tenant moved here whose skipped steps are still being applied: its later steps come after them (D-175)
    if (this.replaying.has(tenantId)) return true;
    if (this.residency.holds(tenantId)) return false;
    return !(step.t === 'sent' && this.pending.has(String(step.key)));
  }

  /** Whether tenants' steps skipped here are still to be applied (tenants behind, or moved here and replaying). */
  private get lagging(): boolean {
    return this.behind.size > 0 || this.replaying.size > 0;
  }

  /** Once started, with tenants dropped from memory (a start applies every step, D-172). */
  private get skipping(): boolean {
    return this.started && this.residency.drops;
  }

  /** Skips step `seq` of a tenant not held here; what it changed in the directory is applied (D-172). */
  private skip(step: Step, partition: string, seq: number): void {
    const b = this.behind.get(partition);
    const moving = this.replaying.get(partition);
    if (moving) moving.last = seq;
    else if (b) {
      b.last = seq;
      b.covered = false;
    } else this.behind.set(partition, { first: seq, last: seq, covered: false });
    this.lastNow = Math.max(this.lastNow, step.now);
    if (step.t === 'call' && step.dir) this.directory.apply(step.dir);
    this.residency.skipped(partition);
    this.snapshots.changedBy(partition, seq);
    this.count(partition);
    this.applied = seq;
  }

  /**
   * Whether a step may change what a tenant's steps read of the state of no tenant (D-172): a step of no tenant that
   * changes it (route.ts), one a live instance marked, or a tenant's call that may fire a rule of no tenant or signs
   * in (run here: it is marked once it ran).
   */
  private changesGlobal(step: Step, body: Buffer | null, partition: string): boolean {
    if (step.t === 'call' && step.g) return true;
    if (tenantOfPartition(partition) !== null) return false;
    if (step.t !== 'call') return true;
    return changesWhatTenantsRead(routedCall(step, body), { kind: partition as 'global' | 'create' | 'all' });
  }

  private mayChangeGlobal(step: Step, body: Buffer | null, partition: string): boolean {
    if (!this.lagging) return false;
    if (this.changesGlobal(step, body, partition)) return true;
    if (step.t !== 'call') return false;
    return (this.couplings?.rulesOfNoTenant() ?? false) || signsIn(routedCall(step, body));
  }

  /**
   * Loads the tenants behind (`all`: every one; else those whose skipped steps no stored state covers), so that their
   * skipped steps are applied before the state of no tenant changes (D-172).
   */
  private async catchUpBehind(all: boolean): Promise<string[]> {
    if (this.replaying.size) await this.finishReplays();
    const ids: string[] = [];
    for (const [id, b] of this.behind) {
      if (!this.directory.hasTenant(id)) this.behind.delete(id);
      else if (this.residency.holds(id)) this.behind.delete(id);
      else if (all || !b.covered) ids.push(id);
    }
    if (ids.length) await this.loadTenants(ids, false);
    return ids;
  }

  /** Applies, after each tenant just loaded, its steps skipped here that its stored state does not hold (D-172). */
  private async replayBehind(loaded: readonly { tenantId: string; seq: number }[]): Promise<void> {
    const was = this.partition;
    // the log's first step, read once
    let first: string | null | undefined;
    try {
      for (const { tenantId, seq } of loaded) {
        const b = this.behind.get(tenantId);
        if (!b) continue;
        this.behind.delete(tenantId);
        if (seq >= b.last) continue;
        // the log still holds every step after the stored state that the tenant may have (none was pruned)
        if (first === undefined) first = await this.logFirst();
        this.checkLogHolds(tenantId, Math.max(b.first, seq + 1), first);
        const { count, last } = await this.applyTenantSteps(this, tenantId, seq, b.last);
        if (last !== b.last)
          throw new LogRefusal(`step ${b.last} of tenant ${tenantId}, skipped here, is not in the log`);
        this.residency.countReplayed(count);
      }
    } catch (err) {
      // the tenant is in memory without (some of) its skipped steps, and no longer behind: whatever failed, nothing of
      // this instance may run on from here (as when a moved tenant's replay fails, advanceReplays)
      this.stop(err, []);
      throw err;
    } finally {
      this.partition = was;
    }
  }

  /**
   * A tenant behind, its stored state as of `seq` just put in memory between batches ahead of its calls `items`: its
   * skipped steps are applied in slices between batches from now on, its calls waiting (D-175). Answers whether any
   * are (none: its calls may run).
   */
  private startReplay(tenantId: string, seq: number, items: Item[]): boolean {
    const b = this.behind.get(tenantId)!;
    this.behind.delete(tenantId);
    if (seq >= b.last) return false;
    const m: Replaying = {
      items: [],
      after: seq,
      last: b.last,
      from: Math.max(b.first, seq + 1),
      rows: [],
      at: 0,
      count: 0,
      resumeAt: 0,
      reading: null,
      failed: null,
    };
    this.replaying.set(tenantId, m);
    // what of it was queued before its read began runs first, after the skipped steps
    const others: Item[] = [];
    for (const item of this.queue) (this.movingFor(item) === m ? m.items : others).push(item);
    if (others.length < this.queue.length) this.queue.splice(0, this.queue.length, ...others);
    m.items.push(...items);
    return true;
  }

  /** Between batches: applies the moved tenants' skipped steps for about `replaySliceMs` (D-175). */
  private async advanceReplays(): Promise<void> {
    const until = performance.now() + this.timing.replaySliceMs;
    for (const [tenantId, m] of [...this.replaying]) {
      if (m.resumeAt > performance.now() || m.reading) continue;
      await this.replay(tenantId, until, false);
      m.resumeAt = performance.now() + this.timing.replayPauseMs;
      if (performance.now() >= until) return;
    }
    // nothing else to do until a page is read, a call arrives (or, in tests, a pause ends): a wait rather than a spin
    if (this.queue.length || this.prefetched.length || !this.replaying.size) return;
    const reads = [...this.replaying.values()].flatMap((m) => m.reading ?? []);
    const woken = new Promise<void>((r) => (this.wake = r));
    await Promise.race([...reads, woken, new Promise((r) => setTimeout(r, reads.length ? 50 : 2))]);
    this.wake = null;
  }

  /**
   * Applies every moved tenant's skipped steps now: before a step or read of every tenant, one that may change what
   * tenants' steps read of the state of no tenant, or a snapshot at stop (D-175).
   */
  private async finishReplays(): Promise<void> {
    for (const tenantId of [...this.replaying.keys()]) await this.replay(tenantId, Infinity, true);
  }

  /**
   * Applies a moved tenant's skipped steps, in log order, until `until` (at least one); once the last is applied,
   * the tenant is held like any other and its calls join the queue.
   */
  private async replay(tenantId: string, until: number, wait: boolean): Promise<void> {
    const m = this.replaying.get(tenantId)!;
    const was = this.partition;
    try {
      while (m.after < m.last) {
        if (m.reading) await m.reading;
        if (m.failed) throw m.failed;
        if (m.at === m.rows.length) {
          this.readReplay(tenantId, m);
          if (!wait) return;
          continue;
        }
        const row = m.rows[m.at++];
        await this.applyTenantStep(this, tenantId, row);
        m.after = Number(row.seq);
        m.count++;
        if (performance.now() >= until && m.after < m.last) {
          // the next page read while other calls run
          if (m.at === m.rows.length) this.readReplay(tenantId, m);
          return;
        }
      }
    } finally {
      this.partition = was;
    }
    this.replaying.delete(tenantId);
    this.residency.countReplayed(m.count);
    this.queue.push(...m.items);
    this.armDue();
  }

  /** Reads the next page of a moved tenant's steps in the background (the first after checking the log holds them). */
  private readReplay(tenantId: string, m: Replaying): void {
    if (m.reading) return;
    m.reading = (async () => {
      if (m.count === 0) this.checkLogHolds(tenantId, m.from, await this.logFirst());
      const { rows } = await this.db.query<StoredStep>(tenantStepsSql(m.after, m.last, REPLAY_PAGE), [[tenantId]]);
      if (!rows.length) throw new LogRefusal(`step ${m.last} of tenant ${tenantId}, skipped here, is not in the log`);
      m.rows = rows;
      m.at = 0;
    })()
      .catch((err: unknown) => {
        m.failed = err instanceof Error ? err : new Error(String(err));
      })
      .finally(() => {
        m.reading = null;
        if (!this.running && !this.stopped) void this.loop();
      });
  }

  /** The log's first step (null: the log is empty). */
  private async logFirst(): Promise<string | null> {
    return (await this.db.query<{ first: string | null }>('SELECT min(seq) AS first FROM sandbox_log')).rows[0].first;
  }

  /**
   * Refuses to apply a tenant's skipped steps from step `from` when the log, which starts at step `first`, no longer
   * holds them (pruning never passes the first step skipped here, D-172).
   */
  private checkLogHolds(tenantId: string, from: number, first: string | null): void {
    if (first === null || Number(first) > from)
      throw new LogRefusal(
        `the steps of tenant ${tenantId} skipped here (from step ${from}) are no longer in the log (it starts at step ${first ?? 'none'})`,
      );
  }

  /**
   * Applies on `r` (this instance, or a scratch core rebuilding a tenant) the steps of the tenant's partition after
   * step `after` up to `upTo`, in log order; answers how many, and the last one applied (`after` when none).
   */
  private async applyTenantSteps(
    r: Replica,
    tenantId: string,
    after: number,
    upTo: number,
  ): Promise<{ count: number; last: number }> {
    let count = 0;
    for (;;) {
      const { rows } = await this.db.query<StoredStep>(tenantStepsSql(after, upTo, CATCH_UP_PAGE), [[tenantId]]);
      for (const row of rows) {
        await this.applyTenantStep(r, tenantId, row);
        after = Number(row.seq);
        count++;
      }
      if (rows.length < CATCH_UP_PAGE) return { count, last: after };
    }
  }

  /** Applies on `r` one of a tenant's steps read from the log by partition (a step skipped there). */
  private async applyTenantStep(r: Replica, tenantId: string, row: StoredStep): Promise<void> {
    r.checkWriter(row);
    const step = JSON.parse(row.step) as Step;
    r.partition = tenantId;
    await r.apply(step, row.body, false);
    r.noteChanges(step, tenantId, Number(row.seq));
  }

  /** The step about to run: the tenants it needs in memory first (ensureResident). */
  private ensureFor(step: Step, partition: string, live: boolean): Promise<void> {
    if (step.t === 'timers' && step.zone === undefined) return this.ensureResident(partition, false, step.now);
    const tenantId = tenantOfPartition(partition);
    // a call run here, or a step of the tenant another instance ran (a tenant's timers step is neither)
    if (tenantId !== null && step.t !== 'timers') this.residency.usedBy(tenantId, live);
    return this.ensureResident(partition, partition === 'all');
  }

  /**
   * A real-time timer for the soonest timer of a tenant not in memory: when it is due, a timers step loads the
   * tenant and fires it, as the clock's own dispatch does for the tenants in memory.
   */
  private armDue(): void {
    const at = this.residency.soonestDueReal();
    if (at === this.dueArmedAt) return;
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = null;
    this.dueArmedAt = at;
    if (!Number.isFinite(at)) return;
    this.dueTimer = setTimeout(
      () => {
        this.dueTimer = null;
        this.dueArmedAt = Infinity;
        const due = this.residency.dueBy(Date.now());
        for (const tenantId of due) this.queueTimers(tenantId);
        // none due yet (a timer moved): armed again for the soonest
        if (!due.length) this.armDue();
      },
      Math.min(Math.max(0, at - Date.now()), 2 ** 31 - 1),
    );
    this.dueTimer.unref();
  }

  /** Whether the directory knows a tenant (one a reset removed is not). */
  private readonly exists = (tenantId: string): boolean => this.directory.hasTenant(tenantId);

  /** A tenant a step created counts as used by it (it is not dropped before the tenants used before it). */
  private touchCreated(dir: readonly DirectoryChange[]): void {
    if (!this.residency.on) return;
    for (const [kind, name, tenantId] of dir) if (kind === 'tenant' && tenantId !== null) this.residency.touch(name);
  }

  /** Runs an import of tenants outside any step: the work it defers is not the log's, and is dropped. */
  private importing(fn: () => void): void {
    const was = this.inStep;
    this.inStep = true;
    try {
      fn();
    } finally {
      this.inStep = was;
    }
    if (!was) {
      const dropped = this.deferred.splice(0).length;
      if (dropped)
        console.error(`shared sandbox: ${dropped} piece(s) of work deferred by a tenant's load were dropped`);
    }
  }

  /** Waits for the drop of idle tenants under way, if any (and for any that started meanwhile). */
  private async dropSettled(): Promise<void> {
    while (this.evicting) await this.evicting;
  }

  /**
   * Drops the tenants used least recently beyond the bound, at once (a start, a catch-up between its pages): after
   * the drop under way in the background, if any.
   */
  private async evictIdle(extra: readonly string[] = []): Promise<void> {
    if (!this.residency.drops) return;
    await this.dropSettled();
    this.dropWritten();
    await this.residency.evict(this.applied, this.keptTenants(), extra);
    this.armDue();
  }

  /**
   * Between batches: starts dropping the tenants used least recently beyond the bound, their stored states written
   * while the next batches run (D-160: a tenant with a long history took most of a second, during which no call of
   * any tenant ran); they are dropped between two later batches (dropWritten), unless a step changed them.
   */
  private evictInBackground(): void {
    // none once a stop began: its writes would outlive the pool
    if (!this.residency.drops || this.evicting || this.closed) return;
    this.evicting = this.residency
      .write(this.applied, this.keptTenants(), this.residency.foreignOnly(this.timing, this.waitingTenants))
      .then(async (ids) => {
        if (this.timing.dropPauseMs && ids.length) await new Promise((r) => setTimeout(r, this.timing.dropPauseMs));
        this.written.push(...ids);
        if (!this.running) this.dropWritten();
      })
      .catch((err: unknown) => void this.stop(err, []))
      .finally(() => {
        this.evicting = null;
      });
  }

  /** The tenants with calls or reads waiting here: queued, or parked while their state is read. */
  private readonly waitingTenants = (): ReadonlySet<string> =>
    new Set([...this.prefetching.keys(), ...this.replaying.keys(), ...this.queuedTenants(Infinity)]);

  /** Between batches: drops the tenants whose stored state the background drop wrote (evictInBackground). */
  private dropWritten(): void {
    if (!this.written.length) return;
    this.residency.drop(this.written.splice(0), this.keptTenants());
    this.armDue();
  }

  /**
   * Tenants kept in memory whatever their use: a webhook listener is connected, an attempt awaits its answer, or
   * the directory does not know them yet (the demo tenants, made outside any step before the first lock).
   */
  private keptTenants(): Set<string> {
    const keep = new Set(this.listenerTenants.values());
    for (const p of this.pending.values()) if (p.partition !== 'all') keep.add(p.partition);
    // a tenant moved here is not its stored state until its skipped steps are applied (D-175)
    for (const id of this.replaying.keys()) keep.add(id);
    if (!this.dirChecked)
      for (const id of this.residency.residentIds()) if (!this.directory.hasTenant(id)) keep.add(id);
    return keep;
  }

  /** What applies a `listen` step (set before the log is applied). */
  handleListen(fn: (op: ListenOp) => void): void {
    this.onListen = fn;
  }

  /** Records a `listen` step; resolves once it is committed (and applied here). */
  async submitListen(op: ListenOp): Promise<void> {
    if (this.closed) throw new Error('the sandbox is closing');
    await this.enqueue({ t: 'listen', op, now: 0 }, null);
  }

  /** Called inside a live step that handed attempts to listeners: its commit notifies `LISTEN_CHANNEL`. */
  wakeListeners(): void {
    if (this.live) this.notifyListeners = true;
  }

  /** Work to finish when the replica closes, before the pool ends. */
  onClose(fn: () => Promise<void>): void {
    this.closers.push(fn);
  }

  /** The state snapshots are taken of and loaded into (without it, no snapshot is written). */
  holdState(port: StatePort): void {
    this.snapshots.hold(port);
  }

  /**
   * The snapshot `start` loads before it replays the steps after it (chosen when the store opened), and how to
   * choose again when other instances pruned it before it was read.
   */
  loadFrom(plan: LoadPlan, choose: (() => Promise<LoadPlan>) | null = null): void {
    this.plan = plan;
    this.choose = choose;
  }

  /** What this instance did with snapshots, for the operator. */
  snapshotActivity(): SnapshotActivity {
    return { ...this.snapshots.activity, appliedSeq: this.applied, writing: this.snapshots.writingNow };
  }

  /**
   * Loads the chosen snapshot (none: seq 0); when other instances pruned it before it was read, chooses again (a start
   * beside instances that write snapshots often). Answers the snapshot's step.
   */
  private async loadChosen(): Promise<number> {
    for (let tries = 1; ; tries++) {
      try {
        await this.loadSnapshot(this.plan);
        return this.plan.seq;
      } catch (err) {
        if (!(err instanceof SnapshotGone) || !this.choose || tries === 5) throw err;
        console.error(`shared sandbox: ${err.message}; choosing again`);
        this.plan = await this.choose();
      }
    }
  }

  /** Loads a snapshot into the state of a sandbox that has run no step yet; nothing, when the plan has none. */
  private async loadSnapshot({ seq, payload, parts }: LoadPlan): Promise<void> {
    if (!payload && !parts) return;
    let eager: readonly string[] | null = null;
    let due: [string, number][] = [];
    // the attempts that awaited their answer are awaited here too (none of them is this process's: a
    // `sent` step from the instance that made it, or the lost-attempt sweep, settles each), before the
    // domain's import links its restored attempts in flight to them
    // (a snapshot of format 1 holds none: it was taken with no attempt in flight)
    const counters = (c: ReplicaCounters) => {
      for (const p of c.pending ?? []) this.awaitSent(String(p.key), p.startedAt, false, p.partition);
      this.lastNow = c.lastNow;
      // the tenants with work under way now, the others on demand (D-150)
      if (this.residency.drops && c.eager) {
        eager = c.eager;
        due = c.due ?? [];
      }
      // steps the snapshot's instance skipped: applied when each tenant is loaded (D-172)
      for (const [id, first, last] of c.behind ?? []) this.behind.set(id, { first, last, covered: false });
      return eager ?? undefined;
    };
    // work the import defers (the domain would make again an attempt whose answer is not awaited) is
    // dropped: the instances that ran the log up to the snapshot have no such work
    this.inStep = true;
    try {
      if (payload) {
        counters(payload.replica);
        this.snapshots.load(payload);
      } else await this.snapshots.loadParts(seq, counters);
    } finally {
      this.inStep = false;
    }
    // the tenants not loaded: their parts are their stored states, and their timers are due when the snapshot says
    if (eager) this.residency.restoreDue(due);
    const dropped = this.deferred.splice(0).length;
    if (dropped)
      console.error(`shared sandbox: ${dropped} piece(s) of work deferred by the snapshot's import were dropped`);
    this.applied = seq;
  }

  /** Loads the chosen snapshot and applies the log after it (start-up), then takes calls. */
  async start(): Promise<void> {
    const t0 = performance.now();
    this.frozen = null;
    // seen by every prune before its snapshot is read, and reported as it applies the log until its sweeps report
    // it: nothing it has still to read is pruned meanwhile, however often the others write snapshots (D-181)
    await registerStart(this.db, this.instance);
    const starting = setInterval(() => this.reportApplied(), REPORT_EVERY_MS);
    starting.unref();
    try {
      await this.startFromLog(t0);
    } finally {
      clearInterval(starting);
    }
    this.sweeper = setInterval(() => {
      this.sweepLostAttempts();
      this.keepUp();
      this.checkOthers();
    }, this.timing.sweepMs);
    this.sweeper.unref();
    if (this.timing.followMs < this.timing.sweepMs) {
      this.follower = setInterval(() => this.follow(), this.timing.followMs);
      this.follower.unref();
    }
  }

  private async startFromLog(t0: number): Promise<void> {
    const seq = await this.loadChosen();
    await this.options.afterSnapshotRead?.(seq);
    this.plan = { seq: 0, payload: null };
    // the directory as of the log's head; the steps replayed below apply their changes again (each sets or
    // removes an entry, so the head's directory is what remains)
    const { rows } = await this.db.query<{ kind: DirectoryChange[0]; name: string; tenant_id: string }>(
      `SELECT kind, name, tenant_id FROM sandbox_directory`,
    );
    this.directory.apply(rows.map((r) => [r.kind, r.name, r.tenant_id]));
    await this.catchUp(this.db);
    // the tenants the snapshot's instance skipped steps of: their holders may be gone too, so their timers and
    // attempts are taken up here (D-172)
    const caught = await this.catchUpBehind(true);
    // an instance that drops no tenant holds every one from its start (those stored as rows too); one that drops
    // tenants keeps those only while they have work under way (their stored states now hold the skipped steps)
    if (this.residency.drops) await this.evictIdle(caught);
    else await this.ensureResident('all', true);
    this.snapshots.activity.loadedFrom = {
      seq,
      replayedSteps: this.applied - seq,
      readyMs: Math.round(performance.now() - t0),
    };
    this.started = true;
    // the timers that came due while no instance ran, of every zone at once
    this.queueTimers(undefined);
    this.reportApplied();
  }

  async close(): Promise<void> {
    // the closers may still record steps (a listener that goes with this instance)
    for (const fn of this.closers.splice(0)) await fn().catch(() => undefined);
    // the answers of this instance's webhook attempts are not waited for: the snapshot keeps them pending,
    // and another instance (or the next start) records each as lost once its time is past (D-138)
    this.closed = true;
    // the calls waiting for a tenant's state read outside the queue join it first (none waits from now on), and a
    // drop under way ends
    while (this.prefetching.size) await new Promise((r) => setTimeout(r, 5));
    await this.dropSettled();
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.follower) clearInterval(this.follower);
    if (this.dueTimer) clearTimeout(this.dueTimer);
    // a clean stop leaves a snapshot of every step committed so far (a read applies them first), so the
    // next start, of this version or a later one, replays nothing
    if (this.started && !this.fatal) {
      await this.snapshots.settled();
      await this.read(async () => {
        // the tenants moved here are whole in the stop's snapshot (D-175)
        await this.finishReplays();
        this.snapshots.atStop(this.applied, this.counters());
      }).catch((err: unknown) => console.error(`shared sandbox: no snapshot at stop (${(err as Error).message})`));
      await this.snapshots.settled();
    }
    // (no drop starts once `closed` is set: the one awaited above was the last)
    while (this.running) await new Promise((r) => setTimeout(r, 5));
    this.stopped = true;
    // its statements prepared for this instance go with it, not back to the pool
    this.writer?.release(true);
    this.writer = null;
    await this.db.query(`DELETE FROM sandbox_instances WHERE instance = $1`, [this.instance]).catch(() => {});
  }

  private counters(): ReplicaCounters {
    const pending: PendingSendState[] = [];
    for (const [key, p] of this.pending)
      pending.push({ key, startedAt: p.startedAt, live: p.live, partition: p.partition });
    const out: ReplicaCounters = { lastNow: this.lastNow, pending };
    // what a start loads at once, written whether or not this instance holds every tenant (the instance starting
    // from it may hold only some)
    const keep = this.keptTenants();
    out.eager = this.residency.busyOrKept(keep);
    out.due = this.residency.dueList();
    // the tenants whose steps were skipped here: a start loads them, and keeps the log from their first (D-172)
    if (this.behind.size) out.behind = [...this.behind].map(([id, b]) => [id, b.first, b.last]);
    return out;
  }

  /** Runs one call that changes state (recorded) and answers once it is committed. */
  call(
    app: string,
    req: Request,
    body: Buffer | Oversize | null,
    rawHeaders: string[] | null,
    ip: string,
  ): Promise<Response> {
    const headers: [string, string][] = [];
    if (rawHeaders) for (let i = 0; i < rawHeaders.length; i += 2) headers.push([rawHeaders[i], rawHeaders[i + 1]]);
    else req.headers.forEach((v, k) => headers.push([k, v]));
    const step: Step = { t: 'call', app, method: req.method, url: req.url, headers, ip, now: 0, tape: [] };
    if (body && !Buffer.isBuffer(body)) step.oversize = body.oversize;
    const bytes = Buffer.isBuffer(body) ? body : null;
    const routed = this.route(routedCall(step, bytes));
    return (this.enqueue(step, bytes, routed) as Promise<Answer>).then(async ({ response, delayMs }) => {
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
      return response!;
    });
  }

  /**
   * Runs `fn` after every step committed before now is applied; records nothing (reads only). `route`, the call
   * being read, names the tenants to have in memory first: its tenant's, or every tenant for a read across them.
   */
  read<T>(fn: () => Promise<T>, route?: RoutedCall): Promise<T> {
    const routed = route ? this.route(route) : null;
    const run = !route
      ? fn
      : async () => {
          const partition = this.routeNow(routed, () => route);
          const every = readsEveryTenant(route, partition) && this.isOperator(route);
          if (partition.kind === 'tenant') this.residency.usedBy(partition.tenantId, true);
          await this.ensureResident(partitionText(partition), every);
          return fn();
        };
    const turn = routed ? partitionText(routed.partition) : 'all';
    const tenant = routed?.partition.kind === 'tenant' ? routed.partition.tenantId : undefined;
    return new Promise<T>((resolve, reject) =>
      this.push({ step: null, turn, tenant, routed, body: null, run, resolve: resolve, reject }),
    );
  }

  /** A call's partition as it arrives (its turn in a batch, D-151), with the directory's version it was decided on. */
  private route(call: RoutedCall): Routed {
    return { partition: partitionOf(call, this.directory), version: this.directory.version };
  }

  /** The partition of a call routed on arrival, decided again (from `call`) only when the directory changed since. */
  private routeNow(routed: Routed | null, call: () => RoutedCall): Partition {
    return routed?.version === this.directory.version ? routed.partition : partitionOf(call(), this.directory);
  }

  private submitBackground(step: Step): void {
    if (this.closed) return;
    this.enqueue(step, null).catch((err) => console.error('shared sandbox: a background step failed', err));
  }

  private enqueue(step: Step, body: Buffer | null, routed: Routed | null = null): Promise<unknown> {
    // a tenant's timers step takes that tenant's turn in a batch, not one shared by every tenant's timers
    const turn = routed ? partitionText(routed.partition) : step.t === 'timers' && step.zone ? step.zone : 'all';
    const tenant = routed?.partition.kind === 'tenant' ? routed.partition.tenantId : undefined;
    return new Promise((resolve, reject) => {
      this.push({ step, turn, tenant, routed, body, run: () => this.runLive(step, body, routed), resolve, reject });
    });
  }

  private push(item: Item): void {
    if (this.scratch) return item.reject(new Error('a scratch core records no step'));
    if (this.fatal) return item.reject(this.fatal);
    // after its stop (what was queued ran first): nothing more is written, and nothing here fails for it
    if (this.stopped) return item.reject(new Error('this instance has stopped'));
    // a call of the tenant arrived here: it is served here from now (not only once its turn comes), so it is not
    // dropped for another instance's steps while its calls wait (D-172)
    if (item.tenant) this.residency.usedBy(item.tenant, true, true);
    if (this.park(item)) return;
    this.queue.push(item);
    this.wake?.();
    if (!this.running) void this.loop();
  }

  /**
   * A call or read of a tenant that is not in memory waits outside the queue while the tenant's stored state is
   * read and parsed (D-160): the other tenants' calls run meanwhile, instead of waiting in a batch for a load
   * that takes a second for a tenant with a long history. Its calls join the queue when the state is in memory.
   */
  private park(item: Item): boolean {
    const moving = this.movingFor(item);
    if (moving) {
      moving.items.push(item);
      return true;
    }
    const tenantId = item.tenant;
    if (!tenantId || !this.residency.on || this.closed) return false;
    const waiting = this.prefetching.get(tenantId);
    if (waiting) {
      waiting.items.push(item);
      return true;
    }
    if (this.residency.holds(tenantId) || !this.directory.hasTenant(tenantId)) return false;
    // a tenant whose state is being written is read once written, outside the queue too: loaded in a batch, it held
    // every other tenant's calls up for the whole drop under way (D-186); one whose steps were skipped here is read
    // ahead too, its skipped steps applied between batches once it is in memory (D-175)
    const entry: Prefetch = { items: [item], states: null };
    this.prefetching.set(tenantId, entry);
    this.residency.watch(tenantId);
    void this.untilWritten(tenantId)
      .then(() =>
        this.readingAhead(async () => {
          // loaded meanwhile (by a step of every tenant): its calls run on it
          if (this.residency.holds(tenantId) || this.fatal) return null;
          const began = performance.now();
          // in the background: calls of the tenants in memory have half the event loop meanwhile (D-186)
          const states = await this.residency.read([tenantId], this.applied, false, BACKGROUND);
          this.residency.countLoad(performance.now() - began);
          return states;
        }),
      )
      .then((states) => {
        entry.states = states;
      })
      // the load in the batch tries again, and fails the call as it would have without the prefetch
      .catch(() => {})
      .then(() => this.timing.prefetchPauseMs && new Promise((r) => setTimeout(r, this.timing.prefetchPauseMs)))
      .then(() => {
        this.prefetched.push(tenantId);
        this.wake?.();
        if (!this.running) void this.loop();
      });
    return true;
  }

  /**
   * Until the drop under way, if any, has written the tenant's stored state and dropped it or kept it in memory (the
   * drop's second half runs between batches, D-172).
   */
  private async untilWritten(tenantId: string): Promise<void> {
    while (this.residency.writing(tenantId) && !this.fatal && !this.closed)
      await (this.evicting ?? new Promise((r) => setTimeout(r, 2)));
  }

  /**
   * Runs a read of a tenant's stored state once the reads begun before it are over, one at a time (D-175): a read's
   * slices take turns with the batches, and many at once (tenants moved here together) made every round trip of a
   * batch wait for a slice of each (a second tenant's call waited a second for 25 of them). Two at a time were
   * slower than one, for the moved tenants and the others alike.
   */
  private readingAhead<T>(read: () => Promise<T>): Promise<T> {
    const run = this.readsAhead.then(read);
    this.readsAhead = run.catch(() => undefined);
    return run;
  }

  /**
   * Between batches: the tenants read by a prefetch are put in memory, unless they were loaded or dropped since (a
   * step of theirs came in the meantime) or a step removed them; their waiting calls join the queue either way.
   */
  private adoptPrefetched(): void {
    const until = performance.now() + ADOPT_SLICE_MS;
    while (this.prefetched.length) {
      // the rest between the next batches: many tenants moved at once are put in memory a few at a time (D-175)
      if (performance.now() >= until) break;
      const tenantId = this.prefetched.shift()!;
      const entry = this.prefetching.get(tenantId)!;
      this.prefetching.delete(tenantId);
      const unmoved = this.residency.unwatch(tenantId);
      if (this.fatal) {
        for (const item of entry.items) item.reject(this.fatal);
        continue;
      }
      // neither loaded nor dropped meanwhile: the state read is the tenant's as of its step, and its steps after it
      // are those skipped here, if any (a tenant behind before the read, or by steps skipped since, D-175)
      if (
        entry.states?.length &&
        unmoved &&
        !this.residency.writing(tenantId) &&
        this.directory.hasTenant(tenantId) &&
        !this.residency.holds(tenantId)
      ) {
        try {
          this.residency.adopt(entry.states, (fn) => this.importing(fn), true);
        } catch (err) {
          // as a load in a batch that fails: what is in memory can no longer be trusted
          this.stop(err, entry.items);
          continue;
        }
        this.armDue();
        if (this.behind.has(tenantId) && this.startReplay(tenantId, entry.states[0].seq, entry.items)) continue;
      }
      this.queue.push(...entry.items);
    }
  }

  /**
   * The moved tenant whose skipped steps are being applied that a call, a read or a tenant's timers step waits for
   * (D-175), if any.
   */
  private movingFor(item: Item): Replaying | undefined {
    if (!this.replaying.size) return undefined;
    const tenantId = item.tenant ?? (item.step?.t === 'timers' ? item.step.zone : undefined);
    return tenantId === undefined ? undefined : this.replaying.get(tenantId);
  }

  private async loop(): Promise<void> {
    this.running = true;
    try {
      for (;;) {
        this.dropWritten();
        this.adoptPrefetched();
        if (this.replaying.size && !this.fatal) {
          try {
            await this.advanceReplays();
          } catch (err) {
            this.stop(err, []);
          }
        }
        if (this.fatal || (!this.queue.length && !this.replaying.size && !this.prefetched.length)) break;
        // (what waits for a tenant moved here is parked with it, those queued before taken out as it moved)
        const batch = fairBatch(this.queue);
        await this.runBatch(batch);
        if (this.fatal) break;
        this.evictInBackground();
        if (performance.now() - this.reportedAt >= REPORT_EVERY_MS) this.reportApplied();
        // between batches no step runs: the state is exactly the log up to `applied`, but for a tenant moved here
        // whose skipped steps are still being applied (its snapshot waits for them, D-175)
        if (!this.replaying.size) this.snapshots.between(this.applied, () => this.counters());
      }
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: Item[]): Promise<void> {
    const writes = batch.some((i) => i.step !== null);
    const results: { item: Item; ok: boolean; value: unknown }[] = [];
    // tenants' calls run beside other instances' batches, under their tenants' locks (D-173)
    let beside: string[] | null = null;
    try {
      // the tenants of the batch whose steps were skipped here are loaded first, outside any lock: their skipped steps
      // are committed, and applying them takes none; under a lock, another instance's calls of them would wait (D-173)
      if (this.behind.size && !this.held && !this.besideHeld) {
        const ids = new Set<string>();
        for (const item of batch)
          if (item.tenant && this.behind.has(item.tenant) && this.directory.hasTenant(item.tenant))
            ids.add(item.tenant);
        if (ids.size) await this.loadTenants([...ids], false);
      }
      beside = writes && !this.held ? this.besideTenants(batch) : null;
      const held = this.besideHeld;
      this.besideHeld = null;
      if (held) {
        // the locks taken again at the last commit: the calls of other tenants wait for the next batch
        if (beside && !beside.every((t) => held.tenants.has(t))) {
          const rest = batch.filter((i) => !i.tenant || !held.tenants.has(i.tenant));
          if (rest.length < batch.length) {
            this.queue.unshift(...rest);
            batch.splice(0, batch.length, ...batch.filter((i) => i.tenant && held.tenants.has(i.tenant)));
            beside = this.besideTenants(batch);
          } else beside = null;
        }
        if (beside) {
          await this.applyPage(held.page, this.writer!);
          const still = this.besideTenants(batch);
          if (!still?.every((t) => held.tenants.has(t))) beside = null;
        }
        // not used: the transaction holding them ends with the next round trip
        if (!beside) this.partlyHeld = true;
      } else if (beside) {
        this.writer ??= await this.openWriter();
        // one round trip: the transaction (unless one is open), the log's lock shared, the tenants' locks and the
        // first page of steps committed elsewhere (every step of these tenants among them)
        const out = (await this.writer.query(
          `${this.begin()}SELECT pg_advisory_xact_lock_shared(${LOG_LOCK}); ${tenantLocksSql(beside)}${pageSql(this.applied)}`,
        )) as unknown as pg.QueryResult[];
        await this.applyPage(out[out.length - 1].rows, this.writer);
        // what was applied may have changed a call's route or made a rule of no tenant: the batch runs alone
        const still = this.besideTenants(batch);
        if (!still?.every((t) => beside!.includes(t))) {
          this.partlyHeld = true;
          beside = null;
        }
      }
      if (beside) this.batchCounts.beside++;
      else if (this.held) {
        // the lock was taken again in the previous batch's commit round trip: apply what was read under it
        await this.applyPage(this.held.page, this.writer!);
      } else if (writes) {
        this.writer ??= await this.openWriter();
        // one round trip: the transaction (unless one is open), the lock and the first page of steps committed
        // elsewhere
        const out = (await this.writer.query(
          `${this.begin()}SELECT pg_advisory_xact_lock(${LOG_LOCK}); ${pageSql(this.applied)}`,
        )) as unknown as pg.QueryResult[];
        this.held = { page: [] };
        await this.applyPage(out[out.length - 1].rows, this.writer);
      } else {
        await this.catchUp(this.db);
        // a transaction left open without the lock, or with locks no batch uses: end it
        if (this.opened || this.partlyHeld) {
          this.opened = this.partlyHeld = false;
          await this.writer!.query('COMMIT');
        }
      }
      if (this.held) this.batchCounts.alone++;
      // under the lock, with every committed step applied, the state is the log's head: what the directory lacks
      // of it was made outside any step (the demo tenants, seeded by every instance at its start)
      if (this.held && !this.dirChecked && this.dirSource) {
        this.dirChecked = true;
        this.dirExtra.push(...this.directory.diffAll(this.dirSource, true));
      }
      const done: LoggedStep[] = [];
      // beside other batches, a step's number is known once it is appended: what it changed is noted then
      const fired: (string | null)[][] = [];
      const began = performance.now();
      for (let i = 0; i < batch.length; i++) {
        if (i > 0 && performance.now() - began >= this.timing.batchBudgetMs) {
          // the rest waits for the next batch, with whatever arrived meanwhile (D-151)
          this.queue.unshift(...batch.splice(i));
          break;
        }
        const item = batch[i];
        this.partition = 'all';
        try {
          results.push({ item, ok: true, value: await item.run() });
        } catch (err) {
          if (err instanceof NotLoaded) throw err.cause;
          results.push({ item, ok: false, value: err });
        }
        // a read stopped the instance (a gap in the log, another version's step, a failed load): no later call of the
        // batch runs on what it loaded
        if (this.fatal) throw this.fatal;
        // a step that failed part-way fails the same way on every replay: it is in the log either way
        if (item.step) {
          const seq = this.applied + done.length + 1;
          done.push({ seq, step: item.step, body: item.body, partition: this.partition });
          if (beside) fired.push(this.fired.splice(0));
          else this.noteChanges(item.step, this.partition, seq);
        } else this.fired.length = 0;
      }
      // one round trip: the steps and the commit
      const notify = this.notifyListeners ? `NOTIFY ${LISTEN_CHANNEL}; ` : '';
      this.notifyListeners = false;
      const dir = () =>
        directorySql([...this.dirExtra.splice(0), ...done.flatMap((d) => (d.step.t === 'call' && d.step.dir) || [])]);
      if (beside) {
        // when more calls of tenants wait, the same round trip opens their transaction and tries their locks again
        // (never waiting: those not granted are given up with the transaction at the next round trip)
        const waiting = this.besideWanted() ? this.queuedTenants(64) : [];
        const next = waiting.length
          ? ` BEGIN; SELECT pg_try_advisory_xact_lock_shared(${LOG_LOCK}) AS shared, ${tryTenantLocksSql(waiting)} AS tenants;`
          : '';
        // the append's lock is held for the INSERT and the commit only; the steps other batches appended before these
        // (of other tenants: these tenants' locks and the log's are held) and after them are read once it is
        // committed, in the same round trip
        const out = (await this.writer!.query(
          `SELECT pg_advisory_xact_lock(${APPEND_LOCK}); ${done.length ? this.appendAfter(done, this.applied) : ''}${dir()}${notify}COMMIT;${next} ${pageSql(this.applied)}`,
        )) as unknown as pg.QueryResult[];
        const page = out[out.length - 1].rows as StoredStep[];
        const first = done.length ? firstAppended(out[1]) : Infinity;
        const between = page.filter((r) => Number(r.seq) < first);
        let after: StoredStep[] | null = null;
        if (waiting.length) {
          const { shared, tenants } = out[out.length - 2].rows[0] as { shared: boolean; tenants: boolean };
          // the steps after these, read under those locks (a full page is read again by the next batch)
          after = page.length === CATCH_UP_PAGE ? null : page.filter((r) => Number(r.seq) > first + done.length - 1);
          if (!shared || !tenants || !after) {
            this.partlyHeld = true;
            after = null;
          }
        }
        // a full page: the rest of the steps appended before these (never, but for an instance held up for long)
        while (between.length % CATCH_UP_PAGE === 0 && between.length && first !== Infinity) {
          const after = Number(between[between.length - 1].seq);
          if (after + 1 >= first) break;
          const { rows } = await this.db.query<StoredStep>(pageSql(after, first));
          between.push(...rows);
          if (rows.length < CATCH_UP_PAGE) break;
        }
        const last = between.length ? Number(between[between.length - 1].seq) : this.applied;
        if (done.length) expectAppendedAfter(first, last);
        // steps of other tenants: applied after this batch's, which they commute with
        for (const r of between) {
          const t = tenantOfPartition(r.partition ?? 'all');
          const step = JSON.parse(r.step) as Step;
          if (t === null || beside.includes(t) || step.t !== 'call' || step.g)
            throw new Error(`step ${r.seq} (${r.partition ?? 'all'}) was appended while this batch's locks were held`);
          await this.applyStored(r);
        }
        if (between.length) this.foreignAt = performance.now();
        for (let i = 0; i < done.length; i++) {
          done[i].seq = last + 1 + i;
          this.noteChanges(done[i].step, done[i].partition, done[i].seq, fired[i]);
        }
        if (after) this.besideHeld = { tenants: new Set(waiting), page: after };
      } else if (this.held) {
        // when more calls wait, the same round trip opens their transaction and tries the lock again: it is
        // granted only when no other instance waits for it (the commit hands it to a waiting one first); not while
        // other instances' batches run beside this one's (D-173)
        const again = this.queue.length > 0 && !this.besideWanted();
        const next = again
          ? ` BEGIN; SELECT pg_try_advisory_xact_lock(${LOG_LOCK}) AS locked; ${pageSql(this.applied + done.length)}`
          : '';
        const out = (await this.writer!.query(
          `${done.length ? this.appendAfter(done, this.applied) : ''}${dir()}${notify}COMMIT;${next}`,
        )) as pg.QueryResult | pg.QueryResult[];
        this.held = null;
        // under the log's lock, the steps follow the last one applied here
        if (done.length) expectAppendedAfter(firstAppended((out as pg.QueryResult[])[0]), this.applied);
        if (again) {
          const rs = out as pg.QueryResult[];
          // not granted: the transaction stays open, and the next batch waits for the lock in it
          if ((rs[rs.length - 2].rows[0] as { locked: boolean }).locked)
            this.held = { page: rs[rs.length - 1].rows as StoredStep[] };
          else this.opened = true;
        }
      }
      if (done.length) this.snapshots.committed(done[0].seq - 1, done[done.length - 1].seq);
      if (done.length) this.applied = done[done.length - 1].seq;
    } catch (err) {
      // what ran here may not be in the log: this instance's memory can no longer be trusted
      this.writer?.release(err as Error);
      this.writer = null;
      this.held = this.besideHeld = null;
      this.opened = this.partlyHeld = false;
      this.stop(err, batch);
      return;
    }
    for (const r of results) {
      if (r.ok) r.item.resolve(r.value);
      else r.item.reject(r.value);
    }
  }

  /** How a round trip that takes locks begins: a transaction, unless one is open; one holding unused locks ended first. */
  private begin(): string {
    const out = this.partlyHeld ? 'COMMIT; BEGIN; ' : this.opened ? '' : 'BEGIN; ';
    this.opened = this.partlyHeld = false;
    return out;
  }

  /** The tenants of the calls and reads waiting in the queue, at most `max` of them. */
  private queuedTenants(max: number): string[] {
    const out = new Set<string>();
    for (const item of this.queue) {
      if (item.tenant) out.add(item.tenant);
      if (out.size === max) break;
    }
    return [...out];
  }

  /** Whether other instances append now: a batch of tenants' calls then runs beside theirs (D-173). */
  private besideWanted(): boolean {
    return performance.now() - this.foreignAt < BESIDE_AFTER_FOREIGN_MS;
  }

  /**
   * The tenants whose locks a batch takes to run beside other instances' (D-173), or null when it must run under the
   * log's lock alone: a batch runs beside others' only when they append now, and when it holds only calls and reads
   * routed to tenants, none of which may change the state of no tenant (a rule of no tenant, a sign-in, a webhook
   * listener of its tenant).
   */
  private besideTenants(batch: readonly Item[]): string[] | null {
    if (!this.started || this.scratch || !this.besideWanted()) return null;
    // the first batch under the lock compares the directory with the state (the demo tenants)
    if (this.dirSource && !this.dirChecked) return null;
    if (this.couplings?.rulesOfNoTenant()) return null;
    // a tenant with a webhook listener connected hands attempts to the listeners' board, which is every tenant's
    const listened = this.listenerTenants.size ? new Set(this.listenerTenants.values()) : null;
    const tenants = new Set<string>();
    for (const item of batch) {
      const tenantId = item.tenant;
      if (!tenantId || !this.directory.hasTenant(tenantId) || listened?.has(tenantId)) return null;
      const step = item.step;
      if (step) {
        if (step.t !== 'call') return null;
        const call = () => routedCall(step, item.body);
        const p = this.routeNow(item.routed ?? null, call);
        if (p.kind !== 'tenant' || p.tenantId !== tenantId || signsIn(call())) return null;
      }
      tenants.add(tenantId);
    }
    return [...tenants];
  }

  /**
   * Stops this instance for good: its calls, queued and to come, are refused with what the log lacks or holds that
   * this instance cannot apply as it was found (a gap, another version's step), else with `err` as the log's failure.
   * Reports it once.
   */
  private stop(err: unknown, batch: Item[]): null {
    const first = !this.fatal;
    this.fatal ??=
      err instanceof LogRefusal ? err : new Error(`the log could not be written (${(err as Error).message})`);
    const moving = [...this.replaying.values()].flatMap((m) => m.items);
    this.replaying.clear();
    for (const item of [...batch, ...this.queue.splice(0), ...moving]) item.reject(this.fatal);
    if (first) this.onFatal(this.fatal);
    return null;
  }

  /** Who writes the steps, as literals: the log format and the code version. */
  private writerLiterals(): string {
    const { logFormat, codeVersion } = this.options.writer;
    return `${Math.floor(logFormat)}, ${literal(codeVersion)}`;
  }

  /**
   * The INSERT of a batch's steps, prepared on the writer's connection (D-180): numbered after the last step in the
   * log, which is `applied` under the log's lock, or a step another batch appended since when run beside others'
   * (D-173); answers their numbers.
   */
  private appendAfter(steps: LoggedStep[], applied: number): string {
    const column = (of: (s: LoggedStep) => string, type: string) => `ARRAY[${steps.map(of).join(', ')}]::${type}[]`;
    return `EXECUTE ${APPEND_STATEMENT}(${Math.floor(applied)}, ${column((s) => literal(JSON.stringify(s.step)), 'text')}, ${column((s) => (s.body ? byteaLiteral(s.body) : 'NULL'), 'bytea')}, ${column((s) => literal(s.partition), 'text')}); `;
  }

  /** The connection that appends: with standard strings, so a literal needs only its quotes doubled. */
  private async openWriter(): Promise<pg.PoolClient> {
    const client = await this.db.connect();
    // the append of every batch's round trip, planned once for the connection, not in each round trip (a batch
    // beside others' spent about as long planning its INSERT as running it, D-180); its generic plan finds the head
    // by the index on `seq` however small the log was when it was made (D-183)
    const head = `(SELECT coalesce(max(seq), $1) AS at FROM sandbox_log WHERE seq > $1)`;
    try {
      await client.query(
        `SET standard_conforming_strings = on; SET plan_cache_mode = force_generic_plan; ` +
          `PREPARE ${APPEND_STATEMENT}(bigint, text[], bytea[], text[]) AS INSERT INTO sandbox_log (seq, step, body, partition, log_format, code_version) SELECT h.at + v.i, v.step, v.body, v.partition, ${this.writerLiterals()} FROM unnest($2, $3, $4) WITH ORDINALITY AS v(step, body, partition, i) CROSS JOIN ${head} AS h RETURNING seq`,
      );
    } catch (err) {
      // not kept by the instance, which stops: closed, or the pool's end would wait for it for good
      client.release(err as Error);
      throw err;
    }
    return client;
  }

  /** Applies a page of committed steps; when the page was full, reads and applies the rest. */
  private async applyPage(rows: StoredStep[], db: Db | pg.PoolClient): Promise<void> {
    for (let at = 0; at < rows.length;) {
      // the tenants of the next run of steps are loaded together (a round trip per 200, not one per step), then
      // the idle ones dropped again before the next run
      const end = await this.prefetch(rows, at);
      for (const r of rows.slice(at, end)) await this.applyStored(r);
      at = end;
      if (at < rows.length) await this.evictIdle();
    }
    if (rows.length === CATCH_UP_PAGE) {
      await this.evictIdle();
      await this.catchUp(db);
    }
  }

  /** Applies (or skips) a step another instance committed, the next one after `applied`. */
  private async applyStored(r: StoredStep): Promise<void> {
    this.check(r);
    this.foreignAt = performance.now();
    const step = JSON.parse(r.step) as Step;
    this.partition = r.partition ?? 'all';
    if (this.skips(step, this.partition)) return this.skip(step, this.partition, Number(r.seq));
    if (this.lagging && this.changesGlobal(step, r.body, this.partition)) await this.catchUpBehind(false);
    await this.ensureFor(step, this.partition, false);
    await this.apply(step, r.body, false);
    // the directory changes the step made where it ran
    if (step.t === 'call' && step.dir) {
      this.directory.apply(step.dir);
      this.touchCreated(step.dir);
    }
    this.count(this.partition);
    this.noteChanges(step, this.partition, Number(r.seq));
    this.applied = Number(r.seq);
  }

  /**
   * Loads the tenants the steps `rows[from…]` are of, as many as the bound of idle tenants allows (at least 16), and
   * returns where the steps they cover end. A tenant's newest stored state before the first of them is its state
   * before its first step among them. A tenant with no stored state yet (created by one of these steps: the
   * directory is the log head's at a start) is left to its step.
   */
  private async prefetch(rows: readonly StoredStep[], from: number): Promise<number> {
    const r = this.residency;
    // skipping, a tenant not in memory is loaded by the few steps that need it, one by one (D-172)
    if (!r.on || this.skipping) return rows.length;
    const room = Math.max(16, r.bound);
    const wanted = new Set<string>();
    let end = from;
    for (; end < rows.length; end++) {
      const t = tenantOfPartition(rows[end].partition);
      if (t === null || wanted.has(t) || !this.directory.hasTenant(t) || r.missing([t]).length === 0) continue;
      if (wanted.size === room) break;
      wanted.add(t);
    }
    // as any load: the steps a snapshot's instance skipped of each (D-172) applied after its stored state
    if (wanted.size) await this.loadTenants([...wanted], true);
    return end;
  }

  /**
   * Refuses a step this instance must not replay: one after a gap (pruned before this instance applied
   * it: a restart loads the snapshot that covers it), or one written by another version (D-138).
   */
  private check(r: StoredStep): void {
    if (Number(r.seq) !== this.applied + 1)
      throw new LogRefusal(
        `steps ${this.applied + 1} to ${Number(r.seq) - 1} were pruned before this instance (${this.instance}) applied them (${this.started ? 'it fell more than two snapshots behind' : 'while it started'})`,
      );
    this.checkWriter(r);
  }

  private checkWriter(r: StoredStep): void {
    const by = { logFormat: r.log_format ?? 0, codeVersion: r.code_version ?? 'unrecorded' };
    if (!sameWriter(by, this.options.writer))
      throw new LogRefusal(
        `step ${r.seq} was written by ${describeWriter(by)}; this instance is ${describeWriter(this.options.writer)} and does not replay another version's steps`,
      );
  }

  /** Applies every step committed after the last one applied here. */
  private async catchUp(db: Db | pg.PoolClient): Promise<void> {
    const { rows } = await db.query<StoredStep>(pageSql(this.applied));
    await this.applyPage(rows, db);
  }

  private async runLive(step: Step, body: Buffer | null, routed: Routed | null): Promise<unknown> {
    // never backwards, whichever instance's real clock ran the step before
    step.now = Math.max(Date.now(), this.lastNow);
    this.partition = this.partitionOfStep(step, body, routed);
    this.count(this.partition);
    const partition = this.partition;
    const tenantCall = step.t === 'call' && tenantOfPartition(partition) !== null;
    const firesBefore = tenantCall ? (this.couplings?.firesOfNoTenant() ?? 0) : 0;
    try {
      // the tenants whose steps were skipped here catch up before a step that may change what their steps read
      if (this.mayChangeGlobal(step, body, partition)) await this.catchUpBehind(false);
      await this.ensureFor(step, partition, step.t === 'call');
    } catch (err) {
      // not the step's failure (it would fail the same way on every replay): this instance's
      throw new NotLoaded(err);
    }
    try {
      return await this.apply(step, body, true);
    } finally {
      if (step.t === 'call') {
        const dir = this.directoryChanges(step, partition);
        if (dir.length) {
          step.dir = dir;
          this.touchCreated(dir);
        }
        // a tenant's call that changed the state of no tenant is applied by every instance (D-172)
        if (tenantCall && (signsIn(routedCall(step, body)) || this.couplings?.firesOfNoTenant() !== firesBefore))
          step.g = 1;
      }
    }
  }

  private count(partition: string): void {
    const kind = tenantOfPartition(partition) === null ? (partition as 'global' | 'create' | 'all') : 'tenant';
    this.partitionCounts[kind]++;
  }

  /**
   * The partition a live step belongs to, decided before it runs: a call's by the router (route.ts; as routed when
   * it arrived, unless the directory changed since); a `sent` step's that of the step that made the attempt; a
   * `listen` step's the listener's tenant (or the attempt's); a `timers` step its tenant's (D-154), or every zone's (`all`) without one.
   */
  private partitionOfStep(step: Step, body: Buffer | null, routed: Routed | null): string {
    switch (step.t) {
      case 'call':
        return partitionText(this.routeNow(routed, () => routedCall(step, body)));
      case 'timers':
        // a tenant's timers step changes that tenant (D-154); one of a tenant a reset removed fires nothing
        if (step.zone === undefined) return 'all';
        return this.directory.hasTenant(step.zone) ? step.zone : 'global';
      case 'sent':
        return this.sentPartition(String(step.key));
      case 'listen': {
        const op = step.op;
        if (op.op === 'connect') return this.directory.hasTenant(op.tenantId) ? op.tenantId : 'global';
        if (op.op === 'gone') return this.listenerTenants.get(op.listenerId) ?? 'all';
        return this.directory.tenantOfObject('delivery', deliveryOfAttempt(op.attemptId)) ?? 'all';
      }
    }
  }

  /**
   * What the call just run changed in the directory (applied here, recorded with the step): its tenant's keys
   * (and accounts and sessions, for a call of the console or the dashboard), the tenants a `create` call made,
   * everything after an `all` call. A `global` call changes no tenant.
   */
  private directoryChanges(step: Extract<Step, { t: 'call' }>, partition: string): DirectoryChange[] {
    const source = this.dirSource;
    if (!source || partition === 'global') return [];
    if (partition === 'all') return this.directory.diffAll(source);
    if (partition === 'create') {
      const out: DirectoryChange[] = [];
      for (const t of this.directory.created(source))
        out.push(...this.directory.diff(t, source.entriesOf(t, true), true));
      return out;
    }
    const path = step.url.slice(step.url.indexOf('/', step.url.indexOf('//') + 2));
    const deep = step.app !== 'anon' && !path.startsWith('/api/');
    return this.directory.diff(partition, source.entriesOf(partition, deep), deep);
  }

  /** Runs one step on this instance's state; the same code whether it is live or replayed. */
  private async apply(step: Step, body: Buffer | null, live: boolean): Promise<unknown> {
    this.frozen = step.now;
    this.lastNow = Math.max(this.lastNow, step.now);
    this.live = live;
    this.inStep = true;
    try {
      switch (step.t) {
        case 'call': {
          this.tape = step.tape;
          this.tapeAt = 0;
          const app = this.apps.get(step.app);
          if (!app) throw new Error(`the log names an app this instance does not serve: ${step.app}`);
          // a chaos latency rule delays the answer after the commit, never the steps queued behind this one
          const answer: Answer = { response: null, delayMs: 0 };
          const delay = (ms: number) => void (answer.delayMs += ms);
          const fast = this.fast.get(step.app);
          const taken = fast ? takenBy(fast, step, body) : null;
          answer.response = taken
            ? await taken
            : await settled(await app(requestOf(step, body), connectionOf(step, !live, delay)));
          await this.drain();
          return answer;
        }
        case 'timers':
          this.tape = [];
          if (live) this.timersQueued.delete(step.zone ?? '');
          this.fireDue?.(step.zone);
          await this.drain();
          return null;
        case 'listen':
          this.tape = [];
          if (!this.onListen) throw new Error('the log holds a webhook listener step and no listener board is set');
          if (step.op.op === 'connect') this.listenerTenants.set(step.op.listenerId, step.op.tenantId);
          if (step.op.op === 'gone') this.listenerTenants.delete(step.op.listenerId);
          this.onListen(step.op);
          await this.drain();
          return null;
        case 'sent': {
          this.tape = [];
          const key = String(step.key);
          const p = this.pending.get(key);
          // a second answer (the instance was only slow, or two instances gave it up) changes nothing
          if (p) {
            this.pending.delete(key);
            p.resolve(step.out);
            await this.drain();
          }
          return null;
        }
      }
    } finally {
      this.inStep = false;
      this.frozen = null;
      this.tape = null;
      this.live = false;
    }
  }

  // the work a step deferred (the screening pipeline, a first webhook attempt) and the continuations of the
  // promises it settled (a webhook's answer) are part of it: run them until none is left
  private async drain(): Promise<void> {
    for (;;) {
      for (let i = 0; i < 3; i++) await Promise.resolve();
      if (this.deferred.length === 0) return;
      for (const run of this.deferred.splice(0)) {
        try {
          run();
        } catch (err) {
          console.error('shared sandbox: deferred work failed', err);
        }
      }
    }
  }

  /**
   * An idle instance applies what the others committed now and then, so it never falls behind the steps
   * that snapshots let the others prune (D-138).
   */
  private keepUp(): void {
    if (this.closed || this.fatal) return;
    if (this.running || this.queue.length) return void this.reportApplied();
    this.read(() => Promise.resolve())
      .then(() => this.reportApplied())
      .catch(() => {});
  }

  /**
   * An idle instance applies what the others committed while they write (their steps were applied here within a
   * sweep): a call arriving here then waits only for the steps since the last time (D-191). It reports nothing: the
   * sweep does. (Its read is queued or running until it is done: the queue or `running` says so.)
   */
  private follow(): void {
    if (this.closed || this.fatal || this.running || this.queue.length) return;
    if (performance.now() - this.foreignAt >= this.timing.sweepMs) return;
    this.read(() => Promise.resolve()).catch(() => {});
  }

  /**
   * Tells the others how far this instance has applied the log: pruning never deletes a step a live instance
   * has still to apply (snapshots.ts), however fast the others take snapshots (D-138).
   */
  private reportApplied(): void {
    if (this.closed || this.fatal) return;
    this.reportedAt = performance.now();
    this.db
      .query(
        `INSERT INTO sandbox_instances (instance, applied_seq, seen_at) VALUES ($1, $2, now())
         ON CONFLICT (instance) DO UPDATE SET applied_seq = EXCLUDED.applied_seq, seen_at = now()`,
        [this.instance, Math.min(this.applied, this.logNeededFrom() - 1)],
      )
      .catch(() => {});
  }

  /** The first step this instance may still read from the log: the first skipped step no stored state covers. */
  private logNeededFrom(): number {
    let from = Infinity;
    for (const b of this.behind.values()) if (!b.covered) from = Math.min(from, b.first);
    for (const m of this.replaying.values()) from = Math.min(from, m.from, m.after + 1);
    return from;
  }

  /**
   * Every sweep: which other instances reported lately; while tenants are behind, whether one of them went (its
   * reports stopped), in which case the tenants it may have held are loaded here, so that their timers and webhook
   * attempts carry on, and which tenants behind have a stored state that covers their skipped steps (their holder
   * wrote one), so that their steps need not stay in the log (D-172). The instances are followed even while no tenant
   * is behind: one that goes right after this instance skipped a step of its tenant was seen before.
   */
  private checkOthers(): void {
    if (this.checkingOthers || this.closed || this.fatal || !this.started || !this.residency.drops) return;
    this.checkingOthers = true;
    const goneMs = this.timing.sweepMs * GONE_AFTER_SWEEPS;
    void (async () => {
      const others = await this.db.query<{ instance: string }>(
        `SELECT instance FROM sandbox_instances WHERE instance <> $1 AND seen_at > now() - make_interval(secs => $2)`,
        [this.instance, goneMs / 1000],
      );
      // a stop under way: the others going too is no reason to load anything
      if (this.closed) return;
      const now = new Set(others.rows.map((r) => r.instance));
      const gone = [...this.othersSeen].some((i) => !now.has(i));
      this.othersSeen = now;
      if (!this.behind.size) return;
      const ids = [...this.behind.keys()];
      const stored = await this.db.query<{ id: string; seq: string | null }>(NEWEST_STORED_SEQ_SQL, [
        ids,
        this.applied,
      ]);
      for (const r of stored.rows) {
        const b = this.behind.get(r.id);
        // one whose state is read ahead may be loaded from an older state: the log keeps its skipped steps (D-175)
        if (!b || r.seq === null || this.prefetching.has(r.id)) continue;
        const seq = Number(r.seq);
        if (seq >= b.last) b.covered = true;
        else if (seq >= b.first) b.first = seq + 1;
      }
      if (gone && !this.closed) this.takeOverBehind();
    })()
      .catch((err: unknown) =>
        console.error(`shared sandbox: the other instances could not be read (${(err as Error).message})`),
      )
      .finally(() => {
        this.checkingOthers = false;
      });
  }

  /**
   * The tenants behind, an instance gone (checkOthers): each one's stored state is read ahead of a read of it that
   * puts it in memory, as for a tenant whose call arrived here (D-160, D-175), so that their timers and webhook
   * attempts carry on here. Loaded in one turn of the queue, every other call waited for all of them (D-188).
   */
  private takeOverBehind(): void {
    for (const tenantId of [...this.behind.keys()]) {
      if (!this.directory.hasTenant(tenantId) || this.residency.holds(tenantId)) continue;
      this.push({
        step: null,
        turn: tenantId,
        tenant: tenantId,
        body: null,
        run: () => this.ensureResident(tenantId, false),
        resolve: () => {},
        // (the instance stopped, or stops on the failure: nothing is left to take up)
        reject: () => {},
      });
    }
  }

  /** An attempt whose instance stopped before the receiver answered is recorded as a failed attempt. */
  private sweepLostAttempts(): void {
    const now = Date.now();
    const lostAfter = limits.policy.webhook.timeoutMs + this.timing.lostAttemptGraceMs;
    for (const [key, p] of this.pending) {
      if (p.live || p.givenUp || now - p.startedAt < lostAfter) continue;
      p.givenUp = true;
      this.submitBackground({ t: 'sent', key, out: LOST_ATTEMPT, now: 0 });
    }
  }
}

/**
 * The next batch, taken out of `queue`: its first BATCH_MAX items while they are all of one partition; else, oldest
 * first, at most FAIR_SHARE of each partition (D-151). The order within a partition is kept, and so is the order
 * of what stays queued.
 */
export function fairBatch<T extends { turn: string }>(queue: T[]): T[] {
  const turns = new Set<string>();
  for (const item of queue) if (turns.add(item.turn).size > 1) break;
  if (turns.size <= 1) return queue.splice(0, BATCH_MAX);
  const taken = new Map<string, number>();
  const batch: T[] = [];
  const left: T[] = [];
  for (const item of queue) {
    const n = taken.get(item.turn) ?? 0;
    if (n < FAIR_SHARE && batch.length < BATCH_MAX) {
      taken.set(item.turn, n + 1);
      batch.push(item);
    } else left.push(item);
  }
  queue.length = 0;
  for (const item of left) queue.push(item);
  return batch;
}

/**
 * The log as this instance found it cannot be applied here: it lacks steps this instance must apply (pruned, or
 * removed by hand), or holds one another version wrote. The instance stops with this message rather than run on
 * without them (D-176).
 */
class LogRefusal extends Error {}

/** A tenant a live step needed could not be loaded: the instance stops (the step is not the log's). */
class NotLoaded extends Error {
  constructor(override readonly cause: unknown) {
    super((cause as Error).message);
  }
}

const LOST_ATTEMPT: SendOutcome = {
  statusCode: null,
  error: 'the sandbox instance making this attempt stopped before the receiver answered (counted as a failed attempt)',
  durationMs: 0,
  responseBody: '',
  responseTruncated: false,
};
