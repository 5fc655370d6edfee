// Idempotent submission: a replayed key answers 200 with the same request and its current state,
// creates nothing and charges nothing — sequentially, with a different body, and under concurrency.

import fc from 'fast-check';
import type { Check, CheckContext } from '../check.js';
import { bodyGenerators } from '../arbitraries/requests.js';
import { violation } from '../failure.js';
import { headerOf, jsonOf, type Exchange } from '../target/http.js';
import type { TenantHandle } from '../target/tenants.js';
import { walkAudit } from './ledger.js';
import { roomyTenant } from './screening-submit.js';
import { expectStatus, nonce, orderedBand, policyOnce, readUsage, screening, uniqueKey } from './support.js';
import type { Answer } from '../json.js';

/** Counts the intake rows of a request in the tenant's ledger. */
async function intakeRows(
  ctx: CheckContext,
  t: TenantHandle,
  requestId: string,
): Promise<{ count: number; evidence: Exchange | undefined }> {
  const walk = await walkAudit(ctx, t.apiKey, { limit: 500 });
  return {
    count: walk.rows.filter((r) => r.requestId === requestId && r.toState === 'received').length,
    evidence: walk.pages[walk.pages.length - 1],
  };
}

function expectReplay(ctx: CheckContext, first: Exchange, replay: Exchange, what: string): void {
  expectStatus(replay, 200, 'SCR-IDEMP-1', what);
  const a = jsonOf(first)?.requestId;
  const b = jsonOf(replay)?.requestId;
  if (a !== b)
    throw violation(
      'SCR-IDEMP-1',
      `${what} returned requestId ${JSON.stringify(b)}, not the existing ${JSON.stringify(a)}`,
      first,
      replay,
    );
  const state = jsonOf(replay)?.state;
  if (ctx.contract.validate('ScreeningState', state).length)
    throw violation('SCR-STATE-1', `${what} reports state ${JSON.stringify(state)}`, replay);
}

const replay: Check = {
  id: 'screening.idempotency.replay',
  title:
    'Replaying an idempotency key answers 200 with the same requestId, charges nothing and creates no second intake row',
  requirements: ['SCR-IDEMP-1', 'SCR-IDEMP-2', 'SCR-IDEMP-3', 'POL-IDEMP-1', 'POL-IDEMP-2'],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const t = await roomyTenant(ctx);
    const api = screening(ctx);
    const policy = policyOnce(ctx);
    await ctx.property({
      name: 'replays',
      arbitrary: fc.record({ body: gen.valid, other: gen.valid, replays: fc.integer({ min: 1, max: 3 }) }),
      examples: [{ body: gen.examples[0], other: gen.examples[1], replays: 1 }],
      runs: ctx.runs(0.5),
      predicate: async ({ body, other, replays }) => {
        const b = uniqueKey(body);
        const first = await api.submit(t.apiKey, b);
        expectStatus(first, 201, 'SCR-SUBMIT-1', 'the first submission of a new key');
        if (headerOf(first, 'idempotent-replayed') === 'true')
          policy('POL-IDEMP-2', 'a new request carries Idempotent-Replayed: true', first);
        const before = await readUsage(ctx, t.apiKey);
        for (let i = 0; i < replays; i++) {
          const again = await api.submit(t.apiKey, b);
          expectReplay(ctx, first, again, `replay ${i + 1} of the same body`);
          if (headerOf(again, 'idempotent-replayed') !== 'true')
            policy('POL-IDEMP-2', 'a replay lacks the header Idempotent-Replayed: true', again);
        }
        const after = await readUsage(ctx, t.apiKey);
        if (after.creditsRemaining !== before.creditsRemaining) {
          throw violation(
            'SCR-IDEMP-3',
            `${replays} replay(s) changed creditsRemaining ${before.creditsRemaining} → ${after.creditsRemaining}`,
            before.exchange,
            after.exchange,
          );
        }
        const rows = await intakeRows(ctx, t, jsonOf(first).requestId);
        if (rows.count !== 1)
          throw violation(
            'SCR-IDEMP-2',
            `after ${replays} replay(s) the ledger holds ${rows.count} intake rows for ${jsonOf(first).requestId}`,
            rows.evidence,
          );
        // policy: a replay with a different (valid) body still returns the existing request
        const changed = await api.submit(
          t.apiKey,
          orderedBand({ ...(other as object), idempotencyKey: (b as Answer).idempotencyKey }),
        );
        if (changed.response?.status !== 200 || jsonOf(changed)?.requestId !== jsonOf(first).requestId) {
          policy(
            'POL-IDEMP-1',
            `a replay with a different body answered ${changed.response?.status} ${jsonOf(changed)?.requestId ?? ''}, not 200 with the existing request`,
            changed,
          );
        }
      },
    });
  },
};

