// Webhook deliveries to a real receiver: exact body, valid signature, retries on the sandbox clock,
// exhaustion, a URL fixed between retries, redelivery, and chaos-injected failures.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '../src/domain/webhooks/signer.js';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import {
  SCREENING,
  adminOf,
  clockAdvance,
  deliveriesOf,
  settled,
  startReceiver,
  submitBody,
  waitFor,
} from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;
const SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});

async function submit(apiKey: string): Promise<string> {
  const res = await client(base(), apiKey)('POST', `${SCREENING}/screen`, submitBody());
  expect(res.status).toBe(201);
  return res.json.requestId;
}

async function deliveryWithAttempts(requestId: string, event: string, n: number): Promise<any> {
  return waitFor(async () => {
    const d = (await deliveriesOf(base(), requestId)).find((x) => x.event === event);
    return d && d.attempts.length >= n && !['pending'].includes(d.status) ? d : undefined;
  }, `${event} attempt ${n} of ${requestId}`);
}

const receivedFor = (requestId: string) => rx.received.filter((r) => JSON.parse(r.body).requestId === requestId);

describe('webhook deliveries', () => {
  it('retries a failing receiver on the sandbox clock and delivers a signed, contract-shaped body', async () => {
    const t = await createTenant(base(), {
      planTier: 'pro',
      webhookUrl: rx.url,
      webhookSecret: 'whsec_retry_test_secret',
    });
    rx.queue(500, 503, 500);
    const requestId = await submit(t.apiKey);
    let d = await deliveryWithAttempts(requestId, 'screening.scored', 1);
    expect(d.status).toBe('retrying');
    expect(Date.parse(d.nextAttemptAt) - Date.parse(d.attempts[0].at)).toBeGreaterThanOrEqual(5000);
    await clockAdvance(base(), 5);
    d = await deliveryWithAttempts(requestId, 'screening.scored', 2);
    expect(d.status).toBe('retrying');
    await clockAdvance(base(), 300);
    await deliveryWithAttempts(requestId, 'screening.scored', 3);
    await clockAdvance(base(), 1800);
    d = await deliveryWithAttempts(requestId, 'screening.scored', 4);
    expect(d.status).toBe('delivered');
    expect(d.nextAttemptAt).toBeNull();
    expect(d.attempts.map((a: any) => a.statusCode)).toEqual([500, 503, 500, 200]);
    expect(d.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4]);
    expect(d.attempts[0].error).toMatch(/500/);
    expect(d.attempts[3].error).toBeNull();

    const got = receivedFor(requestId);
    expect(got).toHaveLength(4);
    for (const r of got) {
      expect(verify('whsec_retry_test_secret', r.body, r.headers['x-screening-signature'] as string)).toBe(true);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toMatch(/\S/);
      expect(r.headers['x-screening-delivery']).toBe(d.id);
    }
    const last = got.at(-1)!;
    expect(last.body).toBe(d.body);
    expect(last.headers['x-screening-signature']).toBe(d.signature);
    const payload = JSON.parse(last.body);
    expect(Object.keys(payload).sort()).toEqual(['deliveredAt', 'event', 'requestId', 'result', 'tenantId']);
    expect(payload).toMatchObject({ requestId, tenantId: t.tenantId, event: 'screening.scored' });
    expect(sb.get().core.contracts.validate('WebhookDelivery', payload)).toEqual([]);
    expect(sb.get().core.contracts.validate('ScoreResultV1', payload.result)).toEqual([]);
  });

  it('sends review_decided after the decision and enters delivered on the 2xx', async () => {
    const t = await createTenant(base(), {
      planTier: 'pro',
      webhookUrl: rx.url,
      webhookSecret: 'whsec_decided_secret',
    });
    const requestId = await submit(t.apiKey);
    await settled(base(), requestId);
    await deliveryWithAttempts(requestId, 'screening.scored', 1);
    expect(receivedFor(requestId).map((r) => JSON.parse(r.body).event)).toEqual(['screening.scored']);
    const res = await adminOf(base())('POST', `/sandbox/v1/reviews/${requestId}/decision`, {
      decision: 'rejected',
      reviewerId: 'rev_1',
      note: 'No Go',
    });
    expect(res.json.state).toBe('rejected');
    const d = await deliveryWithAttempts(requestId, 'screening.review_decided', 1);
    expect(d.status).toBe('delivered');
    const detail = await waitFor(async () => {
      const x = (await adminOf(base())('GET', `/sandbox/v1/reviews/${requestId}`)).json;
      return x.state === 'delivered' ? x : undefined;
    }, 'delivered');
    expect(detail.ledger.at(-1)).toMatchObject({
      fromState: 'rejected',
      toState: 'delivered',
      actor: 'system',
      payload: { deliveryId: d.id, statusCode: 200 },
    });
    const body = JSON.parse(receivedFor(requestId).at(-1)!.body);
    expect(body).toMatchObject({
      event: 'screening.review_decided',
      result: { schemaVersion: 1, decision: 'rejected', reviewerId: 'rev_1', note: 'No Go' },
    });
    expect(sb.get().core.contracts.validate('ReviewDecidedDelivery', body)).toEqual([]);
  });

  it('marks the delivery exhausted after the last retry and the request failed', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const requestId = await submit(t.apiKey);
    await settled(base(), requestId);
    await adminOf(base())('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { webhookUrl: rx.url });
    rx.queue(...Array(8).fill(500));
    await adminOf(base())('POST', `/sandbox/v1/reviews/${requestId}/decision`, {
      decision: 'approved',
      reviewerId: 'rev_2',
    });
    let d = await deliveryWithAttempts(requestId, 'screening.review_decided', 1);
    for (let i = 0; i < SCHEDULE.length; i++) {
      expect(d.status).toBe('retrying');
      await clockAdvance(base(), SCHEDULE[i]);
      d = await deliveryWithAttempts(requestId, 'screening.review_decided', i + 2);
    }
    expect(d.status).toBe('exhausted');
    expect(d.attempts).toHaveLength(8);
    expect(d.nextAttemptAt).toBeNull();
    const detail = await waitFor(async () => {
      const x = (await adminOf(base())('GET', `/sandbox/v1/reviews/${requestId}`)).json;
      return x.state === 'failed' ? x : undefined;
    }, 'failed');
    expect(detail.ledger.at(-1)).toMatchObject({ fromState: 'approved', toState: 'failed', actor: 'system' });
    expect(detail.ledger.filter((e: any) => e.toState === 'delivered')).toHaveLength(0);

    // a later manual redelivery is recorded but does not revive the request
    const re = await adminOf(base())('POST', `/sandbox/v1/webhooks/deliveries/${d.id}/redeliver`);
    expect(re.status).toBe(202);
    const after = await deliveryWithAttempts(requestId, 'screening.review_decided', 9);
    expect(after.status).toBe('delivered');
    expect((await adminOf(base())('GET', `/sandbox/v1/reviews/${requestId}`)).json.state).toBe('failed');
  });

  it('reads the URL at send time, so a PATCH fixes a broken URL before the next retry', async () => {
    const t = await createTenant(base(), { planTier: 'pro', webhookUrl: 'http://127.0.0.1:9/unreachable' });
    const requestId = await submit(t.apiKey);
    const d1 = await deliveryWithAttempts(requestId, 'screening.scored', 1);
    expect(d1.attempts[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/network error/) });
    await adminOf(base())('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, {
      webhookUrl: rx.url,
      webhookSecret: 'whsec_rotated_secret',
    });
    await clockAdvance(base(), 5);
    const d2 = await deliveryWithAttempts(requestId, 'screening.scored', 2);
    expect(d2.status).toBe('delivered');
    expect(d2.url).toBe(rx.url);
    const got = receivedFor(requestId);
    expect(verify('whsec_rotated_secret', got[0].body, got[0].headers['x-screening-signature'] as string)).toBe(true);
  });

  it('counts a redirect as a failure and redelivers on demand', async () => {
    const t = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url });
    rx.queue(302);
    const requestId = await submit(t.apiKey);
    const d = await deliveryWithAttempts(requestId, 'screening.scored', 1);
    expect(d.attempts[0].statusCode).toBe(302);
    expect(d.status).toBe('retrying');
    const re = await adminOf(base())('POST', `/sandbox/v1/webhooks/deliveries/${d.id}/redeliver`);
    expect(re.status).toBe(202);
    expect(re.json.delivery.id).toBe(d.id);
    const after = await deliveryWithAttempts(requestId, 'screening.scored', 2);
    expect(after).toMatchObject({ status: 'delivered', nextAttemptAt: null });
    expect((await adminOf(base())('POST', '/sandbox/v1/webhooks/deliveries/whd_nope/redeliver')).status).toBe(404);
  });

  it('applies chaos webhook failures without calling the receiver', async () => {
    const t = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url });
    const admin = adminOf(base());
    expect((await admin('POST', '/sandbox/v1/faults', { mode: 'webhook_failure', status: 503, count: 1 })).status).toBe(
      201,
    );
    const requestId = await submit(t.apiKey);
    const d = await deliveryWithAttempts(requestId, 'screening.scored', 1);
    expect(d.attempts[0]).toMatchObject({ statusCode: 503, error: expect.stringMatching(/chaos/) });
    expect(receivedFor(requestId)).toHaveLength(0);
    await clockAdvance(base(), 5);
    expect((await deliveryWithAttempts(requestId, 'screening.scored', 2)).status).toBe('delivered');
    expect(receivedFor(requestId)).toHaveLength(1);
  });

  it('lists deliveries by tenant and by request', async () => {
    const t = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url });
    const a = await submit(t.apiKey);
    const b = await submit(t.apiKey);
    await deliveryWithAttempts(a, 'screening.scored', 1);
    await deliveryWithAttempts(b, 'screening.scored', 1);
    const admin = adminOf(base());
    const byTenant = (await admin('GET', `/sandbox/v1/webhooks/deliveries?tenantId=${t.tenantId}`)).json.deliveries;
    expect(byTenant.map((d: any) => d.requestId).sort()).toEqual([a, b].sort());
    const byRequest = (await admin('GET', `/sandbox/v1/webhooks/deliveries?requestId=${a}&tenantId=${t.tenantId}`)).json
      .deliveries;
    expect(byRequest.map((d: any) => d.requestId)).toEqual([a]);
    expect((await admin('GET', '/sandbox/v1/webhooks/deliveries?status=x')).status).toBe(400);
  });
});
