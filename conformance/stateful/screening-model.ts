// A model of one tenant's screening account (credits left, the requests made per idempotency key) and
// the commands a client issues against it: submit (new keys and replays drawn from a small pool, so
// sequences mix both), read usage, walk the audit ledger, send an invalid body, top the wallet up.
// Commands are plain data first (saved as counterexamples and read back), then fast-check commands
// with check(model) / run(model, real) / toString(), kept apart from the real system.

import fc from 'fast-check';
import type { CheckContext } from '../check.js';
import { violation } from '../failure.js';
import { jsonOf } from '../target/http.js';
import type { TenantHandle } from '../target/tenants.js';
import { ledgerProblems, walkAudit } from '../checks/ledger.js';
import { expectStatus, readUsage, screening } from '../checks/support.js';
import type { Answer } from '../json.js';

export interface ScreeningModel {
  credits: number;
  /** idempotency key → requestId (only keys that created a request). */
  requests: Map<string, string>;
  /** Replays since usage was last read (a missing credit then points at the replays). */
  replays?: number;
}

export interface Real {
  ctx: CheckContext;
  tenant: TenantHandle;
  /** Prefix making this run's keys unique. */
  prefix: string;
  /**
   * A fixed key (reduced model): its ledger holds earlier history, so audit walks start at `since` (the
   * target's clock) and are judged on the model's own requests only.
   */
  since?: string;
}

export type CommandData =
  | { t: 'submit'; key: number; body: unknown }
  | { t: 'usage' }
  | { t: 'audit'; limit: number }
  | { t: 'invalid'; body: unknown; defect: string; requirement: string }
  | { t: 'topUp'; credits: number };

type Cmd = fc.AsyncCommand<ScreeningModel, Real> & { data: CommandData };

const keyOf = (real: Real, k: number) => `${real.prefix}-k${k}`;

function submitCommand(data: Extract<CommandData, { t: 'submit' }>): Cmd {
  return {
    data,
    check: () => true,
    async run(m, real) {
      const key = keyOf(real, data.key);
      const ex = await screening(real.ctx).submit(real.tenant.apiKey, {
        ...(data.body as object),
        idempotencyKey: key,
      });
      const existing = m.requests.get(key);
      if (existing) {
        expectStatus(ex, 200, 'SCR-IDEMP-1', `replaying key k${data.key}`);
        if (jsonOf(ex)?.requestId !== existing)
          throw violation(
            'SCR-IDEMP-1',
            `replaying key k${data.key} returned ${jsonOf(ex)?.requestId}, not ${existing}`,
            ex,
          );
        m.replays = (m.replays ?? 0) + 1;
      } else if (m.credits > 0) {
        expectStatus(ex, 201, 'SCR-SUBMIT-1', `a new key k${data.key} with ${m.credits} credit(s) left`);
        m.credits -= 1;
        m.requests.set(key, jsonOf(ex).requestId);
      } else {
        expectStatus(ex, 402, 'SCR-CREDIT-4', `a new key k${data.key} with no credits left`);
      }
    },
    toString: () => `submit(k${data.key})`,
  };
}

function usageCommand(data: Extract<CommandData, { t: 'usage' }>): Cmd {
  return {
    data,
    check: () => true,
    async run(m, real) {
      const u = await readUsage(real.ctx, real.tenant.apiKey);
      const replays = m.replays ?? 0;
      m.replays = 0;
      if (u.creditsRemaining !== m.credits) {
        const missing = m.credits - u.creditsRemaining;
        const requirement =
          missing > 0 && missing <= replays ? 'SCR-IDEMP-3' : missing > 0 ? 'SCR-CREDIT-1' : 'SCR-USAGE-7';
        throw violation(
          requirement,
          `usage reports ${u.creditsRemaining} credits; the model expects ${m.credits} after ${m.requests.size} accepted request(s)${replays ? ` and ${replays} replay(s) since the last reading` : ''}`,
          u.exchange,
        );
      }
    },
    toString: () => 'usage()',
  };
}

