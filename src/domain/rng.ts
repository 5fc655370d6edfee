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

  /** Where the generator stands: the next draw depends on this alone (snapshots, D-136). */
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

/**
 * Ids: prefix + this start's epoch + zero-padded counter + seeded suffix. The epoch comes from crypto, so a
 * restart (same seed, counters from 1 again) never hands out an id of an earlier run (D-83); within a run
 * ids of one prefix sort by creation.
 */
export class IdFactory {
  private counters = new Map<string, number>();
  epoch: string;
  private entropy: Entropy | null = null;

  constructor(
    private readonly rng: Rng,
    epoch: string = secureToken(6),
  ) {
    this.epoch = epoch;
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

  /** The counters, the epoch and the suffix generator's position: what the next id depends on (D-136). */
  exportState(): IdFactoryState {
    return { epoch: this.epoch, counters: Object.fromEntries(this.counters), rng: this.rng.position };
  }

  /** Continues from an exported state: the next ids are those the exporting factory would have made. */
  importState(state: IdFactoryState): void {
    this.epoch = state.epoch;
    this.counters = new Map(Object.entries(state.counters));
    this.rng.moveTo(state.rng);
  }

  next(prefix: string): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}_${this.epoch}${n.toString(36).padStart(6, '0')}${this.rng.token(4)}`;
  }
}
