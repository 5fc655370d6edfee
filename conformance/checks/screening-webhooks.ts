// Webhook deliveries, received by the harness's own receiver: the body matches the contract
// (ScoredDelivery / ReviewDecidedDelivery), names the right tenant and request, goes only to that
// tenant's URL, and its X-Screening-Signature verifies with the tenant's secret through the one
// verification function a client would use — which must also reject a tampered body.

import fc from 'fast-check';
import type { Check, CheckContext } from '../check.js';
import { bodyGenerators } from '../arbitraries/requests.js';
import { Violation, violation } from '../failure.js';
import type { Exchange } from '../target/http.js';
import type { TenantHandle } from '../target/tenants.js';
import type { Delivery } from '../target/webhook-receiver.js';
import { tamper, verifySignature } from '../target/webhook-verify.js';
import { REVIEWER, submitOne } from './screening-ledger.js';
import { roomyTenant } from './screening-submit.js';
import { walkAudit } from './ledger.js';
import { expectStatus, poll, readUsage, screening, sinceOf, uniqueKey } from './support.js';
import { jsonOf } from '../target/http.js';
import type { Answer } from '../json.js';

/** A delivery shown as an exchange (what the target sent to the receiver), for evidence. */
export function deliveryEvidence(d: Delivery): Exchange {
  return {
    request: { method: d.method, url: `webhook-receiver:${d.path}`, headers: d.headers, body: d.rawBody },
    response: { status: 200, headers: {}, body: '' },
    durationMs: 0,
  };
}

const MUST_BY_PATH: [RegExp, string][] = [
  [/^\/result\/schemaVersion/, 'SCR-VER-3'],
  [/^\/result/, ''],
  [/^/, 'SCR-HOOK-3'],
];

/** Validates a delivery body; must problems become violations, policy ones failures recorded on ctx. */
function checkBody(ctx: CheckContext, d: Delivery, schema: 'ScoredDelivery' | 'ReviewDecidedDelivery'): void {
  const resultReq = schema === 'ScoredDelivery' ? 'SCR-HOOK-4' : 'SCR-HOOK-5';
  if (d.json === undefined) throw violation('SCR-HOOK-3', 'the delivery body is not JSON', deliveryEvidence(d));
  const v = ctx.validator.schema(schema, d.json);
  for (const p of v.must) {
    const req = MUST_BY_PATH.find(([re]) => re.test(p.at))![1] || resultReq;
    throw violation(
      req,
      `the ${d.json?.event ?? schema} delivery does not match ${schema}: ${p.message}`,
      deliveryEvidence(d),
    );
  }
  for (const p of v.policy)
    ctx.failures.add(
      schema === 'ScoredDelivery' ? 'POL-REVIEW-2' : 'POL-REVIEW-1',
      `the delivery breaks sandbox policy: ${p.message}`,
      deliveryEvidence(d),
    );
}

/** Signature present, well-formed, valid for this tenant's secret only, and failing on a tampered body. */
function checkSignature(d: Delivery, t: TenantHandle, others: { webhookSecret: string | null }[]): void {
  const header = d.headers['x-screening-signature'];
  const ev = deliveryEvidence(d);
  if (typeof header !== 'string') throw violation('SCR-HOOK-6', 'the delivery has no X-Screening-Signature header', ev);
  if (!/^sha256=[0-9a-fA-F]+$/.test(header))
    throw violation('SCR-HOOK-6', `X-Screening-Signature '${header}' is not of the form sha256=<hex>`, ev);
  if (!verifySignature(t.webhookSecret ?? '', d.rawBody, header)) {
    const reserialised = d.json !== undefined && verifySignature(t.webhookSecret ?? '', JSON.stringify(d.json), header);
    throw violation(
      'SCR-HOOK-7',
      `X-Screening-Signature does not verify as the HMAC-SHA256 of the raw body under the tenant's webhookSecret${reserialised ? ' (it verifies over the body re-serialised compactly, not over the bytes sent)' : ''}`,
      ev,
    );
  }
  if (verifySignature(t.webhookSecret ?? '', tamper(d.rawBody), header)) {
    throw new Error('webhook-verify accepted a tampered body: the verification function is broken');
  }
  for (const o of others) {
    if (o.webhookSecret && o.webhookSecret !== t.webhookSecret && verifySignature(o.webhookSecret, d.rawBody, header))
      throw violation('SCR-HOOK-7', "the delivery's signature verifies with another tenant's secret", ev);
  }
}

