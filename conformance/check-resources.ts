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
  /**
   * It goes first among the checks of its keys: its work grows with the key's recent ledger (walks page
   * by page from a \`since\` shortly before it starts, cheaper before the others add rows), or it waits
   * long for the target (a review, a delivery) and lends its keys meanwhile, so its wait overlaps the
   * others' work instead of coming after it.
   */
  early?: boolean;
}

const ALL_TIERS = ['free', 'starter', 'pro', 'scale'] as const;

export const CHECK_USES: Readonly<Record<string, CheckUses>> = {
  'screening.auth.unauthenticated': {},
  'screening.auth.forbidden': { keys: ['noScreeningScope'] },
  'screening.auth.key-in-query': { keys: ['pro'] },
  'screening.tenant-isolation': { keys: ['pro', 'starter'] },
  'screening.submit.valid': { keys: ['pro'] },
  'screening.submit.invalid': { keys: ['pro'] },
  'screening.submit.policy-limits': { keys: ['pro'] },
  'screening.submit.keys-per-tenant': { keys: ['pro', 'starter'] },
  'screening.idempotency.replay': { keys: ['pro'] },
  'screening.idempotency.concurrent': { keys: ['pro'] },
  'screening.credits.exhausted': {},
  'screening.limit.free-cap': {},
  'screening.usage.tiers': { keys: ALL_TIERS, slots: ['screeningSpent'] },
  'screening.usage.near-limit': {},
  'screening.credits.spent-key': { slots: ['screeningSpent'] },
  'screening.audit.params': { keys: ['pro'] },
  'screening.audit.walk': { keys: ['pro'], early: true },
  'screening.audit.since': { keys: ['pro'], early: true },
  'screening.ledger.lifecycle': { keys: ['pro'], early: true },
  'screening.webhooks.scored': { keys: ['pro', 'starter'], early: true },
  'screening.webhooks.review-decided': { keys: ['pro'], early: true },
  'screening.webhooks.every-delivery': { keys: ['pro'] },
  'screening.stateful': {},
  'screening.stateful.fixed-key': { keys: ['pro'], early: true },
  'screening.policy.magic-inputs': { keys: ['pro'] },
  'screening.policy.review-expiry': { keys: ['pro'], clock: true },
  'screening.policy.webhook-retries': { keys: ['pro'], clock: true },
  'screening.credits.allow-spend': { keys: [...ALL_TIERS, 'screeningSpent'] },
  'jobs.auth.unauthenticated': { keys: ['pro'] },
  'jobs.auth.keys-and-scopes': { keys: ['pro', 'noJobsScope'] },
  'jobs.search.valid': { keys: ['pro'] },
  'jobs.search.invalid': { keys: ['pro'] },
  'jobs.search.paging': { keys: ['starter'] },
  'jobs.get.unknown': { keys: ['pro'] },
  'jobs.tier.ad-free': { keys: ALL_TIERS },
  'jobs.tier.page-cap': { keys: ['free', 'starter', 'pro'] },
  'jobs.me': { keys: ALL_TIERS },
  'jobs.apply.paid': { keys: ['pro'] },
  'jobs.apply.invalid': { keys: ['pro'] },
  'jobs.apply.free-tier': { keys: ['free'] },
  'jobs.market.every-tier': { keys: ['free', 'starter', 'pro'] },
  'jobs.market.roles': { keys: ['pro'] },
  'jobs.market.skills': { keys: ['pro'] },
  'jobs.rate.tier-limits': { keys: ['free', 'starter', 'pro'] },
  'jobs.rate.window': { keys: ['free'], clock: true },
  'mcp.keyed.initialize': { keys: ['pro'] },
  'mcp.keyed.tools': { keys: ['pro'] },
  'mcp.keyed.seeker-tools': { keys: ['starter', 'free'] },
  'mcp.keyed.scope': { keys: ['noMcpScope'] },
  'mcp.tools.draft': { keys: ['starter'] },
  'mcp.tools.grounding': { keys: ['free'] },
  'mcp.tools.employer': { keys: ['pro'] },
  'mcp.tools.hire': { keys: ['pro'] },
  'mcp.tools.talent-daily-limit': { keys: ['starter'] },
  'mcp.anon.server': { anonDay: true },
  'mcp.anon.read-only': { keys: ['pro'], anonDay: true },
  'mcp.anon.daily-limit': { anonDay: true, clock: true },
  'mcp.discovery': { anonDay: true },
  'api.versioning': { keys: ['pro'] },
  'api.methods': { keys: ['pro'] },
  'screening.description-version': {},
};

export interface ScheduledCheck extends Job {
  check: Check;
}

/** The order checks are offered to the scheduler in: \`early\` ones first, \`late\` ones last, else the registry's. */
export function scheduleOrder(checks: readonly Check[]): Check[] {
  const rank = (c: Check) => (c.late ? 2 : (c.uses ?? CHECK_USES[c.id])?.early ? 0 : 1);
  return checks
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
    .map((x) => x.c);
}

/** The check as a scheduler job on this target (fresh tenants free every key but the slots read directly). */
export function jobOf(check: Check, index: number, caps: Capabilities): ScheduledCheck {
  const uses = check.uses ?? CHECK_USES[check.id];
  const resources = new Set<string>();
  if (uses) {
    if (!caps.freshTenants) for (const k of uses.keys ?? []) resources.add(`key:${k}`);
    for (const k of uses.slots ?? []) resources.add(`key:${k}`);
    if (uses.anonDay) resources.add('anon-day');
  }
  const exclusive = !uses || (Boolean(uses.clock) && caps.clock);
  return { check, index, resources, exclusive, strict: Boolean(check.late) };
}
