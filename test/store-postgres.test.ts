// The shared sandbox on a real PostgreSQL (a throwaway cluster, test/support/postgres.ts): several
// instances on one database, called over HTTP, behave as one sandbox — one request and one charge per
// idempotency key, wallets spent exactly to zero, audit pages that neither skip nor repeat while both
// instances append, every change seen at once everywhere, webhook attempts made once — and a restart,
// even after kill -9, loses nothing that was acknowledged.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/main.js';
import { MIGRATIONS } from '../src/store/postgres/migrations.js';
import { browser } from './support/console.js';
import { applyBody } from './support/jobs.js';
import {
  postgresUnavailable,
  QUICK_LOST_ATTEMPTS,
  sharedInstances,
  startTestDatabase,
  twoSharedInstances,
  type TestDatabase,
} from './support/postgres.js';
import { spawnCliInstance } from './support/instances.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, startReceiver, submitBody, waitFor } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const PUBLIC_URL = 'http://sandbox.test';
const shared = sharedInstances(PUBLIC_URL);

const adminAt = (sb: RunningSandbox) => client(sb.listenUrl, ADMIN_TOKEN);

async function tenant(sb: RunningSandbox, input: Record<string, unknown>) {
  const res = await adminAt(sb)('POST', '/sandbox/v1/tenants', input);
  expect(res.status, res.text).toBe(201);
  return res.json as { tenantId: string; apiKey: string };
}