function auditCommand(data: Extract<CommandData, { t: 'audit' }>): Cmd {
  return {
    data,
    check: () => true,
    async run(m, real) {
      const w = await walkAudit(real.ctx, real.tenant.apiKey, {
        limit: data.limit,
        ...(real.since ? { since: real.since } : {}),
      });
      const last = w.pages[w.pages.length - 1];
      const ids = new Set(m.requests.values());
      const foreign = real.tenant.fresh ? w.rows.find((r) => !ids.has(r.requestId)) : undefined;
      if (foreign)
        throw violation(
          'SCR-AUDIT-3',
          `the ledger holds row ${foreign.id} of ${foreign.requestId}, a request this tenant never created`,
          last,
        );
      for (const id of ids) {
        const intake = w.rows.filter((r) => r.requestId === id && r.toState === 'received').length;
        if (intake !== 1)
          throw violation(
            intake === 0 ? 'SCR-AUDIT-4' : 'SCR-IDEMP-2',
            `request ${id} has ${intake} intake rows in a walk with limit ${data.limit}`,
            last,
          );
      }
      const p = ledgerProblems(real.tenant.fresh ? w.rows : w.rows.filter((r) => ids.has(r.requestId)), true)[0];
      if (p) throw violation(p.requirement, p.why, last);
    },
    toString: () => `audit(limit=${data.limit})`,
  };
}

function invalidCommand(data: Extract<CommandData, { t: 'invalid' }>): Cmd {
  return {
    data,
    check: () => true,
    async run(_m, real) {
      const b = data.body as Answer;
      // a key of its own, so a refused body never collides with the model's keys
      const body =
        b && typeof b === 'object' && !Array.isArray(b) && typeof b.idempotencyKey === 'string'
          ? { ...b, idempotencyKey: `${real.prefix}-inv-${b.idempotencyKey}` }
          : b;
      const ex = await screening(real.ctx).submit(real.tenant.apiKey, body);
      expectStatus(ex, 400, data.requirement, `a body where ${data.defect}`);
    },
    toString: () => `invalid(${data.defect})`,
  };
}

function topUpCommand(data: Extract<CommandData, { t: 'topUp' }>): Cmd {
  return {
    data,
    check: () => true,
    async run(m, real) {
      await real.ctx.tenants.patch(real.tenant, { screeningCredits: data.credits });
      m.credits = data.credits;
    },
    toString: () => `topUp(${data.credits})`,
  };
}

export function commandFromData(d: CommandData): Cmd {
  switch (d.t) {
    case 'submit':
      return submitCommand(d);
    case 'usage':
      return usageCommand(d);
    case 'audit':
      return auditCommand(d);
    case 'invalid':
      return invalidCommand(d);
    case 'topUp':
      return topUpCommand(d);
  }
}

export interface CommandArbitraries {
  validBody: fc.Arbitrary<unknown>;
  /** Invalid bodies with a description of their defect, or null when negative input cannot reach the target. */
  invalidBody: fc.Arbitrary<{ body: unknown; defect: string; requirement: string }> | null;
  topUps: boolean;
}

/** The command arbitraries (data mapped to commands; shrinking works on the data). */
export function commandArbitraries(a: CommandArbitraries): fc.Arbitrary<Cmd>[] {
  const arbs: fc.Arbitrary<CommandData>[] = [
    fc.record({ t: fc.constant('submit' as const), key: fc.nat({ max: 5 }), body: a.validBody }),
    fc.constant({ t: 'usage' as const }),
    fc.record({ t: fc.constant('audit' as const), limit: fc.integer({ min: 1, max: 6 }) }),
  ];
  if (a.invalidBody) arbs.push(a.invalidBody.map((x) => ({ t: 'invalid' as const, ...x })));
  if (a.topUps) arbs.push(fc.record({ t: fc.constant('topUp' as const), credits: fc.integer({ min: 0, max: 4 }) }));
  return arbs.map((arb) => arb.map(commandFromData));
}

/** The data of the commands that ran (what a saved counterexample holds). */
export function commandsToData(cmds: Iterable<unknown>): CommandData[] {
  const wrappers = ((cmds as Answer).commands ?? [...cmds]) as Answer[];
  return wrappers.filter((w) => w.hasRan !== false).map((w) => (w.cmd ?? w).data as CommandData);
}
