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
import { poll } from './support.js';

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
function checkSignature(d: Delivery, t: TenantHandle, others: TenantHandle[]): void {
  const header = d.headers['x-screening-signature'];
  const ev = deliveryEvidence(d);
  if (typeof header !== 'string') throw violation('SCR-HOOK-6', 'the delivery has no X-Screening-Signature header', ev);
  if (!/^sha256=[0-9a-fA-F]+$/.test(header)) throw violation('SCR-HOOK-6', `X-Screening-Signature '${header}' is not of the form sha256=<hex>`, ev);
  if (!verifySignature(t.webhookSecret ?? '', d.rawBody, header)) {
    throw violation('SCR-HOOK-7', "X-Screening-Signature does not verify as the HMAC-SHA256 of the raw body under the tenant's webhookSecret", ev);
  }
  if (verifySignature(t.webhookSecret ?? '', tamper(d.rawBody), header)) {
    throw new Error('webhook-verify accepted a tampered body: the verification function is broken');
  }
  for (const o of others) {
    if (o.webhookSecret && verifySignature(o.webhookSecret, d.rawBody, header)) throw violation('SCR-HOOK-7', "the delivery's signature verifies with another tenant's secret", ev);
  }
}

const isEvent = (event: string, requestId: string) => (d: Delivery) => d.json?.event === event && d.json?.requestId === requestId;

const scored: Check = {
  id: 'screening.webhooks.scored',
  title: "A screening.scored delivery reaches the tenant's webhook, matches ScoredDelivery, names its tenant and request, and carries a valid signature",
  requirements: ['SCR-HOOK-1', 'SCR-HOOK-3', 'SCR-HOOK-4', 'SCR-HOOK-6', 'SCR-HOOK-7', 'SCR-HOOK-8', 'SCR-VER-3', 'POL-REVIEW-2'],
  appliesTo: { surface: 'screening', needs: ['webhooks'] },
  async run(ctx) {
    const a = await roomyTenant(ctx, 'pro', { webhook: true });
    const b = await roomyTenant(ctx, 'starter', { webhook: true });
    const receiver = ctx.receiver!;
    const { requestId, exchange } = await submitOne(ctx, a);
    const ds = await receiver.waitFor(a.hook!, (all) => all.some(isEvent('screening.scored', requestId)), 10_000);
    const d = ds.find(isEvent('screening.scored', requestId));
    if (!d) {
      const other = ds[0];
      throw violation('SCR-HOOK-1', `no screening.scored delivery for ${requestId} reached the tenant's webhook within 10 s${other ? ` (got ${ds.length} other deliveries)` : ''}`, exchange, ...(other ? [deliveryEvidence(other)] : []));
    }
    checkBody(ctx, d, 'ScoredDelivery');
    if (d.json.tenantId !== a.tenantId) throw violation('SCR-HOOK-8', `the delivery names tenant ${d.json.tenantId}, not the owner ${a.tenantId}`, deliveryEvidence(d));
    if (d.json.result?.schemaVersion !== 1) throw violation('SCR-VER-3', `result.schemaVersion is ${JSON.stringify(d.json.result?.schemaVersion)}, not 1`, deliveryEvidence(d));
    checkSignature(d, a, [b]);
    const leaked = receiver.deliveries(b.hook!).find((x) => x.json?.requestId === requestId || x.rawBody.includes(requestId));
    if (leaked) throw violation('SCR-HOOK-8', `a delivery about ${requestId} went to another tenant's webhookUrl`, deliveryEvidence(leaked));
  },
};

const reviewDecided: Check = {
  id: 'screening.webhooks.review-decided',
  title: 'No review_decided delivery before a human decides; after the decision one arrives, matches ReviewDecidedDelivery and is signed',
  requirements: ['SCR-HOOK-2', 'SCR-HOOK-5', 'SCR-HOOK-6', 'SCR-HOOK-7', 'SCR-REVIEW-1', 'SCR-REVIEW-2', 'SCR-VER-3', 'POL-REVIEW-1'],
  appliesTo: { surface: 'screening', needs: ['webhooks', 'reviewDecisions'] },
  async run(ctx) {
    const receiver = ctx.receiver!;
    const control = ctx.control!;
    for (const decision of ['approved', 'rejected', 'edited'] as const) {
      await ctx.failures.step(async () => {
        const t = await roomyTenant(ctx, 'pro', { webhook: true });
        const { requestId } = await submitOne(ctx, t);
        const queued = await poll(async () => (await control.reviews(t.tenantId!)).find((r) => r.requestId === requestId), 8000);
        if (!queued) throw violation('SCR-REVIEW-1', `${requestId} never appeared in the pending review queue`);
        const early = receiver.deliveries(t.hook!).find(isEvent('screening.review_decided', requestId));
        if (early) throw violation('SCR-REVIEW-1', 'a review_decided delivery arrived before any human decision', deliveryEvidence(early));
        await control.decide(requestId, { decision, ...REVIEWER, note: `conformance ${decision}`, ...(decision === 'edited' ? { editedScore: 61, editedRationale: 'Adjusted by the conformance reviewer.' } : {}) });
        const ds = await receiver.waitFor(t.hook!, (all) => all.some(isEvent('screening.review_decided', requestId)), 10_000);
        const d = ds.find(isEvent('screening.review_decided', requestId));
        if (!d) throw violation('SCR-HOOK-2', `no screening.review_decided delivery for ${requestId} within 10 s of the decision`);
        checkBody(ctx, d, 'ReviewDecidedDelivery');
        if (d.json.result?.schemaVersion !== 1) throw violation('SCR-VER-3', `result.schemaVersion is ${JSON.stringify(d.json.result?.schemaVersion)}, not 1`, deliveryEvidence(d));
        if (d.json.result?.decision !== decision) throw violation('SCR-REVIEW-2', `the reviewer ${decision} the result but the delivery says '${d.json.result?.decision}'`, deliveryEvidence(d));
        if (d.json.result?.reviewerId !== REVIEWER.reviewerId) throw violation('SCR-HOOK-5', `the delivery names reviewer '${d.json.result?.reviewerId}', not '${REVIEWER.reviewerId}'`, deliveryEvidence(d));
        checkSignature(d, t, []);
      });
    }
  },
};

export const webhookChecks = [scored, reviewDecided];
