// Webhook deliveries, received by the harness's own receiver: the body matches the contract
// (ScoredDelivery / ReviewDecidedDelivery), names the right tenant and request, goes only to that
// tenant's URL, and its X-Screening-Signature verifies with the tenant's secret through the one
// verification function a client would use — which must also reject a tampered body.

import type { Check, CheckContext } from '../check.js';
import { violation } from '../failure.js';
import type { Exchange } from '../target/http.js';
import type { TenantHandle } from '../target/tenants.js';
import type { Delivery } from '../target/webhook-receiver.js';
import { tamper, verifySignature } from '../target/webhook-verify.js';
import { REVIEWER, submitOne } from './screening-ledger.js';
import { roomyTenant } from './screening-submit.js';
import { walkAudit } from './ledger.js';
import { poll, readUsage, sinceOf } from './support.js';

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
    throw violation(req, `the ${d.json?.event ?? schema} delivery does not match ${schema}: ${p.message}`, deliveryEvidence(d));
  }
  for (const p of v.policy) ctx.failures.add(schema === 'ScoredDelivery' ? 'POL-REVIEW-2' : 'POL-REVIEW-1', `the delivery breaks sandbox policy: ${p.message}`, deliveryEvidence(d));
}

/** Signature present, well-formed, valid for this tenant's secret only, and failing on a tampered body. */
function checkSignature(d: Delivery, t: TenantHandle, others: { webhookSecret: string | null }[]): void {
  const header = d.headers['x-screening-signature'];
  const ev = deliveryEvidence(d);
  if (typeof header !== 'string') throw violation('SCR-HOOK-6', 'the delivery has no X-Screening-Signature header', ev);
  if (!/^sha256=[0-9a-fA-F]+$/.test(header)) throw violation('SCR-HOOK-6', `X-Screening-Signature '${header}' is not of the form sha256=<hex>`, ev);
  if (!verifySignature(t.webhookSecret ?? '', d.rawBody, header)) {
    const reserialised = d.json !== undefined && verifySignature(t.webhookSecret ?? '', JSON.stringify(d.json), header);
    throw violation('SCR-HOOK-7', `X-Screening-Signature does not verify as the HMAC-SHA256 of the raw body under the tenant's webhookSecret${reserialised ? ' (it verifies over the body re-serialised compactly, not over the bytes sent)' : ''}`, ev);
  }
  if (verifySignature(t.webhookSecret ?? '', tamper(d.rawBody), header)) {
    throw new Error('webhook-verify accepted a tampered body: the verification function is broken');
  }
  for (const o of others) {
    if (o.webhookSecret && o.webhookSecret !== t.webhookSecret && verifySignature(o.webhookSecret, d.rawBody, header)) throw violation('SCR-HOOK-7', "the delivery's signature verifies with another tenant's secret", ev);
  }
}

const isEvent = (event: string, requestId: string) => (d: Delivery) => d.json?.event === event && d.json?.requestId === requestId;

/** The tenant id GET /usage reports for a fixed key (deliveries name it). */
async function tenantIdOf(ctx: CheckContext, t: TenantHandle): Promise<string> {
  if (t.tenantId) return t.tenantId;
  const u = await readUsage(ctx, t.apiKey);
  if (typeof u.body.tenantId !== 'string') throw violation('SCR-USAGE-1', 'GET /usage reports no tenantId', u.exchange);
  return u.body.tenantId;
}

/** Waits for the delivery of `event` about `requestId` (on the tenant's hook, or anywhere for fixed keys). */
async function deliveryOf(ctx: CheckContext, t: TenantHandle, event: string, requestId: string, timeoutMs: number): Promise<{ d: Delivery | undefined; all: Delivery[] }> {
  const all = await ctx.receiver!.waitFor(t.hook, (ds) => ds.some(isEvent(event, requestId)), timeoutMs);
  return { d: all.find(isEvent(event, requestId)), all };
}

const scored: Check = {
  id: 'screening.webhooks.scored',
  title: "A screening.scored delivery reaches the tenant's webhook, matches ScoredDelivery, names its tenant and request, and carries a valid signature",
  requirements: ['SCR-HOOK-1', 'SCR-HOOK-3', 'SCR-HOOK-4', 'SCR-HOOK-6', 'SCR-HOOK-7', 'SCR-HOOK-8', 'SCR-VER-3', 'POL-REVIEW-2'],
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
      throw violation('SCR-HOOK-1', `no screening.scored delivery for ${requestId} reached the tenant's webhook within ${waitMs / 1000} s (waits.pipelineMs + waits.webhookMs)${other ? ` (got ${all.length} other deliveries)` : ''}`, exchange, ...(other ? [deliveryEvidence(other)] : []));
    }
    checkBody(ctx, d, 'ScoredDelivery');
    if (d.json.tenantId !== owner) throw violation('SCR-HOOK-8', `the delivery names tenant ${d.json.tenantId}, not the owner ${owner}`, deliveryEvidence(d));
    if (d.json.result?.schemaVersion !== 1) throw violation('SCR-VER-3', `result.schemaVersion is ${JSON.stringify(d.json.result?.schemaVersion)}, not 1`, deliveryEvidence(d));
    checkSignature(d, a, [...(b ? [b] : []), ...ctx.tenants.fixedSecrets.map((webhookSecret) => ({ webhookSecret }))]);
    // with one receiver URL shared by every fixed key, "only to the owner's URL" is not observable beyond the tenantId
    if (b?.hook) {
      const leaked = receiver.deliveries(b.hook).find((x) => x.json?.requestId === requestId || x.rawBody.includes(requestId));
      if (leaked) throw violation('SCR-HOOK-8', `a delivery about ${requestId} went to another tenant's webhookUrl`, deliveryEvidence(leaked));
    }
  },
};

