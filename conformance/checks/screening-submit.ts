// Submitting candidates: valid bodies (derived from the SubmitRequest schema) are accepted with 201 and
// cost exactly one credit; invalid ones (one defect each) are refused with 400 `invalid_request` and cost
// nothing; idempotency keys belong to one tenant.

import type { Check, CheckContext } from '../check.js';
import type { Mutation } from '../arbitraries/mutate.js';
import { bodyGenerators } from '../arbitraries/requests.js';
import { violation } from '../failure.js';
import { jsonOf } from '../target/http.js';
import type { TenantHandle } from '../target/tenants.js';
import {
  expectCode,
  expectStatus,
  messageNames,
  nonce,
  policyOnce,
  readUsage,
  screening,
  uniqueKey,
} from './support.js';

/** A paid tenant with room for many submissions (its balance raised when the target allows it). */
export async function roomyTenant(
  ctx: CheckContext,
  tier: 'pro' | 'starter' = 'pro',
  opts: { webhook?: boolean } = {},
): Promise<TenantHandle> {
  const t = await ctx.tenants.get(tier, opts);
  if (ctx.capabilities.creditControl && t.fresh) await ctx.tenants.patch(t, { screeningCredits: 100_000 });
  return t;
}

/** Which requirement a body defect breaks, by where it is. */
export function submitRequirement(m: Mutation): string {
  if (m.kind === 'not-an-object') return 'SCR-SUBMIT-8';
  if (m.path.startsWith('candidate')) {
    if (m.kind === 'unknown-property' || m.kind === 'mixed-variants') return 'SCR-SUBMIT-5';
    if (m.path === 'candidate' || m.path === 'candidate.kind') return 'SCR-SUBMIT-4';
    return 'SCR-SUBMIT-6';
  }
  if (m.path.startsWith('jobSpec.') || (m.path === 'jobSpec' && m.kind !== 'missing-required')) return 'SCR-SUBMIT-7';
  return 'SCR-SUBMIT-3';
}

/** The mutated body with a unique idempotency key, unless the key itself is the defect. */
const keyed = (m: Mutation) => (m.path === 'idempotencyKey' ? m.value : uniqueKey(m.value));

const validSubmit: Check = {
  id: 'screening.submit.valid',
  title: 'A valid SubmitRequest with a new idempotency key is answered 201 `received` and costs exactly one credit',
  requirements: ['SCR-SUBMIT-1', 'SCR-SUBMIT-2', 'SCR-CREDIT-1', 'SCR-USAGE-7'],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const t = await roomyTenant(ctx);
    const api = screening(ctx);
    const usageOnce = policyOnce(ctx);
    await ctx.property({
      name: 'valid bodies',
      arbitrary: gen.valid,
      examples: gen.examples,
      predicate: async (generated) => {
        const body = uniqueKey(generated);
        const before = await readUsage(ctx, t.apiKey);
        const ex = await api.submit(t.apiKey, body);
        expectStatus(ex, 201, 'SCR-SUBMIT-1', 'a valid submission with a new idempotency key');
        const res = jsonOf(ex);
        if (res?.state !== 'received')
          throw violation('SCR-SUBMIT-1', `a new request is in state '${res?.state}', not 'received'`, ex);
        if (typeof res?.requestId !== 'string' || !/^scr_.+/.test(res.requestId))
          throw violation(
            'SCR-SUBMIT-2',
            `requestId ${JSON.stringify(res?.requestId)} does not have the shape scr_<identifier>`,
            ex,
          );
        const after = await readUsage(ctx, t.apiKey);
        const spent = before.creditsRemaining - after.creditsRemaining;
        if (spent !== 1) {
          // unchanged usage breaks two rules at once, and keys alone cannot tell which: nothing was
          // charged, or usage does not show the charge; both are reported
          const why = `an accepted submission changed creditsRemaining by ${-spent} (${before.creditsRemaining} → ${after.creditsRemaining}), not by exactly -1`;
          if (spent === 0)
            usageOnce(
              'SCR-USAGE-7',
              `${why}: usage does not reflect the charge, or there was none`,
              before.exchange,
              ex,
              after.exchange,
            );
          throw violation('SCR-CREDIT-1', why, before.exchange, ex, after.exchange);
        }
      },
    });
  },
};

