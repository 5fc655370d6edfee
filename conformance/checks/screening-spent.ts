// Exhausted wallets with fixed keys: the profile's `screeningSpent` key (a tenant whose credits are used
// up) must get 402 with the payment-required envelope and an upsell and be charged nothing; with
// `--allow-spend <slot>` the harness spends a named key to its cap itself, counting that exactly the
// credits usage reported are accepted (the free screen cap, SCR-LIMIT-1), and that a key used before
// the wallet ran out still replays with 200.

import type { Check, CheckContext } from '../check.js';
import { bodyGenerators } from '../arbitraries/requests.js';
import { violation } from '../failure.js';
import { jsonOf, type Exchange } from '../target/http.js';
import { SPEND_BUDGET } from './screening-idempotency.js';
import { expectStatus, nonce, readUsage, screening, uniqueKey } from './support.js';

const SCREENING_SLOTS = ['free', 'starter', 'pro', 'scale'] as const;

/** The 402 body is the payment-required envelope whose upsell carries a next step (a URI). */
function expectUpsell(ex: Exchange): void {
  const err = jsonOf(ex)?.error;
  if (err?.code !== 'payment_required')
    throw violation('SCR-CREDIT-5', `the 402 carries code ${JSON.stringify(err?.code)}, not payment_required`, ex);
  if (typeof err?.message !== 'string') throw violation('SCR-CREDIT-5', 'the 402 envelope has no string message', ex);
  if (typeof err?.upsell?.upgradeUrl !== 'string' || !/^[a-z][a-z0-9+.-]*:\S+$/i.test(err.upsell.upgradeUrl))
    throw violation('SCR-CREDIT-5', 'the 402 has no upsell.upgradeUrl URI: the upsell must carry a next step', ex);
  if (err.upsell.freeScreenCap !== undefined && !Number.isInteger(err.upsell.freeScreenCap))
    throw violation('SCR-CREDIT-5', 'upsell.freeScreenCap is not an integer', ex);
}

const capRequirement = (planTier: unknown) => (planTier === 'free' ? 'SCR-CREDIT-3' : 'SCR-CREDIT-4');

const spentKey: Check = {
  id: 'screening.credits.spent-key',
  keysOnly: 'a spent key (keys.screeningSpent)',
  title:
    'The profile key whose screening credits are spent gets 402 payment_required with an upsell on a new submission, and is charged nothing',
  requirements: ['SCR-CREDIT-3', 'SCR-CREDIT-4', 'SCR-CREDIT-5', 'SCR-CREDIT-2'],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const key = ctx.tenants.slot('screeningSpent');
    if (!key) {
      for (const r of ['SCR-CREDIT-3', 'SCR-CREDIT-4', 'SCR-CREDIT-5', 'SCR-CREDIT-2'])
        ctx.unobserved(
          r,
          'the profile has no keys.screeningSpent (a tenant whose screening credits are used up); --allow-spend <slot> spends one',
        );
      return;
    }
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const before = await readUsage(ctx, key);
    const req = capRequirement(before.body.planTier);
    ctx.unobserved(
      req === 'SCR-CREDIT-3' ? 'SCR-CREDIT-4' : 'SCR-CREDIT-3',
      `keys.screeningSpent is a ${before.body.planTier} tenant`,
    );
    const ex = await screening(ctx).submit(key, uniqueKey(gen.examples[1]));
    expectStatus(
      ex,
      402,
      req,
      `a new submission by the ${before.body.planTier} tenant whose credits are spent (keys.screeningSpent, ${before.creditsRemaining} remaining)`,
    );
    expectUpsell(ex);
    const after = await readUsage(ctx, key);
    if (after.creditsRemaining !== before.creditsRemaining)
      throw violation(
        'SCR-CREDIT-2',
        `a refused (402) submission changed creditsRemaining ${before.creditsRemaining} → ${after.creditsRemaining}`,
        before.exchange,
        ex,
        after.exchange,
      );
  },
};

