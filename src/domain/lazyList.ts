// A list whose elements are made when they are read: what a snapshot exports of data that never changes once it is
// written (a tenant's ledger rows), so that the export costs nothing while calls wait and the elements are made
// later, in slices, as the snapshot's JSON is (D-151). JSON.stringify reads it through toJSON. A list may also give
// each element's JSON text itself (`textOf`), and say where it reads from (`blocks`), so that a writer can keep the
// text of what did not change since it last wrote the list (D-161).
// Requirements: none of its own; decisions D-151, D-161.

export class LazyList<T> implements Iterable<T> {
  constructor(
    readonly length: number,
    /** The element at an index below `length`: the same value whenever it is read. */
    private readonly item: (i: number) => T,
    /**
     * The JSON text of the element at an index below `length`, exactly as `JSON.stringify(at(i))` writes it, with the
     * same effects as `at(i)` (slicedJson.ts reads a list through it when given).
     */
    readonly textOf?: (i: number) => string,
    /**
     * Where the list reads from, for a writer that keeps the text of its full blocks (slicedJson.ts, D-161): `source`
     * names it, and a block is written again as it was while its elements are the same. Without `token`, the source is
     * append-only: every list of it has the same element at every index below both lengths. With `token`, the
     * elements are the same while the values each one's token pushes on `into` are (`===`, in order). A writer that
     * writes a block's kept text instead of reading its elements says so through `passed` (those are not read then).
     */
    readonly blocks?: {
      source: object;
      token?: (i: number, into: unknown[]) => void;
      passed?: (first: number, count: number) => void;
    },
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
