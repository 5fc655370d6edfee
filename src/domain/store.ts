// The store port: everything the sandbox keeps between calls, one holder per concept. The domain's
// services read and write state only through the holders handed to them here, so a store other than
// the in-memory default (src/store/) sits beside it without touching the services.
// Requirements: none of its own (the services that use each holder name theirs); decisions D-110, D-21, D-127.

import type { AccountService } from './accounts.js';
import type { Clock } from './clock.js';
import type { Postings } from './employer/postings.js';
import type { DraftQuota } from './employer/draftQuota.js';
import type { Outbox } from './employer/outbox.js';
import type { Faults } from './faults.js';
import type { ApplicationQueue } from './jobs/applications.js';
import type { FixedWindowLimiter } from './ratelimit/limiter.js';
import type { IdFactory, Rng } from './rng.js';
import type { Ledger } from './screening/ledger.js';
import type { RequestStore } from './screening/requests.js';
import type { Settings } from './settings.js';
import type { TenantService } from './tenants.js';
import type { DeliveryStore } from './webhooks/delivery.js';
import type { ResumeWebhook, SendWebhook } from './webhooks/sender.js';

export interface Store {
  /** Which implementation holds the state (`memory`, …). */
  readonly kind: string;
  /** The sandbox clock's offset and its timers (webhook retries, review expiries). */
  readonly clock: Clock;
  /** Tenants, their API keys (hashes) and both credit wallets. */
  readonly tenants: TenantService;
  /** Dashboard accounts with their sessions, payments and abuse windows (D-127). */
  readonly accounts: AccountService;
  /** Screening requests, by id and by (tenant, idempotency key). */
  readonly requests: RequestStore;
  /** The append-only audit ledger, ordered per tenant. */
  readonly ledger: Ledger;
  /** Webhook deliveries with their attempts: the outbox the retry schedule works from. */
  readonly deliveries: DeliveryStore;
  /** The curation queue of submitted job applications. */
  readonly applications: ApplicationQueue;
  /** Job-post orders and free listings. */
  readonly postings: Postings;
  /** Mail the employer tools send (shortlists, forwarded applicants). */
  readonly mail: Outbox;
  /** draft_application's monthly quota per tenant. */
  readonly draftQuota: DraftQuota;
  /** Per-minute rate windows per API key. */
  readonly perMinute: FixedWindowLimiter;
  /** Per-UTC-day windows: the anonymous MCP server's per-IP day, talent_search per key. */
  readonly perDay: FixedWindowLimiter;
  /** Chaos rules with their remaining counts, and the planted bugs. */
  readonly faults: Faults;
  /** The key audit cursors are signed with: one per store, so every instance on it honours them (D-21). */
  readonly cursorSecret: Buffer;
  /** Makes webhook attempts, when the store must see them (D-112); absent: straight to the network. */
  readonly sendWebhook?: SendWebhook;
  /** The answer to come of an attempt restored in flight from a snapshot (D-137); absent: it is made again. */
  readonly resumeWebhook?: ResumeWebhook;
  /** Releases what the store holds open (connections, timers); the in-memory store holds nothing. */
  close(): Promise<void>;
  /** What the operator sees of where the state is kept (D-138); absent: nothing but the kind applies. */
  readonly report?: () => Promise<StoreReport>;
}

/** Where a shared sandbox keeps its state, and what that costs (GET /sandbox/v1/store, D-138). */
export interface StoreReport {
  kind: string;
  log: {
    /** Steps kept, and the first and last one's number (null: none kept). */
    steps: number;
    firstSeq: number | null;
    lastSeq: number | null;
    /** What a start replays after loading the newest snapshot. */
    stepsSinceSnapshot: number;
    bytesSinceSnapshot: number;
    /** The table's size on disk, indexes included. */
    tableBytes: number;
  };
  snapshots: {
    count: number;
    /** Their compressed size together, and the newest one (null: none yet). */
    bytes: number;
    every: number | null;
    newest: {
      seq: number;
      bytes: number;
      rawBytes: number;
      createdAt: string;
      ageSeconds: number;
      logFormat: number;
      snapshotFormat: number;
      codeVersion: string;
      /** How it is stored: its parts (the global one and one per tenant) and their compressed sizes; null: one whole row. */
      parts: { count: number; globalBytes: number; largestTenantBytes: number } | null;
    } | null;
  };
  /** What this instance writes and reads. */
  versions: { logFormat: number; snapshotFormat: number; codeVersion: string };
  /** This instance: the step it has applied, where its start began, the last snapshot it wrote. */
  instance: {
    appliedSeq: number;
    loadedFrom: { seq: number; replayedSteps: number; readyMs: number } | null;
    lastWritten: {
      seq: number;
      exportMs: number;
      writeMs: number;
      bytes: number;
      rawBytes: number;
      /** Tenant parts exported for it, and copied from a stored state of a tenant unchanged since (D-152). */
      exported?: number;
      carried?: number;
    } | null;
    waiting: boolean;
    /** Whether a snapshot taken here is being made or written now. */
    writing: boolean;
    /** The steps it ran or applied since it started, by partition kind, and the tenants its routing directory knows. */
    partitions?: {
      directoryTenants: number;
      steps: { tenant: number; global: number; create: number; all: number };
      /** The batches it appended under the log's lock alone, and beside other instances' under their tenants' locks (D-173). */
      batches?: { alone: number; beside: number };
    };
    /**
     * The tenants it holds in memory (D-150): the bound beyond those with work under way (null: every tenant), how
     * many it holds, how many it loaded from their stored state and dropped, and the time each took.
     */
    residency?: {
      bound: number | null;
      resident: number;
      loaded: number;
      /** Of those, the tenants whose stored state was read ahead of their calls, while other tenants' calls ran (D-160). */
      loadedAhead: number;
      loadMs: number;
      evicted: number;
      evictMs: number;
      /**
       * Steps of tenants not in memory here that another instance ran, skipped; of those, the steps applied when the
       * tenant was loaded later; and the tenants with steps skipped since this instance last held them (D-172).
       */
      skipped?: number;
      replayed?: number;
      behind?: number;
      /** Tenants moved here whose skipped steps are being applied between batches, their calls waiting (D-175). */
      replaying?: number;
    };
  };
}

/** What a store is built from: the resolved settings and the seeded generators of the run. */
export interface StoreDeps {
  readonly config: Readonly<Settings>;
  readonly rng: Rng;
  readonly ids: IdFactory;
}

/** Opens a store; the composition root picks the implementation. */
export type OpenStore = (deps: StoreDeps) => Store | Promise<Store>;
