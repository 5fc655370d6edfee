// Webhooks forwarded to a developer's machine (D-119): the real `listen` command (a child process)
// connected to a sandbox whose tenant has no webhookUrl, forwarding to a receiver on 127.0.0.1. Every
// attempt reaches the receiver with the exact bytes and a signature that verifies; a local 500 is the
// attempt's answer and is retried on the sandbox clock; a dropped stream or a killed listener loses no
// attempt; a bad key exits non-zero; another tenant's key never sees this tenant's attempts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '../src/domain/webhooks/signer.js';
import { browser } from './support/console.js';
import { killListenersAfterEach, listen, runListen, startProxy, startReceiver } from './support/listen.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, adminOf, clockAdvance, deliveriesOf, settled, submitBody, waitFor } from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;
killListenersAfterEach();

async function submit(apiKey: string): Promise<string> {
  const res = await client(base(), apiKey)('POST', `${SCREENING}/screen`, submitBody());
  expect(res.status).toBe(201);
  return res.json.requestId;
}

async function delivery(id: string): Promise<any> {
  return (await adminOf(base())('GET', `/sandbox/v1/webhooks/deliveries/${id}`)).json;
}

async function testEvent(tenantId: string): Promise<string> {
  const res = await adminOf(base())('POST', '/sandbox/v1/webhooks/test', { tenantId });
  expect(res.status, res.text).toBe(202);
  return res.json.delivery.id;
}

/** Waits until the delivery is delivered, firing due retries on the sandbox clock when it is waiting for one. */
async function deliveredAdvancing(id: string): Promise<any> {
  return waitFor(
    async () => {
      const d = await delivery(id);
      if (d.status === 'delivered') return d;
      if (d.status === 'retrying' && d.nextAttemptAt)
        await clockAdvance(base(), Math.ceil((Date.parse(d.nextAttemptAt) - Date.parse(d.attempts.at(-1).at)) / 1000));
      return undefined;
    },
    `delivery ${id} to be delivered`,
    20_000,
  );
}

let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});

