// The shared store (D-112): the in-memory holders on every instance, kept identical by the log of
// recorded steps in PostgreSQL (replica.ts). Opening it migrates the database, takes the values every
// instance must share from `sandbox_meta` (created by whichever instance comes first), refuses an
// instance whose settings would make it diverge from the others, and replays the log.
// Requirements: none of its own; decisions D-112, D-113, D-21.

import { createHash, randomBytes } from 'node:crypto';
import { firstSeqAt } from '../domain/screening/ledger.js';
import { secureToken } from '../domain/rng.js';
import type { Settings } from '../domain/settings.js';
import type { OpenStore } from '../domain/store.js';
import { openMemoryStore } from '../store/memory.js';
import { migrate } from '../store/postgres/migrate.js';
import { openPool, type Db } from '../store/postgres/pool.js';
import { READABLE_SNAPSHOT_FORMATS, SNAPSHOT_FORMAT } from '../domain/snapshot.js';
import type { StoreReport } from '../domain/store.js';
import { Replica, type ReplicaTiming } from './replica.js';
import { refuseTenantState } from './residency.js';
import type { LoadPlan, SnapshotPayload } from './snapshotter.js';
import { GLOBAL_PART, listSnapshots, readWholeSnapshot, tailAfter } from './snapshots.js';
import {
  CODE_VERSION,
  LOG_FORMAT,
  refuseSnapshot,
  refuseSteps,
  sameWriter,
  UNRECORDED,
  type Writer,
} from './versions.js';

/** The settings that decide what a call does: every instance on one database must agree on them. */
function sharedSettings(config: Readonly<Settings>): Record<string, unknown> {
  return {
    seed: config.seed,
    corpusSize: config.corpusSize,
    seedDemo: config.seedDemo,
    noRateLimits: config.noRateLimits,
    bugs: [...config.bugs].sort(),
    publicUrl: config.publicUrl,
    appUrl: config.appUrl,
    adminTokenSha256: createHash('sha256').update(config.adminToken).digest('hex'),
  };
}

export type { ReplicaTiming };

/** How a shared instance opens its store beyond its settings (hooks for tests). */
export interface SharedOptions {
  /** What the instance fails with when the log cannot be written (default: log and exit). */
  onFatal?: (err: Error) => void;
  /** The code version it writes and replays as (default: package.json's); a test simulates an upgrade with it. */
  codeVersion?: string;
  /** Tests only: a shorter lost-attempt grace and sweep interval (default: DEFAULT_REPLICA_TIMING, D-138). */
  replicaTiming?: Partial<ReplicaTiming>;
  /** Tests only: a snapshot's copied parts compared with an export of them (D-152). */
  verifyCarriedParts?: boolean;
  /** Tests only: runs once a start read its snapshot (the step it is of), before it reads the log after it. */
  afterSnapshotRead?: (seq: number) => Promise<void>;
}

/**
 * The snapshot a start loads: the newest one this instance can read, whose later steps it wrote itself;
 * or, with none, the whole log when every step in it is its own version's. Anything else is refused,
 * naming both versions and the way forward (D-138).
 */
async function planLoad(db: Db, mine: Writer): Promise<LoadPlan> {
  const snapshots = await listSnapshots(db);
  const tailOk = async (seq: number) => {
    const tail = await tailAfter(db, seq);
    const others = tail.writers.filter((w) => !w || !sameWriter(w, mine)).map((w) => w ?? UNRECORDED);
    if (others.length) throw refuseSteps(others, mine);
    return tail.first;
  };
  for (const s of snapshots) {
    if (s.logFormat !== mine.logFormat || !READABLE_SNAPSHOT_FORMATS.includes(s.snapshotFormat)) continue;
    let payload: SnapshotPayload | null = null;
    try {
      // stored by part: read at the start, one part at a time; here only whether every part is there
      if (s.parts !== null) await partsPresent(db, s.seq, s.parts);
      // stored whole (written before parts): read and parsed now, as before
      else payload = (await readWholeSnapshot(db, s.seq)) as SnapshotPayload;
    } catch (err) {
      console.error(
        `shared sandbox: snapshot ${s.seq} cannot be read (${(err as Error).message}); trying an older one`,
      );
      continue;
    }
    const first = await tailOk(s.seq);
    if (first !== null && first !== s.seq + 1)
      throw new Error(`the log lacks steps ${s.seq + 1} to ${first - 1} after snapshot ${s.seq}`);
    return s.parts !== null
      ? { seq: s.seq, payload: null, parts: s.parts, snapshotFormat: s.snapshotFormat }
      : { seq: s.seq, payload };
  }
  const first = await tailOk(0);
  if (snapshots.length && first !== 1) throw refuseSnapshot(snapshots[0], { ...mine, snapshotFormat: SNAPSHOT_FORMAT });
  return { seq: 0, payload: null };
}