const isEvent = (event: string, requestId: string) => (d: Delivery) =>
  d.json?.event === event && d.json?.requestId === requestId;

/** The tenant id GET /usage reports for a fixed key (deliveries name it). */
async function tenantIdOf(ctx: CheckContext, t: TenantHandle): Promise<string> {
  if (t.tenantId) return t.tenantId;
  const u = await readUsage(ctx, t.apiKey);
  if (typeof u.body.tenantId !== 'string') throw violation('SCR-USAGE-1', 'GET /usage reports no tenantId', u.exchange);
  return u.body.tenantId;
}

/** Waits for the delivery of `event` about `requestId` (on the tenant's hook, or anywhere for fixed keys). */
async function deliveryOf(
  ctx: CheckContext,
  t: TenantHandle,
  event: string,
  requestId: string,
  timeoutMs: number,
): Promise<{ d: Delivery | undefined; all: Delivery[] }> {
  const all = await ctx.receiver!.waitFor(t.hook, (ds) => ds.some(isEvent(event, requestId)), timeoutMs);
  return { d: all.find(isEvent(event, requestId)), all };
}

const scored: Check = {
  id: 'screening.webhooks.scored',
  title:
    "A screening.scored delivery reaches the tenant's webhook, matches ScoredDelivery, names its tenant and request, and carries a valid signature",
  requirements: [
    'SCR-HOOK-1',
    'SCR-HOOK-3',
    'SCR-HOOK-4',
    'SCR-HOOK-6',
    'SCR-HOOK-7',
    'SCR-HOOK-8',
    'SCR-VER-3',
    'POL-REVIEW-2',
  ],
  appliesTo: { surface: 'screening', needs: ['webhooks'] },
  async run(ctx) {
    const a = await roomyTenant(ctx, 'pro', { webhook: true });
    const b = await roomyTenant(ctx, 'starter', { webhook: true }).catch(() => null);
    const receiver = ctx.receiver!;
    const owner = await tenantIdOf(ctx, a);
    const { requestId, exchange } = await submitOne(ctx, a);
    const waitMs = ctx.config.waits.pipelineMs + ctx.config.waits.webhookMs;
    const { d, all } = await deliveryOf(ctx, a, 'screening.scored', requestId, waitMs);
    if (!d) {
      const other = all[0];
      throw violation(
        'SCR-HOOK-1',
        `no screening.scored delivery for ${requestId} reached the tenant's webhook within ${waitMs / 1000} s (waits.pipelineMs + waits.webhookMs)${other ? ` (got ${all.length} other deliveries)` : ''}`,
        exchange,
        ...(other ? [deliveryEvidence(other)] : []),
      );
    }
    checkBody(ctx, d, 'ScoredDelivery');
    if (d.json.tenantId !== owner)
      throw violation(
        'SCR-HOOK-8',
        `the delivery names tenant ${d.json.tenantId}, not the owner ${owner}`,
        deliveryEvidence(d),
      );
    if (d.json.result?.schemaVersion !== 1)
      throw violation(
        'SCR-VER-3',
        `result.schemaVersion is ${JSON.stringify(d.json.result?.schemaVersion)}, not 1`,
        deliveryEvidence(d),
      );
    checkSignature(d, a, [...(b ? [b] : []), ...ctx.tenants.fixedSecrets.map((webhookSecret) => ({ webhookSecret }))]);
    // with one receiver URL shared by every fixed key, "only to the owner's URL" is not observable beyond the tenantId
    if (b?.hook) {
      const leaked = receiver
        .deliveries(b.hook)
        .find((x) => x.json?.requestId === requestId || x.rawBody.includes(requestId));
      if (leaked)
        throw violation(
          'SCR-HOOK-8',
          `a delivery about ${requestId} went to another tenant's webhookUrl`,
          deliveryEvidence(leaked),
        );
    }
  },
};