/** Every audit row of a tenant, read page by page, each page from the next instance in turn. */
async function auditAll(instances: RunningSandbox[], apiKey: string, limit = 7) {
  const rows: any[] = [];
  let cursor: string | null = null;
  for (let i = 0; ; i++) {
    const res = await client(instances[i % instances.length].listenUrl, apiKey)(
      'GET',
      `${SCREENING}/audit?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status, res.text).toBe(200);
    rows.push(...res.json.events);
    cursor = res.json.nextCursor;
    if (!cursor) return rows;
  }
}

describe.skipIf(why !== null)('shared sandbox: several instances on one PostgreSQL', () => {
  let db: TestDatabase;
  let a: RunningSandbox;
  let b: RunningSandbox;
  twoSharedInstances(shared, (p) => ({ db, a, b } = p));

  it('starts several instances at the same moment on an empty database: one schema, the same demo keys everywhere', async () => {
    const url = await db.another();
    const three = await Promise.all([shared.start(url), shared.start(url), shared.start(url)]);
    try {
      const keys = three.map((s) => s.core.demo!.tenants.map((t) => `${t.apiKey}/${t.webhookSecret}`).join());
      expect(new Set(keys).size).toBe(1);
      const pgc = new pg.Client({ connectionString: url });
      await pgc.connect();
      const { rows } = await pgc.query('SELECT version FROM schema_migrations ORDER BY version');
      await pgc.end();
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
      const key = three[0].core.demo!.tenants.find((t) => t.planTier === 'pro')!.apiKey;
      const made = await client(three[1].listenUrl, key)('POST', `${SCREENING}/screen`, submitBody());
      expect(made.status, made.text).toBe(201);
      const usage = await client(three[2].listenUrl, key)('GET', `${SCREENING}/usage`);
      expect(usage.json.creditsRemaining).toBe(usage.json.creditsCap - 1);
    } finally {
      await Promise.all(three.map((s) => s.close()));
    }
  });

  it('concurrent same-key submits on both instances make one request and one charge; the others answer 200', async () => {
    const t = await tenant(a, { planTier: 'pro' });
    const body = submitBody({ idempotencyKey: 'one-key' });
    const out = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        client((i % 2 ? a : b).listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, body),
      ),
    );
    expect(out.filter((r) => r.status === 201)).toHaveLength(1);
    expect(out.filter((r) => r.status === 200)).toHaveLength(15);
    for (const r of out.filter((x) => x.status === 200)) expect(r.headers.get('idempotent-replayed')).toBe('true');
    expect(new Set(out.map((r) => r.json.requestId)).size).toBe(1);
    for (const sb of [a, b])
      expect((await client(sb.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`)).json.creditsRemaining).toBe(499);
  });

  it('a wallet is charged exactly down to zero across instances, never below, never twice', async () => {
    const t = await tenant(b, { planTier: 'free' });
    const out = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        client((i % 2 ? a : b).listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody()),
      ),
    );
    expect(out.filter((r) => r.status === 201)).toHaveLength(10);
    expect(out.filter((r) => r.status === 402)).toHaveLength(20);
    for (const sb of [a, b])
      expect((await client(sb.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`)).json.creditsRemaining).toBe(0);
    const intake = (await auditAll([a, b], t.apiKey)).filter((r) => r.toState === 'received');
    expect(intake).toHaveLength(10);
  });

  it('concurrent applies on both instances spend the apply wallet exactly to zero', async () => {
    const t = await tenant(a, { planTier: 'starter' });
    expect((await adminAt(a)('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { applyCredits: 5 })).status).toBe(200);
    const jobs = (await client(b.listenUrl, t.apiKey)('GET', '/api/v1/jobs?limit=20')).json.jobs as { id: string }[];
    const out = await Promise.all(
      jobs
        .slice(0, 12)
        .map((j, i) => client((i % 2 ? a : b).listenUrl, t.apiKey)('POST', `/api/v1/jobs/${j.id}/apply`, applyBody())),
    );
    expect(out.filter((r) => r.status >= 200 && r.status < 300)).toHaveLength(5);
    expect(out.filter((r) => r.status === 402)).toHaveLength(7);
    for (const sb of [a, b])
      expect((await adminAt(sb)('GET', `/sandbox/v1/tenants/${t.tenantId}`)).json.applyCredits.remaining).toBe(0);
  });

  it('audit pages read while both instances append never skip or repeat a row', async () => {
    const t = await tenant(a, { planTier: 'scale' });
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; i < 15; i++)
        await client((w % 2 ? a : b).listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    });
    const seen: any[] = [];
    let cursor: string | null = null;
    let writing = true;
    const done = Promise.all(writers).then(() => (writing = false));
    // read as the rows arrive: a page with a next cursor is final; one at the tail is read again later
    for (let i = 0; ; i++) {
      const finished = !writing;
      const res = await client((i % 2 ? a : b).listenUrl, t.apiKey)(
        'GET',
        `${SCREENING}/audit?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status, res.text).toBe(200);
      if (res.json.nextCursor) {
        seen.push(...res.json.events);
        cursor = res.json.nextCursor;
      } else if (finished) {
        seen.push(...res.json.events);
        break;
      } else await new Promise((r) => setTimeout(r, 5));
    }
    await done;
    const all = await auditAll([a, b], t.apiKey, 50);
    const ids = seen.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(all.map((r) => r.id));
    expect(all.filter((r) => r.toState === 'received')).toHaveLength(60);
  });

  it('a change made through one instance is seen at once through the other: keys, clock, faults, bugs, decisions', async () => {
    const t = await tenant(a, { planTier: 'pro' });
    expect((await client(b.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`)).status).toBe(200);
    const before = Date.parse((await adminAt(b)('GET', '/sandbox/v1/clock')).json.now);
    expect((await adminAt(a)('POST', '/sandbox/v1/clock/advance', { seconds: 3600 })).status).toBe(200);
    const after = Date.parse((await adminAt(b)('GET', '/sandbox/v1/clock')).json.now);
    expect(after - before).toBeGreaterThanOrEqual(3600_000);
    const rule = await adminAt(a)('POST', '/sandbox/v1/faults', {
      mode: 'status',
      status: 503,
      path: '/api/screening/v1/usage',
      count: 1,
    });
    expect(rule.status, rule.text).toBe(201);
    const hits = await Promise.all([b, a, b].map((sb) => client(sb.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`)));
    expect(hits.map((h) => h.status).sort()).toEqual([200, 200, 503]);
    expect((await adminAt(a)('PUT', '/sandbox/v1/bugs/skip_ledger_row')).status).toBe(200);
    const bugs = (await adminAt(b)('GET', '/sandbox/v1/faults')).json.bugs as { name: string; enabled: boolean }[];
    expect(bugs.find((x) => x.name === 'skip_ledger_row')?.enabled).toBe(true);
    expect((await adminAt(b)('DELETE', '/sandbox/v1/bugs/skip_ledger_row')).status).toBe(200);
    const made = await client(a.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    const id = made.json.requestId;
    await waitFor(
      async () => (await adminAt(b)('GET', `/sandbox/v1/reviews/${id}`)).json?.state === 'pending_review',
      'pending review',
    );
    const decided = await adminAt(b)('POST', `/sandbox/v1/reviews/${id}/decision`, {
      decision: 'approved',
      reviewerId: 'rev-1',
      reviewerRole: 'recruiter',
    });
    expect(decided.status, decided.text).toBe(200);
    expect((await adminAt(a)('GET', `/sandbox/v1/reviews/${id}`)).json.state).toMatch(/approved|delivered/);
  });

  it('each webhook attempt is made by exactly one instance, and a retry survives both instances stopping', async () => {
    const receiver = await startReceiver();
    const url = await db.another();
    let [c, d] = await Promise.all([shared.start(url), shared.start(url)]);
    try {
      const t = await tenant(c, { planTier: 'pro', webhookUrl: receiver.url });
      receiver.queue(500);
      const made = await client(d.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
      expect(made.status).toBe(201);
      await waitFor(() => receiver.received.length >= 1 && true, 'the first attempt');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).toHaveLength(1);
      await Promise.all([c.close(), d.close()]);
      [c, d] = await Promise.all([shared.start(url), shared.start(url)]);
      // the retry is due 5 s later on the sandbox clock: both instances know it after the restart
      expect((await adminAt(d)('POST', '/sandbox/v1/clock/advance', { seconds: 6 })).status).toBe(200);
      await waitFor(() => receiver.received.length >= 2 && true, 'the retry after the restart');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1].headers['x-screening-delivery']).toBe(
        receiver.received[0].headers['x-screening-delivery'],
      );
      const deliveries = (await adminAt(c)('GET', `/sandbox/v1/webhooks/deliveries?requestId=${made.json.requestId}`))
        .json.deliveries;
      expect(deliveries[0].attempts.map((x: any) => x.statusCode)).toEqual([500, 200]);
      // each answer is recorded under its attempt's id, in its tenant's partition (D-153)
      const pgc = new pg.Client({ connectionString: url });
      await pgc.connect();
      try {
        const { rows } = await pgc.query<{ step: string; partition: string }>(
          `SELECT step, partition FROM sandbox_log WHERE step LIKE '{"t":"sent"%' ORDER BY seq`,
        );
        const id = deliveries[0].id as string;
        expect(rows.map((r) => [(JSON.parse(r.step) as { key: unknown }).key, r.partition])).toEqual([
          [`${id}.1`, t.tenantId],
          [`${id}.2`, t.tenantId],
        ]);
      } finally {
        await pgc.end();
      }
    } finally {
      await Promise.all([c.close(), d.close()]);
      await receiver.close();
    }
  });

  it('a chaos latency rule holds back its own answer, not the calls queued behind it on any instance', async () => {
    const t = await tenant(a, { planTier: 'pro' });
    const rule = await adminAt(b)('POST', '/sandbox/v1/faults', {
      mode: 'latency',
      latencyMs: 1500,
      path: '/api/v1/me',
      count: 1,
    });
    expect(rule.status, rule.text).toBe(201);
    const order: string[] = [];
    const slow = client(a.listenUrl, t.apiKey)('GET', '/api/v1/me').then((r) => order.push(`slow ${r.status}`));
    await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    await Promise.all(
      [a, b].map((sb) =>
        client(sb.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`).then((r) => order.push(`quick ${r.status}`)),
      ),
    );
    await slow;
    expect(order).toEqual(['quick 200', 'quick 200', 'slow 200']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('a body past every limit is refused with 413 on the instance that took it and on every replay, charging nothing', async () => {
    const t = await tenant(a, { planTier: 'pro' });
    // chunked, with no Content-Length: only the bytes themselves tell that the body is too large
    const huge = new TextEncoder().encode(JSON.stringify({ ...submitBody(), padding: 'x'.repeat(2 * 1024 * 1024) }));
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < huge.length; i += 64 * 1024) controller.enqueue(huge.subarray(i, i + 64 * 1024));
        controller.close();
      },
    });
    const res = await fetch(`${a.listenUrl}${SCREENING}/screen`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('invalid_request');
    // b replays the refused call (it counted in the key's window) and goes on with the log
    const next = await client(b.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    expect(next.status, next.text).toBe(201);
    for (const sb of [a, b])
      expect((await client(sb.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`)).json.creditsRemaining).toBe(499);
    expect(shared.failures).toEqual([]);
  });

  it('a console action on one instance is a change every instance sees (its control call is recorded)', async () => {
    const page = browser(a.listenUrl);
    await page.login();
    const before = Date.parse((await adminAt(b)('GET', '/sandbox/v1/clock')).json.now);
    const done = await page.request('POST', '/console/clock/advance', {
      _csrf: await page.csrf('/console/clock'),
      seconds: '7200',
    });
    expect(done.status).toBe(303);
    const after = Date.parse((await adminAt(b)('GET', '/sandbox/v1/clock')).json.now);
    expect(after - before).toBeGreaterThanOrEqual(7200_000);
  });

  it('refuses an instance whose settings differ from the sandbox on that database, naming them', async () => {
    await expect(shared.start(db.url, { seed: 7 })).rejects.toThrow(/seed/);
    await expect(shared.start(db.url, { adminToken: 'sat_other' })).rejects.toThrow(/adminTokenSha256/);
  });
});

