// What an integrator needs to debug a webhook endpoint, over the control API: every attempt's
// headers, body, signature and the receiver's answer; a test event signed like a real one and marked
// as a test; secret rotation with a signature per secret during the overlap and one after; a success
// rate per endpoint; and a redelivery that leaves the automatic retry schedule alone.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify, verifyAny } from '../src/domain/webhooks/signer.js';
import { verifySignature } from '../conformance/target/webhook-verify.js';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import {
  SCREENING,
  adminOf,
  clockAdvance,
  deliveriesOf,
  startReceiver,
  submitBody,
  waitFor,
} from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;

let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});

const delivery = (id: string) => adminOf(base())('GET', `/sandbox/v1/webhooks/deliveries/${id}`).then((r) => r.json);

describe('webhook debugging', () => {
  it('sends a signed test event marked as a test, and records what was sent and answered', async () => {
    const secret = 'whsec_test_event_secret';
    const t = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url, webhookSecret: secret });
    const admin = adminOf(base());
    const sent = await admin('POST', '/sandbox/v1/webhooks/test', { tenantId: t.tenantId });
    expect(sent.status).toBe(202);
    const d = await waitFor(async () => {
      const x = await delivery(sent.json.delivery.id);
      return x.attempts.length > 0 ? x : undefined;
    }, 'the test delivery');
    expect(d).toMatchObject({ test: true, event: 'screening.scored', status: 'delivered' });
    const got = rx.received.find((r) => r.headers['x-screening-delivery'] === d.id)!;
    expect(got.headers['x-screening-test']).toBe('true');
    expect(verifySignature(secret, got.body, got.headers['x-screening-signature'] as string)).toBe(true);
    expect(JSON.parse(got.body)).toMatchObject({
      tenantId: t.tenantId,
      event: 'screening.scored',
      result: { schemaVersion: 1 },
    });
    const a = d.attempts[0];
    expect(a.body).toBe(got.body);
    expect(a.requestHeaders['X-Screening-Signature']).toBe(got.headers['x-screening-signature']);
    expect(a).toMatchObject({
      statusCode: 200,
      responseBody: 'ok',
      responseTruncated: false,
      manual: false,
      url: rx.url,
    });
    // the tenant's endpoint: one attempt, all succeeded
    const eps = await admin('GET', `/sandbox/v1/webhooks/endpoints?tenantId=${t.tenantId}`);
    expect(eps.json.endpoints).toEqual([
      expect.objectContaining({ url: rx.url, attempts: 1, succeeded: 1, successRate: 1 }),
    ]);
    // a tenant without a webhook URL gets a 400 naming the problem
    const bare = await createTenant(base(), { planTier: 'pro' });
    const refused = await admin('POST', '/sandbox/v1/webhooks/test', { tenantId: bare.tenantId });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/webhookUrl/);
  });

  it('records an attempt whose receiver answers with 64 MiB, keeping only the first 4 KiB', async () => {
    let written = 0;
    const huge = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'y');
      const pump = () => {
        while (written < 64 * 1024 * 1024 && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
    });
    await new Promise<void>((r) => huge.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(huge.address() as AddressInfo).port}/hooks`;
      const t = await createTenant(base(), {
        planTier: 'pro',
        webhookUrl: url,
        webhookSecret: 'whsec_huge_answer_secret',
      });
      const sent = await adminOf(base())('POST', '/sandbox/v1/webhooks/test', { tenantId: t.tenantId });
      const d = await waitFor(
        async () => {
          const x = await delivery(sent.json.delivery.id);
          return x.attempts.length > 0 ? x : undefined;
        },
        'the attempt against a huge answer',
        15_000,
      );
      expect(d.status).toBe('delivered');
      expect(d.attempts[0]).toMatchObject({ statusCode: 200, responseTruncated: true });
      expect(d.attempts[0].responseBody).toBe('y'.repeat(4096));
      // the sender hung up: the receiver got nowhere near writing its 64 MiB
      expect(written).toBeLessThan(16 * 1024 * 1024);
    } finally {
      huge.closeAllConnections();
      await new Promise<void>((r) => huge.close(() => r()));
    }
  });

  it('signs with both secrets during a rotation window and with the new one alone after it', async () => {
    const old = 'whsec_before_rotation';
    const t = await createTenant(base(), { planTier: 'pro', webhookUrl: rx.url, webhookSecret: old });
    const admin = adminOf(base());
    const rotated = await admin('POST', `/sandbox/v1/tenants/${t.tenantId}/webhook-secret/rotate`, {
      overlapSeconds: 3600,
    });
    expect(rotated.status).toBe(200);
    const fresh: string = rotated.json.webhookSecret;
    expect(fresh).not.toBe(old);
    expect(rotated.json.previousWebhookSecret).toBe(old);

    const during = await admin('POST', '/sandbox/v1/webhooks/test', { tenantId: t.tenantId });
    const r1 = await waitFor(
      () => rx.received.find((r) => r.headers['x-screening-delivery'] === during.json.delivery.id),
      'delivery during rotation',
    );
    const sig = r1.headers['x-screening-signature'] as string;
    const prev = r1.headers['x-screening-signature-previous'] as string;
    // the documented header stays one `sha256=<hex>`, under the new secret: a non-rotating verifier is unchanged
    expect(verifySignature(fresh, r1.body, sig)).toBe(true);
    expect(verifySignature(old, r1.body, sig)).toBe(false);
    expect(verify(old, r1.body, prev)).toBe(true);
    // a receiver still holding either secret accepts the delivery
    expect(verifyAny(old, r1.body, [sig, prev])).toBe(true);
    expect(verifyAny(fresh, r1.body, [sig, prev])).toBe(true);
    expect(verifyAny('whsec_someone_else', r1.body, [sig, prev])).toBe(false);

    await clockAdvance(base(), 3601);
    const after = await admin('POST', '/sandbox/v1/webhooks/test', { tenantId: t.tenantId });
    const r2 = await waitFor(
      () => rx.received.find((r) => r.headers['x-screening-delivery'] === after.json.delivery.id),
      'delivery after rotation',
    );
    expect(r2.headers['x-screening-signature-previous']).toBeUndefined();
    expect(verifySignature(fresh, r2.body, r2.headers['x-screening-signature'] as string)).toBe(true);
    expect((await admin('GET', `/sandbox/v1/tenants/${t.tenantId}`)).json.previousSecretExpiresAt).toBeNull();
  });

  it('keeps the automatic schedule when a person redelivers, and counts the success rate per endpoint', async () => {
    const t = await createTenant(base(), {
      planTier: 'pro',
      webhookUrl: `${rx.url}/flaky`,
      webhookSecret: 'whsec_schedule_secret',
    });
    rx.queue(500, 500);
    const res = await client(base(), t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    const requestId = res.json.requestId;
    const first = await waitFor(
      async () =>
        (await deliveriesOf(base(), requestId)).find((d) => d.attempts.length === 1 && d.status === 'retrying'),
      'first failure',
    );
    const scheduled = first.nextAttemptAt;
    const redo = await adminOf(base())('POST', `/sandbox/v1/webhooks/deliveries/${first.id}/redeliver`);
    expect(redo.status).toBe(202);
    const d = await waitFor(async () => {
      const x = await delivery(first.id);
      return x.attempts.length === 2 ? x : undefined;
    }, 'the redelivery');
    // the failed redelivery is recorded as one, and the automatic retry keeps its time
    expect(d.attempts[1]).toMatchObject({ manual: true, statusCode: 500, responseBody: 'nope' });
    expect(d.status).toBe('retrying');
    expect(d.nextAttemptAt).toBe(scheduled);
    // the retry then fires on its schedule (5 s), and succeeds
    await clockAdvance(base(), 5);
    const done = await waitFor(async () => {
      const x = await delivery(first.id);
      return x.status === 'delivered' ? x : undefined;
    }, 'the scheduled retry');
    expect(done.attempts.map((a: any) => a.manual)).toEqual([false, true, false]);
    const eps = await adminOf(base())('GET', `/sandbox/v1/webhooks/endpoints?tenantId=${t.tenantId}`);
    expect(eps.json.endpoints[0]).toMatchObject({ attempts: 3, succeeded: 1 });
    expect(eps.json.endpoints[0].successRate).toBeCloseTo(1 / 3);
    // filters: the status filter finds it among delivered, not among retrying
    const delivered = await adminOf(base())(
      'GET',
      `/sandbox/v1/webhooks/deliveries?tenantId=${t.tenantId}&status=delivered`,
    );
    expect(delivered.json.deliveries.map((x: any) => x.id)).toContain(first.id);
    const retrying = await adminOf(base())(
      'GET',
      `/sandbox/v1/webhooks/deliveries?tenantId=${t.tenantId}&status=retrying`,
    );
    expect(retrying.json.deliveries.map((x: any) => x.id)).not.toContain(first.id);
  });
});