/** The checks every review_decided delivery gets: body, schemaVersion, signature. */
function checkDecided(ctx: CheckContext, d: Delivery, t: TenantHandle): void {
  checkBody(ctx, d, 'ReviewDecidedDelivery');
  if (d.json.result?.schemaVersion !== 1)
    throw violation(
      'SCR-VER-3',
      `result.schemaVersion is ${JSON.stringify(d.json.result?.schemaVersion)}, not 1`,
      deliveryEvidence(d),
    );
  checkSignature(
    d,
    t,
    ctx.tenants.fixedSecrets.map((webhookSecret) => ({ webhookSecret })),
  );
}

const reviewDecided: Check = {
  id: 'screening.webhooks.review-decided',
  title:
    'No review_decided delivery before a human decides; after the decision one arrives, matches ReviewDecidedDelivery and is signed',
  requirements: [
    'SCR-HOOK-2',
    'SCR-HOOK-5',
    'SCR-HOOK-6',
    'SCR-HOOK-7',
    'SCR-REVIEW-1',
    'SCR-REVIEW-2',
    'SCR-VER-3',
    'POL-REVIEW-1',
  ],
  appliesTo: { surface: 'screening', needs: ['webhooks'] },
  async run(ctx) {
    if (!ctx.capabilities.reviewDecisions || !ctx.control) return deployedReviewer(ctx);
    const receiver = ctx.receiver!;
    const control = ctx.control;
    for (const decision of ['approved', 'rejected', 'edited'] as const) {
      await ctx.failures.step(async () => {
        const t = await roomyTenant(ctx, 'pro', { webhook: true });
        const { requestId } = await submitOne(ctx, t);
        const queued = await poll(
          async () => (await control.reviews(t.tenantId!)).find((r) => r.requestId === requestId),
          ctx.config.waits.pipelineMs,
        );
        if (!queued) throw violation('SCR-REVIEW-1', `${requestId} never appeared in the pending review queue`);
        const early = receiver.deliveries(t.hook).find(isEvent('screening.review_decided', requestId));
        if (early)
          throw violation(
            'SCR-REVIEW-1',
            'a review_decided delivery arrived before any human decision',
            deliveryEvidence(early),
          );
        await control.decide(requestId, {
          decision,
          ...REVIEWER,
          note: `conformance ${decision}`,
          ...(decision === 'edited'
            ? { editedScore: 61, editedRationale: 'Adjusted by the conformance reviewer.' }
            : {}),
        });
        const { d } = await deliveryOf(ctx, t, 'screening.review_decided', requestId, ctx.config.waits.webhookMs);
        if (!d)
          throw violation(
            'SCR-HOOK-2',
            `no screening.review_decided delivery for ${requestId} within ${ctx.config.waits.webhookMs / 1000} s of the decision (waits.webhookMs)`,
          );
        checkDecided(ctx, d, t);
        if (d.json.result?.decision !== decision)
          throw violation(
            'SCR-REVIEW-2',
            `the reviewer ${decision} the result but the delivery says '${d.json.result?.decision}'`,
            deliveryEvidence(d),
          );
        if (d.json.result?.reviewerId !== REVIEWER.reviewerId)
          throw violation(
            'SCR-HOOK-5',
            `the delivery names reviewer '${d.json.result?.reviewerId}', not '${REVIEWER.reviewerId}'`,
            deliveryEvidence(d),
          );
      });
    }
  },
};

/**
 * Fixed keys: the deployment's own reviewers decide. The moment a review_decided delivery arrives, the
 * ledger must already hold a human decision row (actor reviewer:<id>) for that request; the delivery is
 * then checked like any other.
 */
