// Work that pauses between slices: a generator that yields where it may be interrupted and returns its result. Run
// at once (`finish`) while calls wait anyway; run in slices between calls by whoever may wait (a tenant loaded ahead
// of its call, D-170).
// Requirements: none of its own; decisions D-170.

/** Work made to pause (yield) between its slices, with its result at the end. */
export type Sliced<R = void> = Generator<void, R, void>;

/** Runs sliced work to its end at once and returns its result. */
export function finish<R>(work: Sliced<R>): R {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}
