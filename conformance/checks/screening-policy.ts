// Sandbox policy of the screening pipeline where the document says "not shown" (reported, never failing
// a run): magic inputs, expiry of requests left in review for 72 h of sandbox clock, and the webhook
// retry schedule (a failed delivery retried 5 s, then 5 min later, with the same body and signature).

import type { Check, CheckContext } from '../check.js';
import type { TenantHandle } from '../target/tenants.js';
import { rowsOf, submitOne, untilState } from './screening-ledger.js';
import { roomyTenant } from './screening-submit.js';
import { jsonOf } from '../target/http.js';
import { expectStatus, screening, uniqueKey } from './support.js';
import { deliveryEvidence } from './screening-webhooks.js';
import { verifySignature } from '../target/webhook-verify.js';
import { movedBy, watchClock } from './clock-watch.js';

async function submitMagic(ctx: CheckContext, t: TenantHandle, candidate: object, jobSpec: object) {
  const ex = await screening(ctx).submit(t.apiKey, uniqueKey({ idempotencyKey: 'magic', candidate, jobSpec }));
  expectStatus(ex, 201, 'SCR-SUBMIT-1', 'a submission with a magic input');
  return jsonOf(ex).requestId as string;
}

const magic: Check = {
  id: 'screening.policy.magic-inputs',
  title:
    'Magic inputs: a candidate named `Sandbox Fail` ends in failed; a job titled `Sandbox Expire` expires in review',
  requirements: ['POL-STATE-3'],
  appliesTo: { surface: 'screening', needs: ['thisSandbox'] },
  async run(ctx) {
    const t = await roomyTenant(ctx);
    const fail = await submitMagic(
      ctx,
      t,
      { kind: 'structured', fullName: 'Sandbox Fail' },
      { title: 'Backend Engineer', mustHaves: ['Go'] },
    );
    const expire = await submitMagic(
      ctx,
      t,
      { kind: 'structured', fullName: 'Magic Expiry' },
      { title: 'Sandbox Expire', mustHaves: ['Go'] },
    );
    for (const [id, state] of [
      [fail, 'failed'],
      [expire, 'expired'],
    ] as const) {
      const walk = await untilState(ctx, t, id, [state], ctx.config.waits.pipelineMs);
      const mine = rowsOf(walk.rows, id);
      if (!mine.some((r) => r.toState === state))
        ctx.failures.add(
          'POL-STATE-3',
          `the magic input did not lead to '${state}' (rows: ${mine.map((r) => r.toState).join(' → ')})`,
          walk.pages[walk.pages.length - 1],
        );
    }
  },
};

/** Moves the clock of the check's own tenant (the sandbox clock on a fixed key's target), D-122. */
const advanceFor = (ctx: CheckContext, t: TenantHandle, seconds: number) =>
  t.tenantId ? ctx.control!.advanceTenantClock(t.tenantId, seconds) : ctx.control!.advanceClock(seconds);

const expiry: Check = {
  id: 'screening.policy.review-expiry',
  title: 'A request left in pending_review for 72 hours of sandbox clock moves to expired',
  requirements: ['POL-STATE-2'],
  appliesTo: { surface: 'screening', needs: ['clock'] },
  late: true,
  async run(ctx) {
    const t = await roomyTenant(ctx);
    const { requestId } = await submitOne(ctx, t);
    await untilState(ctx, t, requestId, ['pending_review'], ctx.config.waits.pipelineMs);
    const watch = t.tenantId ? await watchClock(ctx.control!, t.tenantId) : null;
    await advanceFor(ctx, t, 71 * 3600);
    watch?.own(71 * 3600);
    let walk = await untilState(ctx, t, requestId, ['expired'], 300);
    if (rowsOf(walk.rows, requestId).some((r) => r.toState === 'expired')) {
      // another client's move of the sandbox clock moves this tenant's too (D-122)
      const foreign = watch ? await watch.foreignMs() : 0;
      if (foreign > 0) return ctx.unobserved('POL-STATE-2', `${movedBy(foreign)}: the review window cannot be judged`);
      ctx.failures.add('POL-STATE-2', 'the request expired before 72 hours in review', walk.pages[0]);
    }
    await advanceFor(ctx, t, 3600 + 1);
    walk = await untilState(ctx, t, requestId, ['expired'], 3000);
    const mine = rowsOf(walk.rows, requestId);
    if (!mine.some((r) => r.toState === 'expired'))
      ctx.failures.add(
        'POL-STATE-2',
        `72 hours in review did not expire the request (rows: ${mine.map((r) => r.toState).join(' → ')})`,
        walk.pages[walk.pages.length - 1],
      );
  },
};