describe.skipIf(why !== null)('shared sandbox: every batch cut after its first step (D-151)', () => {
  // the budget of 0 puts back every step of a batch but its first, and several tenants' calls waiting at once are
  // taken a few of each: the races across instances still make one request per key and charge each wallet to zero
  const cut = sharedInstances(PUBLIC_URL, { replicaTiming: { batchBudgetMs: 0 } });
  let a: RunningSandbox;
  let b: RunningSandbox;
  twoSharedInstances(cut, (p) => ({ a, b } = p));

  it('answers every call of several tenants racing on both instances, each wallet charged exactly to zero', async () => {
    const tenants = [await tenant(a, { planTier: 'free' }), await tenant(b, { planTier: 'free' })];
    const keyed = await tenant(a, { planTier: 'pro' });
    const body = submitBody({ idempotencyKey: 'one-key' });
    const calls = [
      ...tenants.flatMap((t) => Array.from({ length: 16 }, () => [t.apiKey, submitBody()] as const)),
      ...Array.from({ length: 12 }, () => [keyed.apiKey, body] as const),
    ];
    const out = await Promise.all(
      calls.map(([key, b2], i) => client((i % 2 ? a : b).listenUrl, key)('POST', `${SCREENING}/screen`, b2)),
    );
    for (const [k, t] of tenants.entries()) {
      const mine = out.slice(16 * k, 16 * (k + 1));
      expect(mine.filter((r) => r.status === 201)).toHaveLength(10);
      expect(mine.filter((r) => r.status === 402)).toHaveLength(6);
      for (const sb of [a, b])
        expect((await client(sb.listenUrl, t.apiKey)('GET', `${SCREENING}/usage`)).json.creditsRemaining).toBe(0);
      expect((await auditAll([a, b], t.apiKey)).filter((r) => r.toState === 'received')).toHaveLength(10);
    }
    const same = out.slice(32);
    expect(same.filter((r) => r.status === 201)).toHaveLength(1);
    expect(same.filter((r) => r.status === 200)).toHaveLength(11);
    expect(new Set(same.map((r) => r.json.requestId)).size).toBe(1);
  });
});

