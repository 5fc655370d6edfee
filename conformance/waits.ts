// Which check an exchange was made for, and the one way a check waits for something the target does in
// its own time (a score, a review, a delivery). Checks run side by side (runner.ts), so there is no
// "current check": each check gets its own view of the target, whose calls carry the check's id to the
// response monitor, and its own view of the receiver; a wait lends the check's keys to the checks
// queued behind it (the waiting check only reads, and its reads change no wallet). No
// AsyncLocalStorage: on Node 20 its promise hooks would slow every promise of the process, an
// in-process sandbox's included.

import type { CallSpec, Target } from './target/target.js';
import type { WebhookReceiver } from './target/webhook-receiver.js';

/** Runs a bounded wait with the check's keys lent to the checks queued behind it. */
export type WhileWaiting = <T>(fn: () => Promise<T>) => Promise<T>;

const byCall = new WeakMap<CallSpec, string>();

/** The check a call was made for (its CallSpec as the observers see it), or null (set-up, control plane). */
export const checkOfCall = (spec: CallSpec): string | null => byCall.get(spec) ?? null;

/** The target as one check sees it: its calls are tagged with the check's id. */
export function targetFor(base: Target, check: string): Target {
  const t = Object.create(base) as Target;
  return Object.assign(t, {
    call: (surface: Parameters<Target['call']>[0], spec: CallSpec) => {
      const mine = { ...spec };
      byCall.set(mine, check);
      return base.call(surface, mine);
    },
  });
}

/** The receiver as one check sees it: its waits lend the check's keys. */
export function receiverFor(base: WebhookReceiver | null, whileWaiting: WhileWaiting): WebhookReceiver | null {
  if (!base) return null;
  const r = Object.create(base) as WebhookReceiver;
  r.waitFor = (hook, pred, timeoutMs) => whileWaiting(() => base.waitFor(hook, pred, timeoutMs));
  return r;
}

/** A wait of a check for something asynchronous on the target (lends its keys when run by the scheduler). */
export function asyncWait<T>(ctx: { whileWaiting?: WhileWaiting }, fn: () => Promise<T>): Promise<T> {
  return ctx.whileWaiting ? ctx.whileWaiting(fn) : fn();
}
