// A list whose elements are made when they are read: what a snapshot exports of data that never changes once it is
// written (a tenant's ledger rows), so that the export costs nothing while calls wait and the elements are made
// later, in slices, as the snapshot's JSON is (D-151). JSON.stringify reads it through toJSON.
// Requirements: none of its own; decision D-151.

export class LazyList<T> implements Iterable<T> {
  constructor(
    readonly length: number,
    /** The element at an index below `length`: the same value whenever it is read. */
    private readonly item: (i: number) => T,
  ) {}

  at(i: number): T {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`no element ${i} in a list of ${this.length}`);
    return this.item(i);
  }

  *[Symbol.iterator](): Iterator<T> {
    for (let i = 0; i < this.length; i++) yield this.item(i);
  }

  toJSON(): T[] {
    return Array.from(this);
  }
}