/**
 * Refuses a database where a tenant's newest stored state (D-150) has a snapshot format this version cannot read:
 * loading the tenant on its first call would fail; the start fails instead, naming both versions.
 */
async function refuseUnreadableStates(db: Db, mine: Writer): Promise<void> {
  const { rows } = await db.query<{ tenant_id: string; seq: number; snapshot_format: number; code_version: string }>(
    `SELECT tenant_id, seq, snapshot_format, code_version FROM sandbox_tenant_states s
      WHERE NOT (snapshot_format = ANY($1))
        AND NOT EXISTS (SELECT 1 FROM sandbox_tenant_states n WHERE n.tenant_id = s.tenant_id AND n.seq > s.seq)
      LIMIT 1`,
    [READABLE_SNAPSHOT_FORMATS],
  );
  if (rows.length) throw refuseTenantState(rows[0], mine);
}

/** Refuses a snapshot stored by part whose parts are not all there (its global part first). */
async function partsPresent(db: Db, seq: number, parts: number): Promise<void> {
  const { rows } = await db.query<{ n: string; global: boolean }>(
    `SELECT count(*) AS n, bool_or(ord = 0 AND part = $2) AS global FROM sandbox_snapshot_parts WHERE seq = $1`,
    [seq, GLOBAL_PART],
  );
  if (Number(rows[0].n) !== parts || !rows[0].global)
    throw new Error(`it lists ${parts} parts, ${rows[0].n} are stored${rows[0].global ? '' : ', and no global part'}`);
}

/**
 * The log's and the snapshots' sizes, the versions, and what this instance did (GET /sandbox/v1/store). What this
 * instance did is read in a turn of its queue (after the steps committed before the call are applied here); the
 * database's sizes outside it: counted in that turn, every other call waited for them (D-190).
 */
async function report(db: Db, replica: Replica, mine: Writer, every: number): Promise<StoreReport> {
  const instance = await replica.read(() =>
    Promise.resolve({
      ...replica.snapshotActivity(),
      partitions: {
        directoryTenants: replica.directory.size,
        steps: { ...replica.partitionCounts },
        batches: { ...replica.batchCounts },
      },
      residency: replica.residencyActivity(),
    }),
  );
  const snapshots = await listSnapshots(db);
  const newest = snapshots[0] ?? null;
  // the whole log and its tail after the newest snapshot in one read of the table: an operator's page or script that
  // polls this report costs the database one scan of what snapshots have not yet pruned (three scans before, the
  // tail's through its index: about half a second of the database's CPU a report when the snapshots lag)
  const [sizes, parts] = await Promise.all([
    db.query<{
      steps: number;
      first: number | null;
      last: number | null;
      tail_steps: number;
      tail_bytes: number;
      table: number;
      age: number | null;
    }>(
      `SELECT count(*)::bigint AS steps, min(seq) AS first, max(seq) AS last,
              count(*) FILTER (WHERE seq > $1)::bigint AS tail_steps,
              coalesce(sum(octet_length(step) + coalesce(octet_length(body), 0)) FILTER (WHERE seq > $1), 0)::bigint
                AS tail_bytes,
              pg_total_relation_size('sandbox_log')::bigint AS table,
              (SELECT extract(epoch FROM now() - created_at)::float8 FROM sandbox_snapshots ORDER BY seq DESC LIMIT 1) AS age
         FROM sandbox_log`,
      [newest?.seq ?? 0],
    ),
    db.query<{ global: string | null; largest: string | null }>(
      `SELECT max(octet_length(data)) FILTER (WHERE ord = 0) AS global, max(octet_length(data)) FILTER (WHERE ord > 0) AS largest
         FROM sandbox_snapshot_parts WHERE seq = $1`,
      [newest?.seq ?? -1],
    ),
  ]);
  const s = sizes.rows[0];
  return {
    kind: 'postgres',
    log: {
      steps: Number(s.steps),
      firstSeq: s.first === null ? null : Number(s.first),
      lastSeq: s.last === null ? null : Number(s.last),
      stepsSinceSnapshot: Number(s.tail_steps),
      bytesSinceSnapshot: Number(s.tail_bytes),
      tableBytes: Number(s.table),
    },
    snapshots: {
      count: snapshots.length,
      bytes: snapshots.reduce((n, x) => n + x.bytes, 0),
      every: Number.isFinite(every) ? every : null,
      newest: newest && {
        seq: newest.seq,
        bytes: newest.bytes,
        rawBytes: newest.rawBytes,
        createdAt: newest.createdAt.toISOString(),
        ageSeconds: Math.max(0, Math.round(Number(s.age ?? 0))),
        logFormat: newest.logFormat,
        snapshotFormat: newest.snapshotFormat,
        codeVersion: newest.codeVersion,
        parts:
          newest.parts === null
            ? null
            : {
                count: newest.parts,
                globalBytes: Number(parts.rows[0].global ?? 0),
                largestTenantBytes: Number(parts.rows[0].largest ?? 0),
              },
      },
    },
    versions: { logFormat: mine.logFormat, snapshotFormat: SNAPSHOT_FORMAT, codeVersion: mine.codeVersion },
    instance,
  };
}