/** Submits new keys until the wallet refuses one; returns how many were accepted and the refusal. */
async function spendToCap(
  ctx: CheckContext,
  key: string,
  budget: number,
): Promise<{ accepted: number; refusal: Exchange | null }> {
  const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
  const prefix = nonce('spend');
  for (let i = 0; i <= budget; i++) {
    const ex = await screening(ctx).submit(key, uniqueKey(gen.examples[i % 2], `${prefix}-${i}`));
    if (ex.response?.status === 402) return { accepted: i, refusal: ex };
    expectStatus(ex, 201, 'SCR-SUBMIT-1', `submission ${i + 1} while spending a wallet`);
  }
  return { accepted: budget + 1, refusal: null };
}

const spendToCapCheck: Check = {
  id: 'screening.credits.allow-spend',
  keysOnly: '--allow-spend <slot> (spends a key to its cap)',
  title:
    'A key named by --allow-spend is spent to its cap: exactly its remaining credits are accepted (the free screen cap), then 402 with an upsell, and an earlier key still replays with 200',
  requirements: ['SCR-LIMIT-1', 'SCR-CREDIT-1', 'SCR-CREDIT-3', 'SCR-CREDIT-4', 'SCR-CREDIT-5', 'SCR-IDEMP-5'],
  appliesTo: { surface: 'screening' },
  late: true,
  async run(ctx) {
    const slots = ctx.config.allowSpend.filter((s): s is (typeof SCREENING_SLOTS)[number] =>
      (SCREENING_SLOTS as readonly string[]).includes(s),
    );
    if (!slots.length) {
      for (const r of spendToCapCheck.requirements)
        ctx.unobserved(r, 'spending a key to its cap needs --allow-spend <slot> (irreversible on a real deployment)');
      return;
    }
    const observed = new Set<string>();
    for (const slot of slots) {
      await ctx.failures.step(async () => {
        const t = await ctx.tenants.get(slot);
        const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
        const start = await readUsage(ctx, t.apiKey);
        const remaining = start.creditsRemaining;
        if (remaining > SPEND_BUDGET)
          return ctx.unobserved(
            'SCR-LIMIT-1',
            `the ${slot} key has ${remaining} credits, more than the ${SPEND_BUDGET} a run spends`,
          );
        const isFree = start.body.planTier === 'free';
        if (isFree && !Number.isInteger(start.body.freeScreenCap))
          throw violation(
            'SCR-LIMIT-1',
            `a free tenant's usage has freeScreenCap ${JSON.stringify(start.body.freeScreenCap)}, not an integer`,
            start.exchange,
          );
        const first = uniqueKey(gen.examples[1], nonce('before-cap'));
        let firstEx: Exchange | null = null;
        if (remaining > 0) {
          firstEx = await screening(ctx).submit(t.apiKey, first);
          expectStatus(firstEx, 201, 'SCR-SUBMIT-1', `a ${slot} submission with ${remaining} credits left`);
        }
        const { accepted, refusal } = await spendToCap(ctx, t.apiKey, Math.max(0, remaining - (firstEx ? 1 : 0)) + 1);
        const total = accepted + (firstEx ? 1 : 0);
        const req = isFree ? 'SCR-LIMIT-1' : 'SCR-CREDIT-1';
        if (!refusal)
          throw violation(
            capRequirement(start.body.planTier),
            `the ${slot} key accepted ${total} new submissions with ${remaining} credits remaining and never answered 402`,
            start.exchange,
          );
        if (total !== remaining)
          throw violation(
            req,
            `the ${slot} key had ${remaining} credits remaining (usage) but ${total} new submissions were accepted before the 402`,
            start.exchange,
            refusal,
          );
        expectUpsell(refusal);
        observed.add(capRequirement(start.body.planTier)).add(req).add('SCR-CREDIT-5');
        if (firstEx) {
          const again = await screening(ctx).submit(t.apiKey, first);
          expectStatus(again, 200, 'SCR-IDEMP-5', 'replaying a key after the wallet ran out');
          if (jsonOf(again)?.requestId !== jsonOf(firstEx)?.requestId)
            throw violation('SCR-IDEMP-5', 'a replay after exhaustion returned another request', firstEx, again);
          observed.add('SCR-IDEMP-5');
        }
      });
    }
    for (const r of spendToCapCheck.requirements)
      if (!observed.has(r)) ctx.unobserved(r, `not reached by spending ${slots.join(', ')}`);
  },
};

export const spentChecks = [spentKey, spendToCapCheck];
