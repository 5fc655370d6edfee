// One seeded generator for everything random in the sandbox (corpus, ids, demo keys), so a seed
// reproduces a run. Secrets handed to callers at run time (API keys created later) use crypto.
// Requirements: POL-AUTH-3 (key randomness); decisions D-30.

import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** Uniform float in [0, 1) (mulberry32). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A fresh generator derived from this one and a label, so sub-systems do not disturb each other. */
  fork(label: string): Rng {
    let h = this.state ^ 0x811c9dc5;
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 16777619);
    return new Rng(h >>> 0);
  }

  /** Where the generator stands: the next draw depends on this alone (snapshots, D-137). */
  get position(): number {
    return this.state;
  }

  /** Puts the generator back where `position` read it. */
  moveTo(position: number): void {
    this.state = position >>> 0;
  }

  token(length: number): string {
    let s = '';
    for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(this.next() * ALPHABET.length)];
    return s;
  }
}

/**
 * One random stream per tenant, each forked by tenant id from a base fixed by the seed, so the draws a tenant's
 * calls make depend on its calls alone; a stream goes into a snapshot with its tenant (D-147).
 */
export class TenantRngs {
  private rngs = new Map<string, Rng>();

  /** `base`: a generator's position at construction (the streams fork from it, whatever it draws later). */
  constructor(private readonly base: number) {}

  /** The tenant's stream (made on first use). */
  of(tenantId: string): Rng {
    let r = this.rngs.get(tenantId);
    if (r === undefined) this.rngs.set(tenantId, (r = new Rng(this.base).fork(tenantId)));
    return r;
  }

  /** Where the tenant's stream stands; null: it never drew. */
  exportTenant(tenantId: string): number | null {
    return this.rngs.get(tenantId)?.position ?? null;
  }

  importTenant(tenantId: string, position: number | null | undefined): void {
    this.rngs.delete(tenantId);
    if (position !== null && position !== undefined) this.of(tenantId).moveTo(position);
  }

  forgetTenant(tenantId: string): void {
    this.rngs.delete(tenantId);
  }

  clear(): void {
    this.rngs.clear();
  }
}

/** Cryptographically random token from the same alphabet, for secrets created at run time. */
export function secureToken(length: number): string {
  return tokenOf(randomBytes(length));
}

/** Where run-time secrets draw their bytes: crypto unless a store that replays calls records them (D-112). */
export type Entropy = (length: number) => Uint8Array;

function tokenOf(bytes: Uint8Array): string {
  const length = bytes.length;
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[bytes[i] % ALPHABET.length];
  return s;
}

export interface IdFactoryState {
  epoch: string;
  counters: Record<string, number>;
  rng: number;
}

/** One tenant's id stream (D-147): its counters and its suffix generator's position. */
export interface TenantIdState {
  counters: Record<string, number>;
  rng: number;
}

/** Generated tenant ids: `ten_` + the epoch (6) + the counter (6) + the suffix (4). */
const GENERATED_TENANT = /^ten_[0-9a-z]{16}$/;

/**
 * The short tag every id drawn on a tenant's stream carries, so the tenant of an object is known from its id
 * alone (D-147). Unique by construction: a generated tenant's tag is its number on the sandbox's global `ten`
 * counter (base 36, no leading zeros: 1 to 6 characters; one epoch per sandbox, so no two tenants share a
 * number); any other tenant id (the demo tenants' `ten_demo…`, derived from the seed) is tagged with its whole
 * text after `ten_` (7 characters or more, so never a counter's tag), hex-encoded when it holds other characters.
 */
export function tagOfTenant(tenantId: string): string {
  if (GENERATED_TENANT.test(tenantId) && !tenantId.startsWith('ten_demo'))
    return parseInt(tenantId.slice(10, 16), 36).toString(36);
  const rest = tenantId.startsWith('ten_') ? tenantId.slice(4) : tenantId;
  return /^[0-9a-z]{7,}$/.test(rest) && !/^x[0-9a-f]*$/.test(rest) ? rest : `x${Buffer.from(tenantId).toString('hex')}`;
}

/**
 * The tag of the tenant an id was drawn for (`<prefix>_<epoch><counter><suffix>_<tag>`, an attempt id's
 * `.<n>` ignored), or null for an id of no tenant (tenants themselves, anything global).
 */
export function tenantTagOf(id: string): string | null {
  const first = id.indexOf('_');
  const second = first < 0 ? -1 : id.indexOf('_', first + 1);
  if (second < 0) return null;
  const dot = id.indexOf('.', second + 1);
  const tag = dot < 0 ? id.slice(second + 1) : id.slice(second + 1, dot);
  return tag === '' ? null : tag;
}

