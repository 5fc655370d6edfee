// A time (ms) kept in an object as two small integers instead of one number. A field holding a number beyond the
// engine's small integers (a time since 1970 in ms is one) is a separate object on the heap, which every full
// garbage collection visits; a sandbox holds hundreds of thousands of requests and timers, each with its times
// (D-199). A time that is not a whole number of ms from 0 to 2^53 is kept as it is (`lo`, with `hi` NO_SPLIT), and
// an absent one (null) as `hi` NONE: every number comes back exactly.
// Requirements: none of its own; decisions D-199.

const LOW = 2 ** 21;
const NO_SPLIT = -1;
const NONE = -2;

/** The high part of `t` (or a mark that `t` is kept whole in the low part, or absent). */
export const timeHi = (t: number | null): number =>
  t === null ? NONE : Number.isSafeInteger(t) && t >= 0 ? Math.floor(t / LOW) : NO_SPLIT;

/** The low part of `t` (the whole of it when it is not split). */
export const timeLo = (t: number | null): number => (t === null ? 0 : t >= 0 && Number.isSafeInteger(t) ? t % LOW : t);

/** The time kept as `hi` and `lo` (null: none was). */
export const timeOf = (hi: number, lo: number): number | null =>
  hi >= 0 ? hi * LOW + lo : hi === NO_SPLIT ? lo : null;

/** timeOf, for a time that is never absent. */
export const timeOfSet = (hi: number, lo: number): number => (hi >= 0 ? hi * LOW + lo : lo);
