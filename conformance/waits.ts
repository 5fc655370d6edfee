// Which check a piece of harness code is running for, and the one way a check waits for something the
// target does in its own time (a score, a review, a delivery). Checks run side by side (runner.ts), so
// the check is carried by AsyncLocalStorage rather than by a global "current check": the response
// monitor files every exchange under the check that made it, and a wait lets other checks that share
// the check's keys run meanwhile (the waiting check only reads, and its reads change no wallet).

import { AsyncLocalStorage } from 'node:async_hooks';

export interface CheckScope {
  /** The id of the running check. */
  readonly check: string;
  /**
   * Runs `fn` (a bounded wait) with the check's keys lent to the checks queued behind it, then takes
   * them back before the check goes on. Absent outside a scheduled run: the wait simply runs.
   */
  readonly whileWaiting?: <T>(fn: () => Promise<T>) => Promise<T>;
}

const scope = new AsyncLocalStorage<CheckScope>();

/** Runs `fn` as the check `s.check` (everything it awaits, timers and callbacks included). */
export const inCheck = <T>(s: CheckScope, fn: () => Promise<T>): Promise<T> => scope.run(s, fn);

/** The check the calling code runs for, or null outside any check (set-up, reporters). */
export const currentCheck = (): string | null => scope.getStore()?.check ?? null;

/**
 * A wait for something asynchronous on the target: polls, ledger walks until a state, deliveries.
 * While it lasts the check's keys are free for other checks (see CheckScope.whileWaiting).
 */
export function asyncWait<T>(fn: () => Promise<T>): Promise<T> {
  const s = scope.getStore();
  return s?.whileWaiting ? s.whileWaiting(fn) : fn();
}