/** A tenant's stream: its counters, its suffix generator (forked by tenant id) and its tag. */
interface TenantStream {
  counters: Map<string, number>;
  rng: Rng;
  tag: string;
}

/**
 * Ids: prefix + the sandbox's epoch + zero-padded counter + seeded suffix. The epoch comes from crypto, so a
 * restart (same seed, counters from 1 again) never hands out an id of an earlier run (D-83); within a run
 * ids of one prefix and one stream sort by creation. Ids of no tenant (tenants themselves) come from the global
 * stream; ids of a tenant's objects from that tenant's own stream (its own counters, a suffix generator forked
 * by its id) and end in `_<tag>` (tagOfTenant), so what a tenant's calls draw depends on its calls alone and
 * the tenant of an object is read from its id (D-147).
 */
export class IdFactory {
  private counters = new Map<string, number>();
  epoch: string;
  private entropy: Entropy | null = null;
  private streams = new Map<string, TenantStream>();
  /** Where every tenant's suffix generator is forked from: fixed by the seed. */
  private readonly base: number;

  constructor(
    private readonly rng: Rng,
    epoch: string = secureToken(6),
  ) {
    this.epoch = epoch;
    this.base = rng.position;
  }

  /**
   * Shares one sandbox across instances (D-112): every instance uses the database's epoch, so the same
   * history of calls gives the same ids everywhere, and secrets come from `entropy`, which records them.
   */
  share(epoch: string, entropy: Entropy): void {
    this.epoch = epoch;
    this.entropy = entropy;
  }

  /** A secret handed to a caller (API key, webhook secret): cryptographically random. */
  secret(length: number): string {
    return this.entropy ? tokenOf(this.entropy(length)) : secureToken(length);
  }

  /** The global stream: the counters, the epoch and the suffix generator's position (D-137). */
  exportState(): IdFactoryState {
    return { epoch: this.epoch, counters: Object.fromEntries(this.counters), rng: this.rng.position };
  }

  /** Continues from an exported state: the next ids are those the exporting factory would have made. */
  importState(state: IdFactoryState): void {
    this.epoch = state.epoch;
    this.counters = new Map(Object.entries(state.counters));
    this.rng.moveTo(state.rng);
    this.streams.clear();
  }

  /** The next number of a global sequence (`name`'s own counter, exported with the global stream): 0, 1, 2, … */
  ordinal(name: string): number {
    const key = `#${name}`;
    const n = this.counters.get(key) ?? 0;
    this.counters.set(key, n + 1);
    return n;
  }

  /** Moves a global sequence past `next - 1` (a number drawn before, imported back). */
  ordinalAtLeast(name: string, next: number): void {
    const key = `#${name}`;
    if ((this.counters.get(key) ?? 0) < next) this.counters.set(key, next);
  }

  /** An id of no tenant, from the global stream. */
  next(prefix: string): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}_${this.epoch}${n.toString(36).padStart(6, '0')}${this.rng.token(4)}`;
  }

  /** An id of one of `tenantId`'s objects, from that tenant's own stream. */
  nextOf(tenantId: string, prefix: string): string {
    const s = this.stream(tenantId);
    const n = (s.counters.get(prefix) ?? 0) + 1;
    s.counters.set(prefix, n);
    return `${prefix}_${this.epoch}${n.toString(36).padStart(6, '0')}${s.rng.token(4)}_${s.tag}`;
  }

  private stream(tenantId: string): TenantStream {
    let s = this.streams.get(tenantId);
    if (s === undefined) {
      s = { counters: new Map(), rng: new Rng(this.base).fork(tenantId), tag: tagOfTenant(tenantId) };
      this.streams.set(tenantId, s);
    }
    return s;
  }

  /** A tenant's stream; null when it never drew an id. */
  exportTenant(tenantId: string): TenantIdState | null {
    const s = this.streams.get(tenantId);
    return s ? { counters: Object.fromEntries(s.counters), rng: s.rng.position } : null;
  }

  importTenant(tenantId: string, state: TenantIdState | null): void {
    this.streams.delete(tenantId);
    if (state === null) return;
    const s = this.stream(tenantId);
    s.counters = new Map(Object.entries(state.counters));
    s.rng.moveTo(state.rng);
  }

  forgetTenant(tenantId: string): void {
    this.streams.delete(tenantId);
  }

  /** Drops every tenant's stream (reset): the global stream goes on. */
  clearTenants(): void {
    this.streams.clear();
  }
}