export interface SharedSandbox {
  replica: Replica;
  /** The admin token every instance uses: the operator's, or the one the first instance generated. */
  adminToken: string;
  openStore: OpenStore;
  /**
   * A scratch recorder and the store of a scratch core on it: the same settings, epoch and secrets, never started,
   * recording nothing (a tenant is rebuilt in it from the log, loader.ts).
   */
  scratch(): { replica: Replica; openStore: OpenStore };
}

async function shared(db: Db, key: string, make: () => string): Promise<string> {
  await db.query(`INSERT INTO sandbox_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [key, make()]);
  const { rows } = await db.query<{ value: string }>(`SELECT value FROM sandbox_meta WHERE key = $1`, [key]);
  return rows[0].value;
}

/**
 * Connects to the database at `url` and prepares the shared store. `config` is this instance's
 * settings; when its admin token was generated, the one stored by the first instance is adopted.
 */
export async function openShared(
  url: string,
  config: Readonly<Settings>,
  {
    onFatal,
    codeVersion = CODE_VERSION,
    replicaTiming,
    verifyCarriedParts = false,
    afterSnapshotRead,
  }: SharedOptions = {},
): Promise<SharedSandbox> {
  const db = openPool(url);
  try {
    await migrate(db);
    const adminToken = config.adminTokenGenerated
      ? await shared(db, 'generated_admin_token', () => `sat_${secureToken(32)}`)
      : config.adminToken;
    const mine = sharedSettings({ ...config, adminToken });
    const theirs = JSON.parse(await shared(db, 'settings', () => JSON.stringify(mine))) as Record<string, unknown>;
    const differ = Object.keys(mine).filter((k) => JSON.stringify(mine[k]) !== JSON.stringify(theirs[k]));
    if (differ.length) {
      throw new Error(
        `this database holds a sandbox started with other settings (${differ.join(', ')}); every instance of one shared sandbox needs the same seed, corpus, demo, rate-limit, planted-bug, public URL and SANDBOX_ADMIN_TOKEN settings`,
      );
    }
    const epoch = await shared(db, 'id_epoch', () => secureToken(6));
    const cursorSecret = Buffer.from(
      await shared(db, 'cursor_secret', () => randomBytes(32).toString('base64')),
      'base64',
    );
    const startedAt = Number(await shared(db, 'started_at', () => String(Date.now())));
    const writer: Writer = { logFormat: LOG_FORMAT, codeVersion };
    const plan = await planLoad(db, writer);
    await refuseUnreadableStates(db, writer);
    const every = config.snapshotEvery > 0 ? config.snapshotEvery : Infinity;
    const replica = new Replica(db, config.seed, startedAt, onFatal, {
      writer,
      snapshotEvery: every,
      timing: replicaTiming,
      residentTenants: config.residentTenants > 0 ? config.residentTenants : Infinity,
      verifyCarriedParts,
      afterSnapshotRead,
    });
    replica.loadFrom(plan, () => planLoad(db, writer));
    const storeOn =
      (on: Replica, own: boolean): OpenStore =>
      (deps) => {
        deps.ids.share(epoch, on.entropy);
        const store = openMemoryStore(deps, {
          kind: 'postgres',
          realNow: on.now,
          cursorSecret,
          ledgerFirstSeq: firstSeqAt(startedAt),
          sendWebhook: on.sendWebhook,
          resumeWebhook: on.resumeWebhook,
          report: () => report(db, on, writer, every),
          close: async () => {
            await on.close();
            // a scratch core's pool is the instance's own
            if (own) await db.end();
          },
        });
        store.clock.dispatchDueTo(on.fireTimersWith((tenantId) => store.clock.fireDueNow(tenantId)));
        store.clock.deferWith(on.defer);
        store.clock.observeFiring(on.timerFired);
        return store;
      };
    const scratch = () => {
      const on = new Replica(db, config.seed, startedAt, onFatal, { writer, snapshotEvery: Infinity });
      on.markScratch();
      return { replica: on, openStore: storeOn(on, false) };
    };
    return { replica, adminToken, openStore: storeOn(replica, true), scratch };
  } catch (err) {
    await db.end().catch(() => {});
    throw err;
  }
}
