// Snapshots of the sandbox's state (D-137): everything the holders of the store and the services keep
// between calls, as JSON-safe data, whole or one tenant at a time, so a sandbox can be rebuilt from a
// snapshot instead of from every call since it began. Each holder's format sits beside its data (its
// exportState/importState, exportTenant/importTenant/forgetTenant); this file only puts them together.
// A snapshot holds no closures: a pending timer is kept as data (its clock, due time, label and the id of
// what it is about), and on import the service that owns the label re-arms it, in the order the timers
// were made, at the same due time on the same clock. Caches (the job-spec and score tables, the answers of
// searches, the ledger's page texts, the corpus and the candidate pool, made from the seed) are not kept:
// they are made again as they are used. Take a snapshot between calls: work deferred to right after a call
// is not data. A webhook attempt in flight is data (format 2): it is finished by its answer when the store
// still awaits it (a shared sandbox), else made again after import (receivers dedupe by delivery id).
// Format 3: a tenant's part holds its own id stream and the mail its calls sent (D-147).
// Requirements: none of the documents (a property of the sandbox's storage); decisions D-137, D-147.

import type { AccountsGlobalState, AccountsTenantState } from './accounts.js';
import type { CallLogState } from './callLog.js';
import type { ClockState, TimerData } from './clock.js';
import type { Core } from './core.js';
import type { PostingsTenantState } from './employer/postings.js';
import type { EmployerTenantState } from './employer/service.js';
import type { OutboxMessage } from './employer/outbox.js';
import type { FaultsState, FaultsTenantState } from './faults.js';
import type { Application } from './jobs/types.js';
import type { WindowState } from './ratelimit/limiter.js';
import type { IdFactoryState, TenantIdState } from './rng.js';
import type { ScreeningTenantState } from './screening/service.js';
import type { DemoSeed } from './seed.js';
import type { Sliced } from './slices.js';
import type { TenantState } from './tenants.js';
import type { WebhooksTenantState } from './webhooks/snapshot.js';

/**
 * The format of what exportState/exportTenant write. Bump it on ANY change of what a snapshot holds or
 * how a holder writes or reads its part (a field added, renamed or re-encoded, a timer label added), so a
 * snapshot of another format is refused instead of read wrongly (D-137).
 */
export const SNAPSHOT_FORMAT = 3;

/**
 * The formats this version reads: its own only. Formats 1 and 2 drew every tenant's ids and random draws from
 * streams shared by all tenants; converting their global counters into per-tenant streams would hand out other
 * ids than the version that wrote them, so they are refused, naming both formats (D-147).
 */
export const READABLE_SNAPSHOT_FORMATS: readonly number[] = [SNAPSHOT_FORMAT];

export interface Snapshot {
  format: number;
  global: unknown;
  tenants: Record<string, unknown>;
}

/** What belongs to no tenant. */
interface GlobalState {
  ids: IdFactoryState;
  clock: ClockState;
  ledger: { seq: number };
  faults: FaultsState;
  accounts: AccountsGlobalState;
  /** Rate windows of client addresses (and of revoked keys). */
  perMinute: WindowState[];
  perDay: WindowState[];
  mail: OutboxMessage[];
  employer: { rng: number };
  callLog: CallLogState;
  demo: DemoSeed | null;
}

/** Everything of one tenant. */
interface TenantSnapshot {
  format: number;
  tenant: TenantState;
  clock: ClockState | null;
  accounts: AccountsTenantState;
  screening: ScreeningTenantState;
  webhooks: WebhooksTenantState;
  applications: Application[];
  postings: PostingsTenantState;
  draftQuota: { month: number; count: number } | null;
  faults: FaultsTenantState;
  perMinute: WindowState[];
  perDay: WindowState[];
  employer: EmployerTenantState;
  /** The tenant's own id stream (D-147). */
  ids: TenantIdState | null;
  /** The mail its calls sent. */
  mail: OutboxMessage[];
  /** Its ring of the request log (D-147). */
  callLog: CallLogState | null;
}

