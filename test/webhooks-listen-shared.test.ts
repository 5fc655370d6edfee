// Webhook listeners on a shared sandbox (PostgreSQL, D-119, D-140): two instances on one database, the real
// `listen` command connected to instance B, the tenant's webhookUrl unreachable, every submit, decision,
// test event and clock move made through instance A. Every delivery reaches the local receiver with a
// signature that verifies and is recorded alike on both instances; a local 500 is retried and the retry
// comes to the listener; a listener killed while an attempt awaits its answer loses nothing when the command
// connects again (to the other instance); a listener whose lease lapses is dropped on every instance and
// the command reconnects; the listener of an instance killed with SIGKILL is dropped, its unanswered
// attempt times out alike everywhere and the retry reaches a listener elsewhere; an instance stops while
// listeners keep reconnecting to it (D-177); an instance started afterwards rebuilds the same deliveries
// from the log.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/main.js';
import { verify } from '../src/domain/webhooks/signer.js';
import { browser } from './support/console.js';
import { startInstance } from './support/instances.js';
import { killListenersAfterEach, listen, startReceiver } from './support/listen.js';
import { postgresUnavailable, sharedInstances, startTestDatabase, type TestDatabase } from './support/postgres.js';
import { ADMIN_TOKEN, client, createTenant } from './support/sandbox.js';
import { SCREENING, adminOf, deliveriesOf, settled, submitBody, waitFor } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const UNREACHABLE = 'http://127.0.0.1:9/unreachable';
const { failures, start } = sharedInstances('http://sandbox.test', { seedDemo: false, corpusSize: 50 });
killListenersAfterEach();