async function deployedReviewer(ctx: CheckContext): Promise<void> {
  const t = await roomyTenant(ctx, 'pro', { webhook: true });
  const { requestId, exchange } = await submitOne(ctx, t);
  const { pipelineMs, reviewMs, webhookMs } = ctx.config.waits;
  const waitMs = pipelineMs + reviewMs + webhookMs;
  const { d } = await deliveryOf(ctx, t, 'screening.review_decided', requestId, waitMs);
  if (!d)
    throw violation(
      'SCR-HOOK-2',
      `no screening.review_decided delivery for ${requestId} within ${waitMs / 1000} s (waits.pipelineMs + reviewMs + webhookMs); a deployment whose reviewers take longer sets longer waits in the profile`,
      exchange,
    );
  const { rows, pages } = await walkAudit(ctx, t.apiKey, { limit: 500, since: sinceOf(exchange) });
  const mine = rows.filter((r) => r.requestId === requestId);
  const decision = mine.find((r) => ['approved', 'rejected', 'edited'].includes(r.toState));
  if (!decision)
    throw violation(
      'SCR-REVIEW-1',
      `a review_decided delivery for ${requestId} arrived while the ledger held no review decision row (rows: ${mine.map((r) => r.toState).join(' → ') || 'none'})`,
      deliveryEvidence(d),
      pages[pages.length - 1],
    );
  if (!/^reviewer:.+/.test(decision.actor))
    throw violation(
      'SCR-REVIEW-1',
      `the decision row before the review_decided delivery has actor '${decision.actor}', not a human reviewer:<id>`,
      pages[pages.length - 1],
    );
  checkDecided(ctx, d, t);
}

const DELIVERY_SCHEMA: Record<string, 'ScoredDelivery' | 'ReviewDecidedDelivery'> = {
  'screening.scored': 'ScoredDelivery',
  'screening.review_decided': 'ReviewDecidedDelivery',
};

/**
 * The delivery rules hold for every delivery, not for the one a check waited for: at the end of the run
 * every delivery the receiver got (whatever check's submission caused it, either candidate variant, any
 * event) is judged — its body, schemaVersion, signature form, and its signature under the secret of the
 * tenant it names; a delivery that verifies only under another known tenant's secret names the wrong
 * tenant. Deliveries naming a tenant whose secret the harness does not hold are judged on form only.
 */