describe.skipIf(why !== null)('shared sandbox: kill -9 and restart', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
  }, 120_000);
  afterAll(async () => {
    await db?.stop();
  });

  /** An instance in a child process; `viaEnv` names the database with SANDBOX_DATABASE_URL instead of --store. */
  const spawnInstance = (url: string, viaEnv = false) =>
    spawnCliInstance(url, { adminToken: ADMIN_TOKEN, publicUrl: PUBLIC_URL }, { viaEnv });

  it('loses nothing it acknowledged, and pending review expiries still fire after the restart', async () => {
    const first = await spawnInstance(db.url);
    const t = await client(first.base, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { planTier: 'scale' });
    expect(t.status).toBe(201);
    const call = client(first.base, t.json.apiKey);
    const acknowledged: string[] = [];
    // submits keep coming on 8 connections; the instance is killed while they are in flight
    let stop = false;
    const load = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const r = await call('POST', `${SCREENING}/screen`, submitBody()).catch(() => null);
        if (r?.status === 201) acknowledged.push(r.json.requestId);
      }
    });
    await waitFor(() => acknowledged.length >= 60 && true, '60 acknowledged submits', 30_000);
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(load);
    const again = await spawnInstance(db.url, true);
    try {
      const rows = await auditAll([{ listenUrl: again.base } as RunningSandbox], t.json.apiKey, 200);
      const present = new Set(rows.filter((r) => r.toState === 'received').map((r) => r.requestId));
      for (const id of acknowledged) expect(present.has(id), id).toBe(true);
      const usage = await client(again.base, t.json.apiKey)('GET', `${SCREENING}/usage`);
      expect(usage.json.creditsCap - usage.json.creditsRemaining).toBe(present.size);
      // every acknowledged request that reached review expires when the clock passes the 72 h window
      const pending = rows.filter((r) => r.toState === 'pending_review').map((r) => r.requestId);
      expect(pending.length).toBeGreaterThan(0);
      expect(
        (await client(again.base, ADMIN_TOKEN)('POST', '/sandbox/v1/clock/advance', { seconds: 73 * 3600 })).status,
      ).toBe(200);
      const after = await auditAll([{ listenUrl: again.base } as RunningSandbox], t.json.apiKey, 200);
      const expired = new Set(after.filter((r) => r.toState === 'expired').map((r) => r.requestId));
      for (const id of pending) expect(expired.has(id), id).toBe(true);
    } finally {
      again.child.kill('SIGKILL');
    }
  }, 90_000);

  it('records an attempt whose instance was killed mid-flight as a failed attempt, and the retry goes on', async () => {
    const url = await db.another();
    // the receiver holds the first attempt unanswered, then answers 200
    const held: import('node:http').ServerResponse[] = [];
    const got: string[] = [];
    const { createServer } = await import('node:http');
    const receiver = createServer((req, res) => {
      got.push(String(req.headers['x-screening-delivery']));
      req.resume();
      if (got.length === 1) held.push(res);
      else res.end('ok');
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as import('node:net').AddressInfo).port}/hooks`;
    const doomed = await spawnInstance(url);
    const survivor = await shared.start(url, QUICK_LOST_ATTEMPTS);
    try {
      const t = await client(doomed.base, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', {
        planTier: 'pro',
        webhookUrl: hook,
      });
      const made = await client(doomed.base, t.json.apiKey)('POST', `${SCREENING}/screen`, submitBody());
      expect(made.status).toBe(201);
      await waitFor(() => got.length === 1, 'the first attempt to reach the receiver');
      const arrived = Date.now();
      doomed.child.kill('SIGKILL');
      const deliveries = async () =>
        (await adminAt(survivor)('GET', `/sandbox/v1/webhooks/deliveries?requestId=${made.json.requestId}`)).json
          .deliveries;
      // not before the 15 s receiver timeout (2 s of slack for the attempt's way to the receiver): it could still be answered
      await new Promise((r) => setTimeout(r, arrived + 13_000 - Date.now()));
      expect((await deliveries())[0]?.attempts ?? []).toEqual([]);
      // 15 s of receiver timeout and the grace later (10 s, 1 s here), the survivor records the lost attempt
      const lost = await waitFor(
        async () => {
          const list = await deliveries();
          return list[0]?.attempts?.length === 1 ? list[0] : undefined;
        },
        'the lost attempt to be recorded',
        40_000,
      );
      expect(lost.attempts[0].statusCode).toBe(null);
      expect(lost.attempts[0].error).toMatch(/instance making this attempt stopped/);
      expect(lost.status).toBe('retrying');
      expect((await adminAt(survivor)('POST', '/sandbox/v1/clock/advance', { seconds: 6 })).status).toBe(200);
      await waitFor(() => got.length === 2, 'the retry');
      expect(got[1]).toBe(got[0]);
    } finally {
      doomed.child.kill('SIGKILL');
      await survivor.close();
      for (const res of held) res.destroy();
      receiver.closeAllConnections();
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  }, 90_000);
});