const retries: Check = {
  id: 'screening.policy.webhook-retries',
  title:
    'A failed delivery is retried 5 s and then 5 min later (sandbox clock); every attempt is signed and carries the same delivery id',
  requirements: ['POL-HOOK-1', 'POL-HOOK-4', 'SCR-HOOK-7'],
  appliesTo: { surface: 'screening', needs: ['webhooks', 'clock'] },
  late: true,
  async run(ctx) {
    const receiver = ctx.receiver!;
    const t = await roomyTenant(ctx, 'pro', { webhook: true });
    receiver.script(t.hook!, [500, 503]);
    const { requestId } = await submitOne(ctx, t);
    const scoredFor = (n: number) => async () =>
      receiver.waitFor(
        t.hook,
        (ds) => ds.filter((d) => d.json?.requestId === requestId && d.json?.event === 'screening.scored').length >= n,
        5000,
      );
    let ds = await scoredFor(1)();
    const first = ds.filter((d) => d.json?.requestId === requestId);
    if (first.length !== 1) {
      ctx.failures.add(
        'POL-HOOK-1',
        `expected one first attempt before any clock move, got ${first.length}`,
        ...first.slice(0, 2).map(deliveryEvidence),
      );
      return;
    }
    // the receiver sees an attempt before the sandbox hears its answer (over a network, or through a shared
    // sandbox's log): the clock moves only once the failure is recorded, else the retry is scheduled after the move
    const recorded = (n: number) => ctx.control!.attemptsRecorded(requestId, 'screening.scored', n, 5000);
    await recorded(1);
    await advanceFor(ctx, t, 5);
    await scoredFor(2)();
    await recorded(2);
    await advanceFor(ctx, t, 300);
    ds = await scoredFor(3)();
    const attempts = ds.filter((d) => d.json?.requestId === requestId && d.json?.event === 'screening.scored');
    if (attempts.length < 3) {
      ctx.failures.add(
        'POL-HOOK-1',
        `after failing twice and moving the clock 5 s and 5 min, ${attempts.length} attempt(s) arrived, not 3`,
        ...attempts.map(deliveryEvidence),
      );
      return;
    }
    // each attempt is signed afresh with the tenant's secret and carries the same delivery id
    const ids = new Set(attempts.map((d) => d.headers['x-screening-delivery']));
    const unsigned = attempts.find(
      (d) => !verifySignature(t.webhookSecret ?? '', d.rawBody, d.headers['x-screening-signature']),
    );
    if (unsigned)
      ctx.failures.add(
        'SCR-HOOK-7',
        'a retried delivery does not verify with the tenant secret',
        deliveryEvidence(unsigned),
      );
    if (
      ids.size !== 1 ||
      ids.has(undefined as unknown as string) ||
      attempts.some((d) => d.headers['x-screening-event'] !== 'screening.scored')
    ) {
      ctx.failures.add(
        'POL-HOOK-4',
        `the attempts of one delivery carry X-Screening-Delivery ids [${[...ids].join(', ')}] and X-Screening-Event [${attempts.map((d) => d.headers['x-screening-event']).join(', ')}]`,
        ...attempts.map(deliveryEvidence),
      );
    }
  },
};

export const screeningPolicyChecks = [magic, expiry, retries];
