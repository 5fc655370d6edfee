// A bounded table of recently seen values by their text, so requests that carry the same job spec or
// earn the same score share one stored copy instead of holding one each. The least recently used entry
// leaves first when the table is full.
// Requirements: none (memory layout).

const RECENT = 256;

export class RecentTable<V> {
  private recent = new Map<string, V>();

  /** The value kept for `key`, made by `make` (and kept) the first time. */
  get(key: string, make: (key: string) => V): V {
    let value = this.recent.get(key);
    if (value !== undefined) {
      this.recent.delete(key);
    } else {
      value = make(key);
      if (this.recent.size >= RECENT) this.recent.delete(this.recent.keys().next().value!);
    }
    this.recent.set(key, value);
    return value;
  }

  reset(): void {
    this.recent.clear();
  }
}