describe.skipIf(why !== null)('webhook listeners on two instances of one shared sandbox', () => {
  let db: TestDatabase;
  let a: RunningSandbox;
  let b: RunningSandbox;
  let rx: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    db = await startTestDatabase();
    [a, b] = await Promise.all([start(db.url), start(db.url)]);
    rx = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await rx?.close();
    await Promise.all([a?.close(), b?.close()]);
    await db?.stop();
    expect(failures).toEqual([]);
  });

  const delivery = async (sb: RunningSandbox, id: string): Promise<any> =>
    (await adminOf(sb.listenUrl)('GET', `/sandbox/v1/webhooks/deliveries/${id}`)).json;
  const delivered = (sb: RunningSandbox, id: string, timeoutMs = 10_000) =>
    waitFor(
      async () => {
        const d = await delivery(sb, id);
        return d.status === 'delivered' ? d : undefined;
      },
      `delivery ${id} delivered`,
      timeoutMs,
    );
  const testEvent = async (tenantId: string): Promise<string> => {
    const res = await adminOf(a.listenUrl)('POST', '/sandbox/v1/webhooks/test', { tenantId });
    expect(res.status, res.text).toBe(202);
    return res.json.delivery.id;
  };
  const listenersOn = async (sb: RunningSandbox, tenantId: string): Promise<string[]> =>
    (
      await adminOf(sb.listenUrl)('GET', `/sandbox/v1/webhooks/listen/listeners?tenantId=${tenantId}`)
    ).json.listeners.map((l: { listenerId: string }) => l.listenerId);
  const copiesOf = (id: string) => rx.got.filter((g) => g.headers['x-screening-delivery'] === id);

  it('forwards every delivery made through instance A to the listener on instance B, signed and recorded alike', async () => {
    const secret = 'whsec_shared_listen';
    const t = await createTenant(a.listenUrl, { planTier: 'pro', webhookSecret: secret, webhookUrl: UNREACHABLE });
    const l = await listen(b.listenUrl, t.apiKey, rx.url);
    // connected on B, known on A at once
    expect(await listenersOn(a, t.tenantId)).toHaveLength(1);
    expect(await listenersOn(a, t.tenantId)).toEqual(await listenersOn(b, t.tenantId));
    const consolePage = browser(a.listenUrl);
    await consolePage.login();
    expect((await consolePage.request('GET', `/console/tenants/${t.tenantId}`)).text).toMatch(/1 listener connected/);

    const made = await client(a.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    expect(made.status, made.text).toBe(201);
    const requestId: string = made.json.requestId;
    await settled(a.listenUrl, requestId);
    const decided = await adminOf(a.listenUrl)('POST', `/sandbox/v1/reviews/${requestId}/decision`, {
      decision: 'approved',
      reviewerId: 'rev_shared_listen',
    });
    expect(decided.status, decided.text).toBe(200);
    const testId = await testEvent(t.tenantId);
    const ids = [...(await deliveriesOf(a.listenUrl, requestId)).map((d) => d.id as string), testId];
    expect(ids).toHaveLength(3);
    for (const id of ids) {
      const onA = await delivered(a, id);
      expect(onA.attempts).toHaveLength(1);
      expect(onA.attempts[0]).toMatchObject({ url: 'listener:', statusCode: 200, responseBody: 'thanks', error: null });
      // the same record on the instance holding the stream
      expect(await delivery(b, id)).toEqual(onA);
      const [copy, ...more] = copiesOf(id);
      expect(more).toEqual([]);
      expect(verify(secret, copy.bytes, copy.headers['x-screening-signature'] as string)).toBe(true);
      expect(copy.bytes.toString('utf8')).toBe(onA.attempts[0].body);
    }
    expect((await adminOf(b.listenUrl)('GET', `/sandbox/v1/reviews/${requestId}`)).json.state).toBe('delivered');
    await waitFor(() => l.out.filter((line) => line.includes(requestId)).length >= 2, 'a line per delivery');
  }, 30_000);

  it('records a local 500 as the answer and forwards the scheduled retry, made on instance A', async () => {
    const t = await createTenant(a.listenUrl, { planTier: 'pro', webhookSecret: 'whsec_shared_500' });
    await listen(b.listenUrl, t.apiKey, rx.url);
    rx.queue(500);
    const id = await testEvent(t.tenantId);
    const failed = await waitFor(async () => {
      const d = await delivery(a, id);
      return d.attempts.length === 1 ? d : undefined;
    }, 'the first attempt answered');
    expect(failed.status).toBe('retrying');
    expect(failed.attempts[0]).toMatchObject({ url: 'listener:', statusCode: 500, responseBody: 'local failure' });
    // the tenant's clock moves through A: the retry fires there and goes to the listener on B
    const moved = await client(a.listenUrl, t.apiKey)('POST', `/sandbox/v1/tenants/${t.tenantId}/clock/advance`, {
      seconds: 10,
    });
    expect(moved.status, moved.text).toBe(200);
    const d = await delivered(b, id);
    expect(d.attempts.map((x: any) => [x.url, x.statusCode])).toEqual([
      ['listener:', 500],
      ['listener:', 200],
    ]);
    expect(copiesOf(id)).toHaveLength(2);
    for (const c of copiesOf(id))
      expect(verify('whsec_shared_500', c.bytes, c.headers['x-screening-signature'] as string)).toBe(true);
  }, 30_000);

  it('gives every attempt to listeners on both instances; the first 2xx counts', async () => {
    const t = await createTenant(a.listenUrl, {
      planTier: 'pro',
      webhookSecret: 'whsec_shared_two',
      webhookUrl: UNREACHABLE,
    });
    const failing = await startReceiver();
    try {
      await listen(a.listenUrl, t.apiKey, failing.url);
      await listen(b.listenUrl, t.apiKey, rx.url);
      expect(await listenersOn(b, t.tenantId)).toHaveLength(2);
      failing.queue(500);
      const id = await testEvent(t.tenantId);
      const d = await delivered(a, id);
      expect(d.attempts.map((x: any) => x.statusCode)).toEqual([200]);
      expect(failing.got.filter((g) => g.headers['x-screening-delivery'] === id)).toHaveLength(1);
      expect(copiesOf(id)).toHaveLength(1);
    } finally {
      await failing.close();
    }
  }, 30_000);

  it('loses no attempt when the listener is killed mid-answer and the command connects to the other instance', async () => {
    const t = await createTenant(a.listenUrl, {
      planTier: 'pro',
      webhookSecret: 'whsec_shared_kill',
      webhookUrl: UNREACHABLE,
    });
    const first = await listen(b.listenUrl, t.apiKey, rx.url);
    const release = rx.hold();
    const id = await testEvent(t.tenantId);
    await waitFor(() => copiesOf(id).length === 1, 'the held attempt at the receiver');
    first.child.kill('SIGKILL');
    await waitFor(async () => (await listenersOn(a, t.tenantId)).length === 0, 'the killed listener gone on A');
    release();
    expect((await delivery(a, id)).attempts).toEqual([]);
    // the attempt still awaits its answer: the listener connecting next (on A now) gets it again
    await listen(a.listenUrl, t.apiKey, rx.url);
    const d = await delivered(b, id);
    expect(d.attempts.map((x: any) => [x.url, x.statusCode])).toEqual([['listener:', 200]]);
    expect(copiesOf(id).length).toBe(2);
  }, 30_000);

  it('drops a listener whose lease lapsed on every instance; the command reconnects and gets the next attempt', async () => {
    const t = await createTenant(a.listenUrl, {
      planTier: 'pro',
      webhookSecret: 'whsec_shared_lease',
      webhookUrl: UNREACHABLE,
    });
    const l = await listen(b.listenUrl, t.apiKey, rx.url);
    const [before] = await listenersOn(a, t.tenantId);
    // as if instance B had stopped renewing (it died): its lease is gone from the table
    const pgc = new pg.Client({ connectionString: db.url });
    await pgc.connect();
    try {
      const gone = await pgc.query('DELETE FROM sandbox_listener_leases WHERE listener_id = $1', [before]);
      expect(gone.rowCount).toBe(1);
    } finally {
      await pgc.end();
    }
    // another instance records the drop; the command sees its stream end and connects again
    await waitFor(
      async () => {
        const now = await listenersOn(a, t.tenantId);
        return now.length === 1 && now[0] !== before;
      },
      'the listener dropped and connected again',
      15_000,
    );
    expect(await listenersOn(b, t.tenantId)).toEqual(await listenersOn(a, t.tenantId));
    expect(l.out.filter((line) => line.startsWith('Ready:')).length).toBeGreaterThanOrEqual(1);
    const id = await testEvent(t.tenantId);
    expect((await delivered(a, id)).attempts.map((x: any) => x.url)).toEqual(['listener:']);
  }, 30_000);

  it('drops the listeners of an instance killed with SIGKILL; their attempt fails and its retry reaches a listener elsewhere', async () => {
    const c = await startInstance('C', {
      store: db.url,
      publicUrl: 'http://sandbox.test',
      adminToken: ADMIN_TOKEN,
      args: ['--no-demo', '--corpus', '50'],
    });
    try {
      const t = await createTenant(a.listenUrl, {
        planTier: 'pro',
        webhookSecret: 'whsec_shared_kill9',
        webhookUrl: UNREACHABLE,
      });
      await listen(c.listenUrl, t.apiKey, rx.url);
      const release = rx.hold();
      const id = await testEvent(t.tenantId);
      await waitFor(() => copiesOf(id).length === 1, 'the attempt at the receiver through instance C');
      await c.kill9();
      release();
      // its lease runs out: A drops the listener; the attempt, unanswered, fails at its timeout
      const failed = await waitFor(
        async () => {
          const d = await delivery(a, id);
          return d.attempts.length === 1 && (await listenersOn(a, t.tenantId)).length === 0 ? d : undefined;
        },
        'the listener dropped and the attempt failed',
        25_000,
      );
      expect(failed.status).toBe('retrying');
      // no listener answered: the timeout is a recorded step, so both instances hold the same attempt
      expect(failed.attempts[0]).toMatchObject({ url: 'listener:', statusCode: null });
      expect(failed.attempts[0].error).toMatch(/no listener answered within 15000 ms/);
      expect(await delivery(b, id)).toEqual(failed);
      await listen(b.listenUrl, t.apiKey, rx.url);
      const moved = await client(a.listenUrl, t.apiKey)('POST', `/sandbox/v1/tenants/${t.tenantId}/clock/advance`, {
        seconds: 10,
      });
      expect(moved.status, moved.text).toBe(200);
      expect((await delivered(b, id)).attempts.map((x: any) => [x.url, x.statusCode])).toEqual([
        ['listener:', null],
        ['listener:', 200],
      ]);
    } finally {
      await c.kill9();
    }
  }, 60_000);

  it('an instance started from a snapshot knows the listeners connected elsewhere and hands them its attempts', async () => {
    const secret = 'whsec_listen_snapshot';
    const t = await createTenant(a.listenUrl, { planTier: 'pro', webhookSecret: secret, webhookUrl: UNREACHABLE });
    await listen(b.listenUrl, t.apiKey, rx.url);
    const storeOf = async (sb: RunningSandbox): Promise<any> =>
      (await adminOf(sb.listenUrl)('GET', '/sandbox/v1/store')).json;
    // c snapshots at every step it commits: its first write leaves a snapshot with the listener connected on B
    const c = await start(db.url, { snapshotEvery: 1 });
    let d: RunningSandbox | undefined;
    try {
      await createTenant(c.listenUrl, { planTier: 'free' });
      await waitFor(async () => ((await storeOf(c)).instance.lastWritten ? true : undefined), 'a snapshot', 20_000);
      d = await start(db.url, { snapshotEvery: 0 });
      const loaded = (await storeOf(d)).instance.loadedFrom;
      expect(loaded.seq).toBeGreaterThan(0);
      expect(await listenersOn(d, t.tenantId)).toHaveLength(1);
      expect(await listenersOn(d, t.tenantId)).toEqual(await listenersOn(a, t.tenantId));
      // an attempt made through the instance that loaded the snapshot goes to the listener, not the webhookUrl
      const id = await (async () => {
        const res = await adminOf(d.listenUrl)('POST', '/sandbox/v1/webhooks/test', { tenantId: t.tenantId });
        expect(res.status, res.text).toBe(202);
        return res.json.delivery.id as string;
      })();
      await delivered(a, id);
      const [copy] = copiesOf(id);
      expect(copy).toBeDefined();
      expect(verify(secret, copy.bytes, copy.headers['x-screening-signature'] as string)).toBe(true);
    } finally {
      await d?.close();
      await c.close();
    }
  }, 90_000);

  it('stops while a listener keeps reconnecting to it: the stop ends', async () => {
    const c = await start(db.url);
    const t = await createTenant(a.listenUrl, { planTier: 'pro', webhookUrl: UNREACHABLE });
    const stream = () =>
      fetch(`${c.listenUrl}/sandbox/v1/webhooks/listen`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    // a listener held on c: the stop ends its stream, and the command reconnects at once, as `listen` does
    const held = await stream();
    expect(held.status).toBe(200);
    let stopped = false;
    const stop = c.close().then(() => (stopped = true));
    let reconnects = 0;
    void held.text().catch(() => '');
    // several commands (or one retrying fast) reconnecting until the server refuses them
    const reconnecting = async () => {
      while (!stopped) {
        const res = await stream().catch(() => null);
        if (!res) return;
        reconnects++;
        await res.text().catch(() => '');
      }
    };
    await Promise.all(Array.from({ length: 4 }, reconnecting));
    // a stream opened once the stop began took a connection of the store that the stop then waited for forever
    let timer: NodeJS.Timeout | undefined;
    const within = await Promise.race([stop, new Promise((r) => (timer = setTimeout(() => r(false), 15_000)))]);
    clearTimeout(timer);
    expect(within, `the stop did not end within 15 s (${reconnects} reconnects)`).toBe(true);
    expect(reconnects).toBeGreaterThan(0);
  }, 60_000);

  it('an instance started afterwards rebuilds every listener delivery from the log', async () => {
    const c = await start(db.url);
    try {
      const admin = (sb: RunningSandbox) => adminOf(sb.listenUrl);
      const all = async (sb: RunningSandbox) =>
        (await admin(sb)('GET', '/sandbox/v1/webhooks/deliveries?limit=100')).json.deliveries.map((d: any) => ({
          id: d.id,
          status: d.status,
          attempts: d.attempts?.length,
        }));
      expect(await all(c)).toEqual(await all(a));
      expect((await all(c)).length).toBeGreaterThanOrEqual(6);
      expect(ADMIN_TOKEN).toBe(c.adminToken);
    } finally {
      await c.close();
    }
  }, 60_000);
});
