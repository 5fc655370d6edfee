// The directory of a shared sandbox (docs/design/tenant-partitions.md): what routing a call to its partition
// (route.ts) needs to know about tenants, kept apart from their state so that it answers for a tenant that is
// not in memory: the tenants that exist, the hash of every API key, the e-mail of every dashboard account and
// every dashboard session, each with its tenant; an object's tenant is read from its id's tag (`tenantTagOf`).
// A live step diffs its tenant's entries before and after it runs and records the changes with the step, in
// the same transaction as the step, in the `sandbox_directory` table; every instance applies a step's
// recorded changes to its own copy (whether or not it runs the step), and a start reads the table whole.
// Requirements: none of the documents; decisions D-143 (routing) and the one that records the partition per step.

import { tagOfTenant, tenantTagOf } from '../domain/rng.js';
import { digestOf } from '../domain/tenants.js';
import type { Directory, ObjectKind } from './route.js';

/** What the directory maps to a tenant: the tenant's own id, an API key's hash, an account's e-mail, a session id. */
export type EntryKind = 'tenant' | 'key' | 'email' | 'session';
export const ENTRY_KINDS: readonly EntryKind[] = ['tenant', 'key', 'email', 'session'];

/** One entry as a tenant holds it: its kind and its name. */
export type Entry = [EntryKind, string];

/** One change of the directory, recorded with the step that made it: the entry now names `tenantId`, or is gone (null). */
export type DirectoryChange = [EntryKind, string, string | null];

/** A tenant's entries as its state holds them now (none when it does not exist); `deep`: accounts and sessions too. */
export interface DirectorySource {
  entriesOf(tenantId: string, deep: boolean): Entry[];
  /** Every tenant's entries (deep), in one pass. */
  allEntries(): Map<string, Entry[]>;
  /** The tenants of the state in memory, in creation order. */
  tenants(): readonly { id: string }[];
}

const id = (kind: EntryKind, name: string) => `${kind}\t${name}`;
const DEEP_KINDS = new Set<EntryKind>(['email', 'session']);

export class TenantDirectory implements Directory {
  private readonly names: Record<EntryKind, Map<string, string>> = {
    tenant: new Map(),
    key: new Map(),
    email: new Map(),
    session: new Map(),
  };
  /** Each tenant's entries, so a diff reads only its own. */
  private readonly byTenant = new Map<string, Map<string, Entry>>();
  private readonly byTag = new Map<string, string>();
  private changes = 0;

  /** How many times the directory changed: a route decided against the same version is decided the same way. */
  get version(): number {
    return this.changes;
  }

  // ---- the router's questions (route.ts) ----

  tenantOfKey(apiKey: string): string | null {
    return this.names.key.get(digestOf(apiKey)) ?? null;
  }

  tenantOfSession(sessionId: string): string | null {
    return this.names.session.get(sessionId) ?? null;
  }

  tenantOfEmail(email: string): string | null {
    return this.names.email.get(email.trim().toLowerCase()) ?? null;
  }

  /** The tenant whose tag the id carries (the object need not exist: a call naming a missing one is refused by its tenant). */
  tenantOfObject(_kind: ObjectKind, objectId: string): string | null {
    const tag = tenantTagOf(objectId);
    return tag === null ? null : (this.byTag.get(tag) ?? null);
  }

  hasTenant(tenantId: string): boolean {
    return this.names.tenant.has(tenantId);
  }

  // ---- upkeep ----

  /** The tenants the directory knows of. */
  tenantIds(): IterableIterator<string> {
    return this.names.tenant.keys();
  }

  /** Every entry, sorted (what the `sandbox_directory` table holds once the steps applied here are committed). */
  entries(): DirectoryChange[] {
    const out: DirectoryChange[] = [];
    for (const kind of ENTRY_KINDS) for (const [name, t] of this.names[kind]) out.push([kind, name, t]);
    return out.sort((x, y) => (x.join('\t') < y.join('\t') ? -1 : 1));
  }

  get size(): number {
    return this.names.tenant.size;
  }