const everyDelivery: Check = {
  id: 'screening.webhooks.every-delivery',
  title:
    'Every delivery the receiver got during the run, of both candidate variants and both events, has a documented body, schemaVersion 1 and a signature that verifies under the secret of the tenant it names',
  requirements: ['SCR-HOOK-3', 'SCR-HOOK-4', 'SCR-HOOK-5', 'SCR-HOOK-6', 'SCR-HOOK-7', 'SCR-HOOK-8', 'SCR-VER-3'],
  appliesTo: { surface: 'screening', needs: ['webhooks'] },
  late: true,
  async run(ctx) {
    const receiver = ctx.receiver!;
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const t = await roomyTenant(ctx, 'pro', { webhook: true });
    const owner = await tenantIdOf(ctx, t);
    // one submission of each candidate variant, so both kinds of scoring are delivered at least once
    const ours = new Set<string>();
    let first: Exchange | undefined;
    for (const kind of ['resume_ref', 'structured']) {
      const ofKind = (b: unknown) => (b as Answer)?.candidate?.kind === kind;
      const body =
        gen.examples.find(ofKind) ?? fc.sample(gen.valid.filter(ofKind), { numRuns: 1, seed: ctx.config.seed })[0];
      if (body === undefined) continue;
      const ex = await screening(ctx).submit(t.apiKey, uniqueKey(body));
      expectStatus(ex, 201, 'SCR-SUBMIT-1', `a valid ${kind} submission`);
      first ??= ex;
      ours.add(jsonOf(ex).requestId);
    }
    // each is settled once its scored delivery arrived, or once the ledger shows it failed before scoring
    // (a deployment may fail a candidate it cannot parse, such as a resume it cannot find)
    const waitMs = ctx.config.waits.pipelineMs + ctx.config.waits.webhookMs;
    const deadline = Date.now() + waitMs;
    const failed = new Set<string>();
    const settled = () =>
      [...ours].every((id) => failed.has(id) || receiver.deliveries(t.hook).some(isEvent('screening.scored', id)));
    while (!settled() && Date.now() < deadline) {
      const { rows } = await walkAudit(ctx, t.apiKey, { limit: 500, since: first ? sinceOf(first) : undefined });
      for (const r of rows)
        if (
          ours.has(r.requestId) &&
          r.toState === 'failed' &&
          !rows.some((x) => x.requestId === r.requestId && x.toState === 'scored')
        )
          failed.add(r.requestId);
      if (!settled()) await receiver.waitFor(t.hook, settled, Math.min(1000, Math.max(0, deadline - Date.now())));
    }
    // the secret of each tenant the harness holds one for, by the tenantId its usage reports
    const secretOf = new Map<string, string>();
    if (t.webhookSecret) secretOf.set(owner, t.webhookSecret);
    if (!ctx.tenants.canProvision) {
      for (const tier of ['free', 'starter', 'pro', 'scale'] as const) {
        const h = await ctx.tenants.get(tier, { webhook: true }).catch(() => null);
        if (h?.webhookSecret) secretOf.set(await tenantIdOf(ctx, h), h.webhookSecret);
      }
    }
    const reported = new Set<string>();
    const judge = (fn: () => void) => {
      try {
        fn();
      } catch (e) {
        if (!(e instanceof Violation)) throw e;
        if (!reported.has(e.requirement))
          ctx.failures.push({ requirement: e.requirement, check: everyDelivery.id, why: e.why, evidence: e.evidence });
        reported.add(e.requirement);
      }
    };
    const all = receiver.deliveries(null);
    for (const d of all) {
      const ev = deliveryEvidence(d);
      judge(() => {
        const schema = DELIVERY_SCHEMA[d.json?.event];
        if (!schema)
          throw violation(
            'SCR-HOOK-3',
            `a delivery's event is ${JSON.stringify(d.json?.event)}, neither screening.scored nor screening.review_decided`,
            ev,
          );
        const v = ctx.validator.schema(schema, d.json);
        for (const p of v.must) {
          const req =
            MUST_BY_PATH.find(([re]) => re.test(p.at))![1] ||
            (schema === 'ScoredDelivery' ? 'SCR-HOOK-4' : 'SCR-HOOK-5');
          throw violation(
            req,
            `a ${d.json.event} delivery (request ${d.json?.requestId}) does not match ${schema}: ${p.message}`,
            ev,
          );
        }
        if (d.json.result?.schemaVersion !== 1)
          throw violation(
            'SCR-VER-3',
            `a ${d.json.event} delivery carries result.schemaVersion ${JSON.stringify(d.json.result?.schemaVersion)}, not 1`,
            ev,
          );
      });
      judge(() => {
        const header = d.headers['x-screening-signature'];
        if (typeof header !== 'string')
          throw violation(
            'SCR-HOOK-6',
            `a ${d.json?.event ?? ''} delivery (request ${d.json?.requestId}) has no X-Screening-Signature header`,
            ev,
          );
        if (!/^sha256=[0-9a-fA-F]+$/.test(header))
          throw violation('SCR-HOOK-6', `X-Screening-Signature '${header}' is not of the form sha256=<hex>`, ev);
        const named = d.json?.tenantId;
        const secret = typeof named === 'string' ? secretOf.get(named) : undefined;
        if ((ours.has(d.json?.requestId) || (t.hook !== null && d.hook === t.hook)) && named !== owner)
          throw violation(
            'SCR-HOOK-8',
            `a delivery about ${d.json?.requestId}, a request of tenant ${owner}, names tenant ${JSON.stringify(named)}`,
            ev,
          );
        if (secret !== undefined && verifySignature(secret, d.rawBody, header)) return;
        const signer = [...secretOf].find(([, s]) => verifySignature(s, d.rawBody, header));
        if (signer)
          throw violation(
            'SCR-HOOK-8',
            `a delivery signed with the secret of tenant ${signer[0]} names tenant ${JSON.stringify(named)}`,
            ev,
          );
        if (secret !== undefined)
          throw violation(
            'SCR-HOOK-7',
            `a ${d.json?.event} delivery (request ${d.json?.requestId}) does not verify under the webhookSecret of the tenant it names (${named})`,
            ev,
          );
      });
    }
    if (all.length === 0)
      throw violation(
        'SCR-HOOK-1',
        `no delivery reached the receiver within ${waitMs / 1000} s of two accepted submissions`,
      );
  },
};

export const webhookChecks = [scored, reviewDecided, everyDelivery];