function refuseOther(format: unknown, what: string): void {
  if (!READABLE_SNAPSHOT_FORMATS.includes(format as number)) {
    throw new Error(
      `cannot import a ${what} of snapshot format ${JSON.stringify(format)}: this version reads and writes snapshot format ${SNAPSHOT_FORMAT}; rebuild the state with the version that wrote it, or from the log of calls`,
    );
  }
}

/** The key a rate-limit bucket counts calls of (per-key minute, talent_search's day), or the bucket itself. */
const keyOfBucket = (bucket: string): string => (bucket.startsWith('talent:') ? bucket.slice(7) : bucket);

/** Whether a rate-limit bucket counts calls of one of these keys. */
const ownedBy =
  (keyIds: ReadonlySet<string>) =>
  (bucket: string): boolean =>
    keyIds.has(keyOfBucket(bucket));

const keyIdsOf = (core: Core, tenantId: string) => new Set(core.tenants.keysOf(tenantId).map((k) => k.id));

/** What a whole export sorts by tenant in one pass, instead of one pass per tenant. */
interface ByTenant {
  perMinute: Map<string | null, WindowState[]>;
  perDay: Map<string | null, WindowState[]>;
  applications: Map<string, Application[]>;
}

function byTenant(core: Core): ByTenant {
  const owner = new Map<string, string>();
  for (const t of core.tenants.list()) for (const k of core.tenants.keysOf(t.id)) owner.set(k.id, t.id);
  const group = <K, V>(into: Map<K, V[]>, k: K, v: V) => {
    const list = into.get(k);
    if (list) list.push(v);
    else into.set(k, [v]);
  };
  const windows = (all: WindowState[]) => {
    const out = new Map<string | null, WindowState[]>();
    for (const w of all) group(out, owner.get(keyOfBucket(w[0])) ?? null, w);
    return out;
  };
  const applications = new Map<string, Application[]>();
  for (const a of core.store.applications.ordered()) group(applications, a.tenantId, { ...a });
  return {
    perMinute: windows(core.store.perMinute.exportState()),
    perDay: windows(core.store.perDay.exportState()),
    applications,
  };
}

/**
 * The whole state, JSON-safe: JSON.parse(JSON.stringify(s)) imports to the same sandbox. `lazy`: what never changes
 * once written (ledger rows) is a list made when read, for JSON made later while steps run (a snapshot's, D-151).
 */
export function exportState(
  core: Core,
  {
    lazy = false,
    skip,
  }: {
    lazy?: boolean;
    /** Tenants left out (a snapshot's part of a tenant that has not changed is copied from its stored state, D-152). */
    skip?: (tenantId: string) => boolean;
  } = {},
): Snapshot {
  const { store } = core;
  const groups = byTenant(core);
  const global: GlobalState = {
    ids: core.ids.exportState(),
    clock: core.clock.exportState(),
    ledger: store.ledger.exportState(),
    faults: core.faults.exportState(),
    accounts: store.accounts.exportState(),
    perMinute: groups.perMinute.get(null) ?? [],
    perDay: groups.perDay.get(null) ?? [],
    mail: store.mail.exportState(),
    employer: core.employer.exportState(),
    callLog: core.callLog.exportState(),
    demo: structuredClone(core.demo),
  };
  const tenants: Record<string, unknown> = {};
  for (const t of core.tenants.ordered()) if (!skip?.(t.id)) tenants[t.id] = tenantPart(core, t.id, groups, lazy);
  return { format: SNAPSHOT_FORMAT, global, tenants };
}

/** Everything of one tenant, JSON-safe (its timers as data). */
export function exportTenant(core: Core, tenantId: string): unknown {
  return tenantPart(core, tenantId, null);
}

/**
 * `exportTenant` of several tenants, sorting what is kept across tenants (rate windows, applications) once. `lazy`:
 * what never changes once written is made when read, as in a snapshot's export (`exportState`).
 */
export function exportTenants(core: Core, tenantIds: readonly string[], lazy = false): unknown[] {
  const groups = tenantIds.length > 1 ? byTenant(core) : null;
  return tenantIds.map((id) => tenantPart(core, id, groups, lazy));
}