/** The checks every review_decided delivery gets: body, schemaVersion, signature. */
function checkDecided(ctx: CheckContext, d: Delivery, t: TenantHandle): void {
  checkBody(ctx, d, 'ReviewDecidedDelivery');
  if (d.json.result?.schemaVersion !== 1) throw violation('SCR-VER-3', `result.schemaVersion is ${JSON.stringify(d.json.result?.schemaVersion)}, not 1`, deliveryEvidence(d));
  checkSignature(d, t, ctx.tenants.fixedSecrets.map((webhookSecret) => ({ webhookSecret })));
}

const reviewDecided: Check = {
  id: 'screening.webhooks.review-decided',
  title: 'No review_decided delivery before a human decides; after the decision one arrives, matches ReviewDecidedDelivery and is signed',
  requirements: ['SCR-HOOK-2', 'SCR-HOOK-5', 'SCR-HOOK-6', 'SCR-HOOK-7', 'SCR-REVIEW-1', 'SCR-REVIEW-2', 'SCR-VER-3', 'POL-REVIEW-1'],
  appliesTo: { surface: 'screening', needs: ['webhooks'] },
  async run(ctx) {
    if (!ctx.capabilities.reviewDecisions || !ctx.control) return deployedReviewer(ctx);
    const receiver = ctx.receiver!;
    const control = ctx.control;
    for (const decision of ['approved', 'rejected', 'edited'] as const) {
      await ctx.failures.step(async () => {
        const t = await roomyTenant(ctx, 'pro', { webhook: true });
        const { requestId } = await submitOne(ctx, t);
        const queued = await poll(async () => (await control.reviews(t.tenantId!)).find((r) => r.requestId === requestId), ctx.config.waits.pipelineMs);
        if (!queued) throw violation('SCR-REVIEW-1', `${requestId} never appeared in the pending review queue`);
        const early = receiver.deliveries(t.hook!).find(isEvent('screening.review_decided', requestId));
        if (early) throw violation('SCR-REVIEW-1', 'a review_decided delivery arrived before any human decision', deliveryEvidence(early));
        await control.decide(requestId, { decision, ...REVIEWER, note: `conformance ${decision}`, ...(decision === 'edited' ? { editedScore: 61, editedRationale: 'Adjusted by the conformance reviewer.' } : {}) });
        const { d } = await deliveryOf(ctx, t, 'screening.review_decided', requestId, ctx.config.waits.webhookMs);
        if (!d) throw violation('SCR-HOOK-2', `no screening.review_decided delivery for ${requestId} within ${ctx.config.waits.webhookMs / 1000} s of the decision (waits.webhookMs)`);
        checkDecided(ctx, d, t);
        if (d.json.result?.decision !== decision) throw violation('SCR-REVIEW-2', `the reviewer ${decision} the result but the delivery says '${d.json.result?.decision}'`, deliveryEvidence(d));
        if (d.json.result?.reviewerId !== REVIEWER.reviewerId) throw violation('SCR-HOOK-5', `the delivery names reviewer '${d.json.result?.reviewerId}', not '${REVIEWER.reviewerId}'`, deliveryEvidence(d));
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
  if (!d) throw violation('SCR-HOOK-2', `no screening.review_decided delivery for ${requestId} within ${waitMs / 1000} s (waits.pipelineMs + reviewMs + webhookMs); a deployment whose reviewers take longer sets longer waits in the profile`, exchange);
  const { rows, pages } = await walkAudit(ctx, t.apiKey, { limit: 500, since: sinceOf(exchange) });
  const mine = rows.filter((r) => r.requestId === requestId);
  const decision = mine.find((r) => ['approved', 'rejected', 'edited'].includes(r.toState));
  if (!decision) throw violation('SCR-REVIEW-1', `a review_decided delivery for ${requestId} arrived while the ledger held no review decision row (rows: ${mine.map((r) => r.toState).join(' → ') || 'none'})`, deliveryEvidence(d), pages[pages.length - 1]);
  if (!/^reviewer:.+/.test(decision.actor)) throw violation('SCR-REVIEW-1', `the decision row before the review_decided delivery has actor '${decision.actor}', not a human reviewer:<id>`, pages[pages.length - 1]);
  checkDecided(ctx, d, t);
}

export const webhookChecks = [scored, reviewDecided];