const concurrent: Check = {
  id: 'screening.idempotency.concurrent',
  title:
    'Ten parallel submissions of one new key make one request (one 201, nine 200), charge one credit and write one intake row; parallel submissions of distinct keys are each charged',
  requirements: ['SCR-IDEMP-1', 'SCR-IDEMP-2', 'SCR-IDEMP-3', 'SCR-CREDIT-1'],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const t = await roomyTenant(ctx);
    const api = screening(ctx);
    await ctx.property({
      name: 'parallel submissions',
      arbitrary: fc.record({ body: gen.valid, parallel: fc.integer({ min: 2, max: 10 }) }),
      examples: [{ body: gen.examples[1], parallel: 10 }],
      runs: ctx.runs(0.25),
      predicate: async ({ body, parallel }) => {
        const b = uniqueKey(body);
        const before = await readUsage(ctx, t.apiKey);
        const all = await Promise.all(Array.from({ length: parallel }, () => api.submit(t.apiKey, b)));
        const created = all.filter((e) => e.response?.status === 201);
        const replayed = all.filter((e) => e.response?.status === 200);
        if (created.length !== 1 || replayed.length !== parallel - 1) {
          throw violation(
            created.length > 1 ? 'SCR-IDEMP-2' : 'SCR-IDEMP-1',
            `${parallel} parallel submissions of one new key answered ${all.map((e) => e.response?.status ?? 'error').join(', ')}: expected exactly one 201 and the rest 200`,
            ...all.slice(0, 3),
          );
        }
        const ids = new Set(all.map((e) => jsonOf(e)?.requestId));
        if (ids.size !== 1)
          throw violation(
            'SCR-IDEMP-1',
            `parallel submissions of one key returned ${ids.size} different requestIds`,
            ...all.slice(0, 3),
          );
        const after = await readUsage(ctx, t.apiKey);
        if (before.creditsRemaining - after.creditsRemaining !== 1) {
          throw violation(
            'SCR-IDEMP-3',
            `${parallel} parallel submissions of one key charged ${before.creditsRemaining - after.creditsRemaining} credits, not 1`,
            before.exchange,
            after.exchange,
          );
        }
        const again = await Promise.all(Array.from({ length: parallel }, () => api.submit(t.apiKey, b)));
        for (const e of again) expectReplay(ctx, created[0], e, 'a parallel replay');
        const end = await readUsage(ctx, t.apiKey);
        if (end.creditsRemaining !== after.creditsRemaining)
          throw violation(
            'SCR-IDEMP-3',
            `${parallel} parallel replays changed creditsRemaining ${after.creditsRemaining} → ${end.creditsRemaining}`,
            end.exchange,
          );
        const rows = await intakeRows(ctx, t, jsonOf(created[0]).requestId);
        if (rows.count !== 1)
          throw violation(
            'SCR-IDEMP-2',
            `the ledger holds ${rows.count} intake rows for one key submitted ${2 * parallel} times in parallel`,
            rows.evidence,
          );
        // "each accepted submission costs one credit" holds under concurrency too: distinct new keys in
        // parallel are each charged (a wallet updated by read-then-write loses charges)
        const distinct = await Promise.all(
          Array.from({ length: parallel }, (_, i) => api.submit(t.apiKey, uniqueKey(body, nonce(`par${i}`)))),
        );
        for (const e of distinct)
          expectStatus(e, 201, 'SCR-SUBMIT-1', 'one of several parallel submissions of distinct new keys');
        const spent = await readUsage(ctx, t.apiKey);
        if (end.creditsRemaining - spent.creditsRemaining !== parallel) {
          throw violation(
            'SCR-CREDIT-1',
            `${parallel} parallel submissions of distinct new keys, all accepted, changed creditsRemaining by ${spent.creditsRemaining - end.creditsRemaining}, not by -${parallel}`,
            end.exchange,
            ...distinct.slice(0, 2),
            spent.exchange,
          );
        }
      },
    });
  },
};