  /** Applies recorded changes (a step's, or the table's rows at a start). */
  apply(changes: readonly DirectoryChange[]): void {
    if (changes.length) this.changes++;
    for (const [kind, name, tenantId] of changes) {
      const before = this.names[kind].get(name);
      if (before !== undefined) {
        const theirs = this.byTenant.get(before);
        theirs?.delete(id(kind, name));
        if (theirs?.size === 0) this.byTenant.delete(before);
        if (kind === 'tenant') this.byTag.delete(tagOfTenant(name));
      }
      if (tenantId === null) {
        this.names[kind].delete(name);
        continue;
      }
      this.names[kind].set(name, tenantId);
      let mine = this.byTenant.get(tenantId);
      if (!mine) this.byTenant.set(tenantId, (mine = new Map()));
      mine.set(id(kind, name), [kind, name]);
      if (kind === 'tenant') this.byTag.set(tagOfTenant(name), name);
    }
  }

  /**
   * The changes that make `tenantId`'s entries those of `now` (only the key and tenant entries unless `deep`),
   * applied here and returned for the step to record.
   */
  diff(tenantId: string, now: readonly Entry[], deep: boolean): DirectoryChange[] {
    const changes: DirectoryChange[] = [];
    const had = this.byTenant.get(tenantId) ?? new Map<string, Entry>();
    const seen = new Set<string>();
    for (const [kind, name] of now) {
      const key = id(kind, name);
      seen.add(key);
      if (this.names[kind].get(name) !== tenantId) changes.push([kind, name, tenantId]);
    }
    // an entry the tenant no longer holds (a tenant that is gone holds none, of any kind)
    const gone = now.length === 0;
    for (const [key, [kind, name]] of had)
      if (!seen.has(key) && (deep || gone || !DEEP_KINDS.has(kind))) changes.push([kind, name, null]);
    this.apply(changes);
    return changes;
  }

  /**
   * The changes that make the whole directory that of `source` (every tenant, deep): after a reset, at a start.
   * `residentOnly`: `source` holds only the tenants in memory, so a tenant it lacks is not gone.
   */
  diffAll(source: DirectorySource, residentOnly = false): DirectoryChange[] {
    const changes: DirectoryChange[] = [];
    const all = source.allEntries();
    for (const [t, entries] of all) changes.push(...this.diff(t, entries, true));
    if (!residentOnly)
      for (const t of [...this.byTenant.keys()]) if (!all.has(t)) changes.push(...this.diff(t, [], true));
    return changes;
  }

  /** The tenants `source` holds that the directory does not know yet (created by the step that just ran), newest last. */
  created(source: DirectorySource): string[] {
    const ordered = source.tenants();
    let i = ordered.length;
    while (i > 0 && !this.names.tenant.has(ordered[i - 1].id)) i--;
    return ordered.slice(i).map((t) => t.id);
  }
}

/** A string as an SQL literal under standard_conforming_strings. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The statements that write `changes` to `sandbox_directory` (in the transaction of the steps that made them). */
export function directorySql(changes: readonly DirectoryChange[]): string {
  if (!changes.length) return '';
  // the last change of an entry wins (a batch may hold several steps changing one entry)
  const last = new Map<string, DirectoryChange>();
  for (const c of changes) last.set(id(c[0], c[1]), c);
  const set: string[] = [];
  const drop: string[] = [];
  for (const [kind, name, tenantId] of last.values()) {
    if (tenantId === null) drop.push(`(${literal(kind)}, ${literal(name)})`);
    else set.push(`(${literal(kind)}, ${literal(name)}, ${literal(tenantId)})`);
  }
  let sql = '';
  if (drop.length) sql += `DELETE FROM sandbox_directory WHERE (kind, name) IN (${drop.join(', ')}); `;
  if (set.length)
    sql += `INSERT INTO sandbox_directory (kind, name, tenant_id) VALUES ${set.join(', ')} ON CONFLICT (kind, name) DO UPDATE SET tenant_id = EXCLUDED.tenant_id; `;
  return sql;
}