const invalidSubmit: Check = {
  id: 'screening.submit.invalid',
  title:
    'A SubmitRequest with one defect (missing field, wrong type, unknown property, mixed variants, bad kind…) is refused with 400 and costs nothing',
  requirements: [
    'SCR-SUBMIT-3',
    'SCR-SUBMIT-4',
    'SCR-SUBMIT-5',
    'SCR-SUBMIT-6',
    'SCR-SUBMIT-7',
    'SCR-SUBMIT-8',
    'SCR-CREDIT-2',
    'POL-ERR-1',
  ],
  appliesTo: { surface: 'screening', needs: ['negativeInput'] },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const t = await roomyTenant(ctx);
    const api = screening(ctx);
    const policy = policyOnce(ctx);
    await ctx.property({
      name: 'invalid bodies',
      arbitrary: gen.invalid(false),
      examples: gen.invalidExamples(false),
      predicate: async (m) => {
        const body = keyed(m);
        const before = await readUsage(ctx, t.apiKey);
        const ex = await api.submit(t.apiKey, body);
        const req = submitRequirement(m);
        expectStatus(ex, 400, req, `a body where ${m.description}`);
        expectCode(ex, 'invalid_request', req, `a body where ${m.description}`);
        const after = await readUsage(ctx, t.apiKey);
        if (after.creditsRemaining !== before.creditsRemaining)
          throw violation(
            'SCR-CREDIT-2',
            `a refused submission changed creditsRemaining ${before.creditsRemaining} → ${after.creditsRemaining}`,
            ex,
            after.exchange,
          );
        if (!messageNames(ex, m.field))
          policy('POL-ERR-1', `the 400 message does not name the offending field '${m.field}' (${m.description})`, ex);
      },
    });
    // bodies that are not JSON at all
    for (const [what, raw] of [
      ['malformed JSON', '{"idempotencyKey": "x", "candidate": '],
      ['an empty body', ''],
    ] as const) {
      await ctx.failures.step(async () => {
        const before = await readUsage(ctx, t.apiKey);
        const ex = await api.submit(t.apiKey, undefined, {
          body: raw,
          headers: { 'content-type': 'application/json' },
        });
        expectStatus(ex, 400, 'SCR-SUBMIT-8', `a submission with ${what}`);
        const after = await readUsage(ctx, t.apiKey);
        if (after.creditsRemaining !== before.creditsRemaining)
          throw violation(
            'SCR-CREDIT-2',
            `a refused submission (${what}) changed creditsRemaining`,
            ex,
            after.exchange,
          );
      });
    }
  },
};

const policyLimits: Check = {
  id: 'screening.submit.policy-limits',
  title:
    'Sandbox body limits: unknown top-level properties, over-long strings and arrays, negative amounts are refused with 400',
  requirements: ['POL-SUBMIT-1', 'POL-SUBMIT-2'],
  appliesTo: { surface: 'screening', needs: ['negativeInput'] },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const t = await roomyTenant(ctx);
    const api = screening(ctx);
    await ctx.property({
      name: 'policy-invalid bodies',
      arbitrary: gen.invalid(true),
      runs: ctx.runs(0.5),
      predicate: async (m) => {
        const ex = await api.submit(t.apiKey, keyed(m), { policyProbe: true });
        const req = m.path === 'unexpectedField' ? 'POL-SUBMIT-1' : 'POL-SUBMIT-2';
        expectStatus(ex, 400, req, `a body where ${m.description}`);
      },
    });
  },
};

const perTenantKeys: Check = {
  id: 'screening.submit.keys-per-tenant',
  keysOnly: 'two tenants',
  title: 'The same idempotency key used by two tenants creates two separate requests',
  requirements: ['SCR-IDEMP-4'],
  // fixed keys of two tenants (pro and starter) are enough
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const a = await roomyTenant(ctx);
    const b = await roomyTenant(ctx, 'starter');
    const api = screening(ctx);
    const body = uniqueKey(gen.examples[1], nonce('shared'));
    const ea = await api.submit(a.apiKey, body);
    expectStatus(ea, 201, 'SCR-SUBMIT-1', 'the first tenant submitting a new key');
    const eb = await api.submit(b.apiKey, body);
    expectStatus(eb, 201, 'SCR-IDEMP-4', 'a second tenant submitting a key only the first tenant used');
    if (jsonOf(ea)?.requestId === jsonOf(eb)?.requestId)
      throw violation('SCR-IDEMP-4', 'two tenants using the same key got the same requestId', ea, eb);
  },
};

export const submitChecks = [validSubmit, invalidSubmit, policyLimits, perTenantKeys];
