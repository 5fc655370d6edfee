// What each registered check shares with others, for running checks side by side (scheduler.ts): the
// fixed keys of the profile it uses (each a tenant whose wallet, ledger and rate window the check
// observes), whether it moves the target clock (which every other check would feel: rate windows,
// review expiry, webhook retries, daily quotas), and whether it calls the anonymous MCP server (whose
// per-IP day one check spends). A check missing here runs alone, which is always correct, only slower;
// a check touching a fixed key it does not declare here takes that key when it is free (and the run's
// notes say so, a test keeps the table complete).

import type { Capabilities, Check } from './check.js';
import type { KeySlot } from './config.js';
import type { Job } from './scheduler.js';

export interface CheckUses {
  /** Profile key slots the check calls with when it has no control plane (tenants.get / withoutScope). */
  keys?: readonly KeySlot[];
  /** Profile key slots it reads through tenants.slot(): fixed keys even with a control plane. */
  slots?: readonly KeySlot[];
  /** It moves the target clock (with the clock capability): it runs alone. */
  clock?: boolean;
  /** It calls the anonymous MCP server (whose per-IP day mcp.anon.daily-limit spends). */
  anonDay?: boolean;
}

export const CHECK_USES: Readonly<Record<string, CheckUses>> = {};

export interface ScheduledCheck extends Job {
  check: Check;
}

/** The check as a scheduler job on this target (fresh tenants free every key but the slots read directly). */
export function jobOf(check: Check, index: number, caps: Capabilities): ScheduledCheck {
  const uses = CHECK_USES[check.id];
  const resources = new Set<string>();
  if (uses) {
    if (!caps.freshTenants) for (const k of uses.keys ?? []) resources.add(`key:${k}`);
    for (const k of uses.slots ?? []) resources.add(`key:${k}`);
    if (uses.anonDay) resources.add('anon-day');
  }
  const exclusive = !uses || (Boolean(uses.clock) && caps.clock);
  return { check, index, resources, exclusive, strict: Boolean(check.late) };
}
