// Whether somebody else moved a clock while a check walked a window on it (D-122). A target shared with
// other clients (two CI runs against one hosted sandbox) may have its sandbox clock moved by them at any
// moment, and with it every tenant's: a window that resets mid-walk then says nothing about the target.
// A watch reads the clock before and after; a clock that ran ahead of real time by more than the check's
// own advances was moved by another client, and the walk is taken again or reported as not observed.

import type { ControlClient } from '../target/control.js';

/** Real time a clock read takes, and the harness's and the target's clocks drifting apart, at most. */
const SLACK_MS = 2000;

export interface ClockWatch {
  /** Counts an advance the check itself made. */
  own(seconds: number): void;
  /** How far the clock ran ahead of real time and the check's own advances (ms); > 0: another client moved it. */
  foreignMs(): Promise<number>;
}

/** Watches a tenant's clock (tenantId), or the sandbox clock (null). */
export async function watchClock(control: ControlClient, tenantId: string | null): Promise<ClockWatch> {
  const read = () => (tenantId === null ? control.now() : control.tenantNow(tenantId));
  const t0 = Date.now();
  const c0 = await read();
  let ownMs = 0;
  return {
    own(seconds) {
      ownMs += seconds * 1000;
    },
    async foreignMs() {
      const c1 = await read();
      const ahead = c1 - c0 - (Date.now() - t0) - ownMs;
      return ahead > SLACK_MS ? ahead : 0;
    },
  };
}

/** Describes a foreign move for a report. */
export const movedBy = (ms: number) =>
  `another client moved the target clock ${Math.round(ms / 1000)} s ahead during the walk`;