function tenantPart(core: Core, tenantId: string, groups: ByTenant | null, lazy = false): TenantSnapshot {
  const { store } = core;
  const mine = groups ? null : ownedBy(keyIdsOf(core, tenantId));
  return {
    format: SNAPSHOT_FORMAT,
    tenant: core.tenants.exportTenant(tenantId),
    clock: core.clock.exportTenant(tenantId, lazy),
    accounts: store.accounts.exportTenant(tenantId),
    screening: core.screening.exportTenant(tenantId, lazy),
    webhooks: core.webhooks.exportTenant(tenantId),
    applications: groups ? (groups.applications.get(tenantId) ?? []) : store.applications.exportTenant(tenantId),
    postings: store.postings.exportTenant(tenantId),
    draftQuota: store.draftQuota.exportTenant(tenantId),
    faults: core.faults.exportTenant(tenantId),
    perMinute: groups ? (groups.perMinute.get(tenantId) ?? []) : store.perMinute.exportState(mine!),
    perDay: groups ? (groups.perDay.get(tenantId) ?? []) : store.perDay.exportState(mine!),
    employer: core.employer.exportTenant(tenantId),
    ids: core.ids.exportTenant(tenantId),
    mail: store.mail.exportTenant(tenantId),
    callLog: core.callLog.exportTenant(tenantId),
  };
}

/** Puts a tenant's data into the holders (`cleared`: nothing of it is there); its timers are returned, not armed. */
function putTenant(core: Core, tenantId: string, data: unknown, cleared: boolean): Iterable<TimerData> {
  const s = data as TenantSnapshot;
  refuseOther(s?.format, 'tenant');
  if (s.tenant.tenant.id !== tenantId)
    throw new Error(`this snapshot is of tenant ${s.tenant.tenant.id}, not of tenant ${tenantId}`);
  if (!cleared) forgetTenant(core, tenantId);
  const { store } = core;
  core.clock.importTenant(tenantId, s.clock);
  core.tenants.importTenant(s.tenant);
  store.accounts.importTenant(tenantId, s.accounts);
  core.screening.importTenant(tenantId, s.screening);
  core.webhooks.importTenant(tenantId, s.webhooks);
  store.applications.importTenant(tenantId, s.applications);
  store.postings.importTenant(tenantId, s.postings);
  store.draftQuota.importTenant(tenantId, s.draftQuota);
  core.faults.importTenant(tenantId, s.faults);
  store.perMinute.importState(s.perMinute);
  store.perDay.importState(s.perDay);
  core.employer.importTenant(tenantId, s.employer);
  core.ids.importTenant(tenantId, s.ids);
  store.mail.importTenant(tenantId, s.mail);
  core.callLog.importTenant(tenantId, s.callLog);
  return s.clock?.timers ?? [];
}

/** Re-arms timers kept as data, in the order they were made, through the service that owns each label. */
function rearm(core: Core, timers: Iterable<TimerData>): void {
  const byLabel: Record<string, (ref: string, at: number) => void> = {
    ...core.screening.rearm,
    ...core.webhooks.rearm,
  };
  for (const t of [...timers].sort((a, b) => a.seq - b.seq)) {
    const arm = byLabel[t.label];
    if (!arm || t.ref === null)
      throw new Error(`snapshot: no service re-arms a '${t.label}' timer (ref ${t.ref}); bump SNAPSHOT_FORMAT`);
    const ref = t.ref;
    core.clock.rearmAs(t.seq, () => arm(ref, t.at));
  }
}

/**
 * Loads a whole snapshot into a freshly created core of the same settings (whatever it holds is replaced).
 * A snapshot of another format is refused, naming both.
 */
export function importState(core: Core, snap: Snapshot): void {
  const run = beginImport(core, snap);
  for (const [tenantId, data] of Object.entries(snap.tenants)) importTenantPart(core, run, tenantId, data);
  finishImport(core, run);
}

/** A whole snapshot's import in progress, one tenant at a time: the timers to re-arm once every part is in. */
export interface ImportRun {
  readonly timers: TimerData[];
}

/**
 * The first step of a whole snapshot's import taken one part at a time (a store that keeps a part per tenant
 * reads them one by one, never the whole text at once): empties the core and loads what belongs to no tenant.
 * Then `importTenantPart` for each tenant, then `finishImport`; the result is `importState`'s.
 */