const exhausted: Check = {
  id: 'screening.credits.exhausted',
  title:
    'An exhausted wallet answers a new key with 402 and an upsell, charges and creates nothing, and still answers replays with 200',
  requirements: [
    'SCR-CREDIT-3',
    'SCR-CREDIT-4',
    'SCR-CREDIT-5',
    'SCR-CREDIT-2',
    'SCR-IDEMP-5',
    'SCR-SUBMIT-1',
    'POL-CREDIT-2',
  ],
  appliesTo: { surface: 'screening', needs: ['freshTenants', 'creditControl'] },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const api = screening(ctx);
    const policy = policyOnce(ctx);
    for (const tier of ['free', 'pro'] as const) {
      await ctx.failures.step(async () => {
        const req = tier === 'free' ? 'SCR-CREDIT-3' : 'SCR-CREDIT-4';
        const t = await ctx.tenants.fresh(tier);
        await ctx.tenants.patch(t, { screeningCredits: 1 });
        const first = uniqueKey(gen.examples[1]);
        const a = await api.submit(t.apiKey, first);
        expectStatus(a, 201, 'SCR-SUBMIT-1', `a ${tier} tenant's submission with one credit left`);
        const zero = await readUsage(ctx, t.apiKey);
        if (zero.creditsRemaining !== 0)
          throw violation(
            'SCR-CREDIT-1',
            `after spending the last credit creditsRemaining is ${zero.creditsRemaining}`,
            zero.exchange,
          );
        const second = uniqueKey(gen.examples[0]);
        const b = await api.submit(t.apiKey, second);
        expectStatus(b, 402, req, `a new submission by a ${tier} tenant with no credits left`);
        const err = jsonOf(b)?.error;
        if (err?.code !== 'payment_required')
          throw violation('SCR-CREDIT-5', `the 402 carries code ${JSON.stringify(err?.code)}, not payment_required`, b);
        if (typeof err?.upsell?.upgradeUrl !== 'string' || !/^[a-z][a-z0-9+.-]*:\S+$/i.test(err.upsell.upgradeUrl))
          throw violation('SCR-CREDIT-5', 'the 402 has no upsell.upgradeUrl URI: the upsell must carry a next step', b);
        if (err.upsell.freeScreenCap !== undefined && !Number.isInteger(err.upsell.freeScreenCap))
          throw violation('SCR-CREDIT-5', 'upsell.freeScreenCap is not an integer', b);
        if (tier === 'free' && err.upsell.freeScreenCap === undefined)
          policy('POL-CREDIT-2', 'a free-tier 402 lacks upsell.freeScreenCap', b);
        if (tier !== 'free' && err.upsell.freeScreenCap !== undefined)
          policy('POL-CREDIT-2', 'a paid-tier 402 carries upsell.freeScreenCap', b);
        const still = await readUsage(ctx, t.apiKey);
        if (still.creditsRemaining !== 0)
          throw violation(
            'SCR-CREDIT-2',
            `a refused (402) submission changed creditsRemaining to ${still.creditsRemaining}`,
            still.exchange,
          );
        const again = await api.submit(t.apiKey, first);
        expectStatus(again, 200, 'SCR-IDEMP-5', 'replaying a key after the wallet ran out');
        if (jsonOf(again)?.requestId !== jsonOf(a)?.requestId)
          throw violation('SCR-IDEMP-5', 'a replay after exhaustion returned another request', a, again);
        const walk = await walkAudit(ctx, t.apiKey, { limit: 500 });
        const intakes = walk.rows.filter((r) => r.toState === 'received').length;
        if (intakes !== 1)
          throw violation(
            'SCR-CREDIT-2',
            `after one accepted and one refused (402) submission the ledger holds ${intakes} intake rows`,
            walk.pages[0],
          );
        // the refused key was not consumed: with credit again it creates a request
        await ctx.tenants.patch(t, { screeningCredits: 1 });
        const retried = await api.submit(t.apiKey, second);
        expectStatus(
          retried,
          201,
          'SCR-SUBMIT-1',
          'a key refused with 402 submitted again once credit is back (the 402 created nothing)',
        );
      });
    }
  },
};

const freeCap: Check = {
  id: 'screening.limit.free-cap',
  title: 'A fresh free tenant can make exactly `freeScreenCap` accepted submissions; the next one gets 402',
  requirements: ['SCR-LIMIT-1', 'SCR-CREDIT-3', 'POL-CREDIT-1'],
  appliesTo: { surface: 'screening', needs: ['freshTenants'] },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const api = screening(ctx);
    const t = await ctx.tenants.fresh('free');
    const u = await readUsage(ctx, t.apiKey);
    const cap = u.body.freeScreenCap;
    if (!Number.isInteger(cap))
      throw violation(
        'SCR-LIMIT-1',
        `a free tenant's usage has freeScreenCap ${JSON.stringify(cap)}, not an integer`,
        u.exchange,
      );
    if (cap !== 10) ctx.failures.add('POL-CREDIT-1', `the free screen cap is ${cap}, not 10`, u.exchange);
    // any cap is conformant; only one too large to spend in a run is left unobserved
    if (cap > SPEND_BUDGET)
      return ctx.unobserved(
        'SCR-LIMIT-1',
        `freeScreenCap ${cap} is more than the ${SPEND_BUDGET} submissions a run spends`,
      );
    const prefix = nonce('cap');
    for (let i = 0; i < cap; i++) {
      const ex = await api.submit(t.apiKey, uniqueKey(gen.examples[i % 2], `${prefix}-${i}`));
      expectStatus(
        ex,
        201,
        'SCR-LIMIT-1',
        `accepted submission ${i + 1} of a free tenant whose freeScreenCap is ${cap}`,
      );
    }
    const over = await api.submit(t.apiKey, uniqueKey(gen.examples[0], `${prefix}-over`));
    expectStatus(over, 402, 'SCR-CREDIT-3', `submission ${cap + 1} of a free tenant whose freeScreenCap is ${cap}`);
  },
};

/** Most submissions a run makes to spend one wallet. */
export const SPEND_BUDGET = 5000;

export const idempotencyChecks = [replay, concurrent, exhausted, freeCap];