describe('npm run listen: webhooks forwarded to a developer machine', () => {
  it('forwards every delivery (scored, review_decided, a test event) with the exact bytes and a signature that verifies', async () => {
    const secret = 'whsec_listen_exact_bytes';
    const t = await createTenant(base(), { planTier: 'pro', webhookSecret: secret });
    const l = await listen(base(), t.apiKey, rx.url);
    const requestId = await submit(t.apiKey);
    await settled(base(), requestId);
    const decided = await adminOf(base())('POST', `/sandbox/v1/reviews/${requestId}/decision`, {
      decision: 'approved',
      reviewerId: 'rev_listen',
    });
    expect(decided.status, decided.text).toBe(200);
    const testId = await testEvent(t.tenantId);
    const mine = () => rx.got.filter((g) => g.json.tenantId === t.tenantId);
    await waitFor(() => mine().length >= 3, 'three deliveries at the local receiver', 10_000).catch(async (e) => {
      throw new Error(
        `${e.message}: ${JSON.stringify(mine().map((g) => g.json.event))} ${JSON.stringify(await deliveriesOf(base(), requestId))} ${l.out.join('|')} ${l.err.join('|')}`,
      );
    });
    expect(
      mine()
        .map((g) => g.json.event)
        .sort(),
    ).toEqual(['screening.review_decided', 'screening.scored', 'screening.scored']);
    const ids = [...(await deliveriesOf(base(), requestId)).map((d) => d.id), testId];
    expect(ids).toHaveLength(3);
    const deliveries: any[] = [];
    for (const id of ids)
      deliveries.push(
        await waitFor(
          async () => ((await delivery(id)).status === 'delivered' ? delivery(id) : undefined),
          `delivery ${id} delivered`,
        ),
      );
    for (const d of deliveries) {
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ url: 'listener:', statusCode: 200, responseBody: 'thanks', error: null });
    }
    for (const g of mine()) {
      expect(verify(secret, g.bytes, g.headers['x-screening-signature'] as string)).toBe(true);
      const d = deliveries.find((x) => x.id === g.headers['x-screening-delivery'])!;
      // the exact body and headers the sandbox records as sent
      expect(g.bytes.toString('utf8')).toBe(d.attempts[0].body);
      for (const [name, value] of Object.entries<string>(d.attempts[0].requestHeaders))
        expect(g.headers[name.toLowerCase()]).toBe(value);
    }
    expect(mine().find((g) => g.headers['x-screening-delivery'] === testId)!.headers['x-screening-test']).toBe('true');
    // the request reached delivered on the listener's 2xx to review_decided
    expect((await adminOf(base())('GET', `/sandbox/v1/reviews/${requestId}`)).json.state).toBe('delivered');
    // one line per delivery: event, request id, local status, duration
    await waitFor(
      () => l.out.filter((line) => line.includes(requestId)).length >= 2,
      'two printed lines for the request',
    );
    expect(l.out.find((line) => line.includes('screening.review_decided'))).toMatch(
      new RegExp(`screening\\.review_decided\\s+${requestId}\\s+-> 200\\s+\\d+ms`),
    );
  });

  it('records a local 500 as the attempt answer and forwards the scheduled retry', async () => {
    const t = await createTenant(base(), { planTier: 'pro', webhookSecret: 'whsec_listen_retry' });
    await listen(base(), t.apiKey, rx.url);
    rx.queue(500);
    const id = await testEvent(t.tenantId);
    const failed = await waitFor(async () => {
      const d = await delivery(id);
      return d.attempts.length === 1 ? d : undefined;
    }, 'the first attempt answered');
    expect(failed.status).toBe('retrying');
    expect(failed.attempts[0]).toMatchObject({ url: 'listener:', statusCode: 500, responseBody: 'local failure' });
    const d = await deliveredAdvancing(id);
    expect(d.attempts.map((a: any) => a.statusCode)).toEqual([500, 200]);
    const copies = rx.got.filter((g) => g.headers['x-screening-delivery'] === id);
    expect(copies).toHaveLength(2);
    for (const c of copies)
      expect(verify('whsec_listen_retry', c.bytes, c.headers['x-screening-signature'] as string)).toBe(true);
  });

  it('gives every attempt to each listener of the tenant; the first 2xx counts', async () => {
    const t = await createTenant(base(), { planTier: 'pro', webhookSecret: 'whsec_listen_two' });
    const failing = await startReceiver();
    try {
      await listen(base(), t.apiKey, failing.url);
      await listen(base(), t.apiKey, rx.url);
      // the tenant's console page shows both
      const console_ = browser(base());
      await console_.login();
      const page = await console_.request('GET', `/console/tenants/${t.tenantId}`);
      expect(page.text).toMatch(/2 listeners connected/);
      expect([...page.text.matchAll(/<code>(lsn_[0-9a-f]+)<\/code>/g)]).toHaveLength(2);
      // the failing endpoint answers first (the other holds its answer); the 2xx that follows still counts
      failing.queue(500);
      const release = rx.hold();
      const id = await testEvent(t.tenantId);
      await waitFor(
        () =>
          failing.got.some((g) => g.headers['x-screening-delivery'] === id) &&
          rx.got.some((g) => g.headers['x-screening-delivery'] === id),
        'the attempt at both endpoints',
      );
      await new Promise((r) => setTimeout(r, 200));
      expect((await delivery(id)).attempts).toHaveLength(0);
      release();
      const d = await waitFor(
        async () => ((await delivery(id)).status === 'delivered' ? delivery(id) : undefined),
        'delivered',
      );
      expect(d.attempts.map((a: any) => a.statusCode)).toEqual([200]);
    } finally {
      await failing.close();
    }
  });

  it('loses no attempt when the network drops the stream', async () => {
    // the tenant's own webhookUrl is unreachable: only the listener can take an attempt
    const t = await createTenant(base(), {
      planTier: 'pro',
      webhookSecret: 'whsec_listen_drop',
      webhookUrl: 'http://127.0.0.1:9/unreachable',
    });
    const proxy = await startProxy(base());
    const listeners = async () =>
      (await adminOf(base())('GET', `/sandbox/v1/webhooks/listen/listeners?tenantId=${t.tenantId}`)).json.listeners
        .length;
    try {
      const l = await listen(proxy.url, t.apiKey, rx.url);
      // 1. the stream drops while an attempt awaits the local answer: the reconnected stream gets it again
      const release = rx.hold();
      const inFlight = await testEvent(t.tenantId);
      await waitFor(
        () => rx.got.some((g) => g.headers['x-screening-delivery'] === inFlight),
        'the held attempt at the receiver',
      );
      proxy.drop();
      release();
      const answered = await waitFor(
        async () => ((await delivery(inFlight)).status === 'delivered' ? delivery(inFlight) : undefined),
        'the in-flight attempt answered',
        10_000,
      );
      expect(answered.attempts.map((a: any) => [a.url, a.statusCode])).toEqual([['listener:', 200]]);
      // 2. the network is down when the attempt is made: it fails at the tenant's URL, and its retry reaches the listener
      proxy.down();
      await waitFor(async () => (await listeners()) === 0, 'the sandbox to see the listener gone');
      const whileDown = await testEvent(t.tenantId);
      const failed = await waitFor(
        async () => ((await delivery(whileDown)).attempts.length === 1 ? delivery(whileDown) : undefined),
        'the attempt while down',
      );
      expect(failed.status).toBe('retrying');
      expect(failed.attempts[0].url).toBe('http://127.0.0.1:9/unreachable');
      proxy.resume();
      await waitFor(async () => (await listeners()) === 1, 'the listener to reconnect', 15_000);
      const d = await deliveredAdvancing(whileDown);
      expect(d.attempts.map((a: any) => a.url)).toEqual(['http://127.0.0.1:9/unreachable', 'listener:']);
      const got = rx.got.find((g) => g.headers['x-screening-delivery'] === whileDown)!;
      expect(verify('whsec_listen_drop', got.bytes, got.headers['x-screening-signature'] as string)).toBe(true);
      expect(l.err.some((line) => /connection to .* lost .*reconnecting/.test(line))).toBe(true);
    } finally {
      await proxy.close();
    }
  });

  it('sends an attempt still awaiting its answer to the listener that connects next (a killed listener)', async () => {
    const t = await createTenant(base(), { planTier: 'pro', webhookSecret: 'whsec_listen_kill' });
    const first = await listen(base(), t.apiKey, rx.url);
    const release = rx.hold();
    const id = await testEvent(t.tenantId);
    await waitFor(
      () => rx.got.some((g) => g.headers['x-screening-delivery'] === id),
      'the held attempt at the receiver',
    );
    first.child.kill('SIGKILL');
    await first.exited;
    // the sandbox notices the stream is gone
    await waitFor(
      async () =>
        (await adminOf(base())('GET', `/sandbox/v1/webhooks/listen/listeners?tenantId=${t.tenantId}`)).json.listeners
          .length === 0,
      'the killed listener to be gone',
    );
    release();
    await listen(base(), t.apiKey, rx.url);
    const d = await waitFor(
      async () => {
        const x = await delivery(id);
        return x.status === 'delivered' ? x : undefined;
      },
      'the replayed attempt answered',
      10_000,
    );
    // answered within the same attempt: no retry was needed
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0].statusCode).toBe(200);
    expect(rx.got.filter((g) => g.headers['x-screening-delivery'] === id)).toHaveLength(2);
  });

  it("never gives a tenant's attempts to another tenant's key", async () => {
    const a = await createTenant(base(), { planTier: 'pro', webhookSecret: 'whsec_listen_a' });
    const b = await createTenant(base(), { planTier: 'pro', webhookSecret: 'whsec_listen_b' });
    const rxB = await startReceiver();
    try {
      await listen(base(), b.apiKey, rxB.url);
      // b's listener is connected, a has none: a's test event is refused (no webhookUrl, no listener of a)
      const refused = await adminOf(base())('POST', '/sandbox/v1/webhooks/test', { tenantId: a.tenantId });
      expect(refused.status).toBe(400);
      await listen(base(), a.apiKey, rx.url);
      const release = rx.hold();
      const id = await testEvent(a.tenantId);
      await waitFor(() => rx.got.some((g) => g.headers['x-screening-delivery'] === id), "a's attempt at a's receiver");
      // b's key can neither listen as a nor answer a's attempt
      const asB = client(base(), b.apiKey);
      expect((await asB('GET', `/sandbox/v1/webhooks/listen?tenantId=${a.tenantId}`)).status).toBe(404);
      const answer = await asB('POST', `/sandbox/v1/webhooks/listen/${id}.1/answer`, {
        statusCode: 500,
        durationMs: 1,
      });
      expect(answer.status).toBe(404);
      expect(
        (await asB('GET', '/sandbox/v1/webhooks/listen/listeners')).json.listeners.map((x: any) => x.tenantId),
      ).toEqual([b.tenantId]);
      // b's key reads b's own deliveries only (D-133): a's are absent
      const seen = await asB('GET', '/sandbox/v1/webhooks/deliveries');
      expect(seen.status).toBe(200);
      expect(seen.json.deliveries.filter((x: any) => x.tenantId !== b.tenantId)).toEqual([]);
      expect((await asB('GET', `/sandbox/v1/webhooks/deliveries/${id}`)).status).toBe(404);
      release();
      const d = await waitFor(
        async () => ((await delivery(id)).status === 'delivered' ? delivery(id) : undefined),
        "a's delivery delivered",
      );
      expect(d.attempts.map((x: any) => x.statusCode)).toEqual([200]);
      expect(rxB.got.filter((g) => g.json.tenantId !== b.tenantId)).toEqual([]);
    } finally {
      await rxB.close();
    }
  });

  it('exits non-zero with a clear message on a bad key, and refuses a key in the query string', async () => {
    const l = runListen(['--target', base(), '--key', 'rjk_live_thiskeydoesnotexist000', '--forward-to', rx.url]);
    expect(await l.exited).toBe(2);
    expect(l.err.join('\n')).toMatch(/refused the key \(401\): the API key is not valid/);
    const t = await createTenant(base(), { planTier: 'pro' });
    const inQuery = await client(base())('GET', `/sandbox/v1/webhooks/listen?api_key=${t.apiKey}`);
    expect(inQuery.status).toBe(401);
    const noScope = await createTenant(base(), { planTier: 'pro', scopes: ['jobs'] });
    const scoped = runListen(['--target', base(), '--key', noScope.apiKey, '--forward-to', rx.url]);
    expect(await scoped.exited).toBe(2);
    expect(scoped.err.join('\n')).toMatch(/\(403\).*'screening' scope/);
  });

  it('lets the admin token listen for a named tenant and requires the name', async () => {
    const admin = adminOf(base());
    expect((await admin('GET', '/sandbox/v1/webhooks/listen')).status).toBe(400);
    expect((await admin('GET', '/sandbox/v1/webhooks/listen?tenantId=ten_nosuchtenant')).status).toBe(404);
    const t = await createTenant(base(), { planTier: 'pro', webhookSecret: 'whsec_listen_admin' });
    const l = runListen(['--target', base(), '--key', ADMIN_TOKEN, '--tenant', t.tenantId, '--forward-to', rx.url]);
    await waitFor(() => l.out.some((line) => line.startsWith('Ready:')), 'the admin listener to connect', 20_000);
    const id = await testEvent(t.tenantId);
    const d = await waitFor(
      async () => ((await delivery(id)).status === 'delivered' ? delivery(id) : undefined),
      'delivered via the admin listener',
    );
    expect(d.attempts[0].url).toBe('listener:');
  });
});