export function beginImport(core: Core, snap: Pick<Snapshot, 'format' | 'global'>): ImportRun {
  refuseOther(snap?.format, 'sandbox');
  const g = snap.global as GlobalState;
  const { store } = core;
  // every holder emptied (a reset without the demo seed): the snapshot brings its own
  core.clear();
  core.ids.importState(g.ids);
  core.clock.importState(g.clock);
  store.ledger.importState(g.ledger);
  core.faults.importState(g.faults);
  store.accounts.importState(g.accounts);
  store.perMinute.importState(g.perMinute);
  store.perDay.importState(g.perDay);
  store.mail.importState(g.mail);
  core.employer.importState(g.employer);
  core.callLog.importState(g.callLog);
  core.demo = structuredClone(g.demo);
  return { timers: [...g.clock.timers] };
}

/** One tenant of a whole snapshot, after `beginImport`: its timers wait for `finishImport`. */
export function importTenantPart(core: Core, run: ImportRun, tenantId: string, data: unknown): void {
  run.timers.push(...putTenant(core, tenantId, data, true));
}

/** Re-arms every timer of the import, in the order they were made. */
export function finishImport(core: Core, run: ImportRun): void {
  rearm(core, run.timers);
}

/**
 * Makes in slices the largest part of what `importTenant` of the same `data` object makes (a tenant's screening
 * requests and ledger rows: most of a long history), so that its import, between calls, only puts them in place
 * (D-170). Nothing in memory changes; data of another format is left to `importTenant`, which refuses it.
 */
export function* prepareTenant(core: Core, tenantId: string, data: unknown): Sliced {
  const s = data as TenantSnapshot | null;
  if (s?.format !== SNAPSHOT_FORMAT || s.tenant?.tenant?.id !== tenantId) return;
  yield* core.screening.prepareTenant(tenantId, s.screening);
}

/** Loads one tenant's exported state (replacing whatever of it is in memory) and re-arms its timers. */
export function importTenant(core: Core, tenantId: string, data: unknown): void {
  rearm(core, putTenant(core, tenantId, data, false));
}

/**
 * Whether a tenant has work under way that its exported state alone does not carry on: a webhook attempt awaiting
 * its answer (its timers are data of the export). A store that keeps only the tenants in use in memory keeps such a
 * tenant there.
 */
export function tenantBusy(core: Core, tenantId: string): boolean {
  return core.webhooks.inFlight(tenantId);
}

/** Drops every trace of one tenant from memory: its records, its clock and timers, its windows and rules. */
export function forgetTenant(core: Core, tenantId: string): void {
  forgetTenants(core, [tenantId]);
}

/** `forgetTenant` of several tenants, with one pass over the rate windows of every tenant. */
export function forgetTenants(core: Core, tenantIds: readonly string[]): void {
  const { store } = core;
  const keys = new Set<string>();
  for (const id of tenantIds) for (const k of core.tenants.keysOf(id)) keys.add(k.id);
  const mine = ownedBy(keys);
  store.perMinute.forget(mine);
  store.perDay.forget(mine);
  for (const id of tenantIds) forgetRecords(core, id);
}

/** What `forgetTenant` drops besides the rate windows. */
function forgetRecords(core: Core, tenantId: string): void {
  const { store } = core;
  // the tenant's clock first: its timers go with it at once, and what the services below cancel of them is then
  // already cancelled (a tenant of 6,000 screenings: most of its forgetting was cancelling their expiries one by one)
  core.clock.forget(tenantId);
  core.webhooks.forgetTenant(tenantId);
  core.screening.forgetTenant(tenantId);
  store.applications.forgetTenant(tenantId);
  store.postings.forgetTenant(tenantId);
  store.draftQuota.forgetTenant(tenantId);
  core.faults.forgetTenant(tenantId);
  core.employer.forgetTenant(tenantId);
  store.accounts.forgetTenant(tenantId);
  core.tenants.forgetTenant(tenantId);
  core.ids.forgetTenant(tenantId);
  store.mail.forgetTenant(tenantId);
  core.callLog.forgetTenant(tenantId);
}
