// Maps that grow with every record a sandbox holds, without a pause as they grow. A JavaScript Map grows by
// rehashing every entry at once: adding the 524,289th entry of a Map of strings took 25 ms here, the 1,048,577th
// 85 ms, and in an instance under load up to about 100 ms, during which no other tenant's call is answered (D-200).
// These maps split their entries by key into smaller maps, so that adding an entry rehashes one of those at most.
// Requirements: none of its own; decisions D-200.

/** Entries an unsplit map holds before it is split in shards (splitting it costs about one rehash of this many). */
export const SPLIT_AT = 1 << 13;
const SHARD_BITS = 6;
const SHARDS = 1 << SHARD_BITS;

/** A shard by the key's last four characters (ids and idempotency keys vary most at their end), mixed. */
const shardOf = (key: string): number => {
  const n = key.length;
  const h =
    (key.charCodeAt(n - 1) | 0) ^
    Math.imul(key.charCodeAt(n - 2) | 0, 0x5bd1e995) ^
    Math.imul(key.charCodeAt(n - 3) | 0, 0x1b873593) ^
    Math.imul(key.charCodeAt(n - 4) | 0, 0x27d4eb2f);
  return Math.imul(h, 0x9e3779b1) >>> (32 - SHARD_BITS);
};

/**
 * A map of string keys, split in 64 shards once it holds SPLIT_AT entries, so that growing it rehashes a 64th of its
 * entries at a time. Unlike a Map, its iteration order is not the order entries were set in.
 */
export class ShardedMap<V> {
  private one: Map<string, V> | null = new Map();
  private shards: Map<string, V>[] = [];
  private count = 0;

  get size(): number {
    return this.one ? this.one.size : this.count;
  }

  private mapOf(key: string): Map<string, V> {
    return this.one ?? this.shards[shardOf(key)];
  }

  get(key: string): V | undefined {
    return this.mapOf(key).get(key);
  }

  has(key: string): boolean {
    return this.mapOf(key).has(key);
  }

  set(key: string, value: V): this {
    const one = this.one;
    if (one) {
      one.set(key, value);
      if (one.size >= SPLIT_AT) this.split(one);
      return this;
    }
    const shard = this.shards[shardOf(key)];
    const had = shard.size;
    shard.set(key, value);
    this.count += shard.size - had;
    return this;
  }

  delete(key: string): boolean {
    const map = this.mapOf(key);
    const gone = map.delete(key);
    if (gone && !this.one) this.count--;
    return gone;
  }

  clear(): void {
    this.one = new Map();
    this.shards = [];
    this.count = 0;
  }

  /** The entries of its largest part (one Map): what growing it rehashes at most. */
  get largestPart(): number {
    return this.one ? this.one.size : Math.max(...this.shards.map((s) => s.size));
  }

  *values(): IterableIterator<V> {
    if (this.one) yield* this.one.values();
    else for (const shard of this.shards) yield* shard.values();
  }

  private split(one: Map<string, V>): void {
    this.shards = Array.from({ length: SHARDS }, () => new Map<string, V>());
    for (const [k, v] of one) this.shards[shardOf(k)].set(k, v);
    this.count = one.size;
    this.one = null;
  }
}

/** Keys a block of a SeqMap holds: a range of this many numbers. */
export const SEQ_BLOCK = 1 << 12;

/**
 * A map of whole numbers that are made in increasing order (creation numbers), kept in blocks of SEQ_BLOCK numbers
 * each, so that growing it rehashes one block at most. Its iteration order is a Map's (the order entries were set in)
 * while keys are set in increasing order; otherwise entries of a block come together.
 */
export class SeqMap<V> {
  private readonly blocks = new Map<number, Map<number, V>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(key: number): V | undefined {
    return this.blocks.get(Math.floor(key / SEQ_BLOCK))?.get(key);
  }

  set(key: number, value: V): this {
    const b = Math.floor(key / SEQ_BLOCK);
    let block = this.blocks.get(b);
    if (!block) this.blocks.set(b, (block = new Map()));
    const had = block.size;
    block.set(key, value);
    this.count += block.size - had;
    return this;
  }

  delete(key: number): boolean {
    const b = Math.floor(key / SEQ_BLOCK);
    const block = this.blocks.get(b);
    if (!block?.delete(key)) return false;
    this.count--;
    if (block.size === 0) this.blocks.delete(b);
    return true;
  }

  clear(): void {
    this.blocks.clear();
    this.count = 0;
  }

  /** The entries of its largest part (one Map): what growing it rehashes at most. */
  get largestPart(): number {
    let most = 0;
    for (const block of this.blocks.values()) most = Math.max(most, block.size);
    return most;
  }

  *values(): IterableIterator<V> {
    for (const block of this.blocks.values()) yield* block.values();
  }
}
