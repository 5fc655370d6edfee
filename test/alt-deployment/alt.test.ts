// The alternate deployment behaves as the two documents state, over real HTTP and the SDK's MCP client.
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAltDeployment, type AltDeployment } from './index.js';
import { call, connectMcp, startReceiver, submitBody, tool, waitFor, type Receiver } from './test-support.js';

let d: AltDeployment;
let rx: Receiver;
const SCR = '/api/screening/v1';

beforeAll(async () => {
  rx = await startReceiver();
  d = await startAltDeployment({ webhookUrl: rx.url, scoringDelayMs: 30, reviewDelayMs: 120 });
});
afterAll(async () => {
  await d?.stop();
  await rx?.close();
});

describe('screening', () => {
  it('charges one credit per new request and none per replay, also under 20 concurrent replays', async () => {
    const key = d.profile.keys.starter;
    const before = (await call(d.baseUrl, key, `${SCR}/usage`)).body;
    const body = submitBody();
    const first = await call(d.baseUrl, key, `${SCR}/screen`, body);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ state: 'received', requestId: expect.stringMatching(/^scr_/) });
    const replay = await call(d.baseUrl, key, `${SCR}/screen`, body);
    expect(replay.status).toBe(200);
    expect(replay.body.requestId).toBe(first.body.requestId);
    const burst = submitBody();
    const replies = await Promise.all(Array.from({ length: 20 }, () => call(d.baseUrl, key, `${SCR}/screen`, burst)));
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(replies.map((r) => r.body.requestId)).size).toBe(1);
    const after = (await call(d.baseUrl, key, `${SCR}/usage`)).body;
    expect(before.creditsRemaining - after.creditsRemaining).toBe(2);
    expect(after).toMatchObject({ planTier: 'starter', creditsCap: 300, nearLimit: false });
    expect(after).not.toHaveProperty('freeScreenCap');
  });

  it('refuses an exhausted wallet with 402 and an upsell, and unknown jobSpec properties with 400', async () => {
    const spent = await call(d.baseUrl, d.profile.keys.screeningSpent, `${SCR}/screen`, submitBody());
    expect(spent.status).toBe(402);
    expect(spent.body.error).toMatchObject({
      code: 'payment_required',
      upsell: { upgradeUrl: expect.stringMatching(/^https:/) },
    });
    const usage = (await call(d.baseUrl, d.profile.keys.screeningSpent, `${SCR}/usage`)).body;
    expect(usage).toMatchObject({ creditsRemaining: 0, usagePercent: 1, nearLimit: true });
    const open = await call(
      d.baseUrl,
      d.profile.keys.pro,
      `${SCR}/screen`,
      submitBody({ jobSpec: { title: 'x', mustHaves: [], extra: 1 } }),
    );
    expect(open.status).toBe(400);
    expect(open.body.error.message).toContain('extra');
    expect((await call(d.baseUrl, d.profile.keys.noScreeningScope, `${SCR}/usage`)).status).toBe(403);
  });

  it('walks the ledger page by page: one row per transition, chained, tenant-scoped', async () => {
    const key = d.profile.keys.pro;
    const { body } = await call(d.baseUrl, key, `${SCR}/screen`, submitBody());
    await rx.until((hs) =>
      hs.some((h) => h.body.requestId === body.requestId && h.body.event === 'screening.review_decided'),
    );
    const rows: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await call(d.baseUrl, key, `${SCR}/audit?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.events.length).toBeLessThanOrEqual(2);
      rows.push(...page.body.events);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    const mine = rows.filter((r) => r.requestId === body.requestId);
    expect(mine.map((r) => r.toState).slice(0, 3)).toEqual(['received', 'scored', 'pending_review']);
    mine.forEach((r, i) => expect(r.fromState).toBe(i === 0 ? null : mine[i - 1].toState));
    expect(mine[3].actor).toMatch(/^reviewer:/);
    const other = await call(d.baseUrl, d.profile.keys.starter, `${SCR}/audit?limit=500`);
    expect(other.body.events.some((r: any) => r.requestId === body.requestId)).toBe(false);
    for (const q of ['limit=0', 'limit=501', 'cursor=nope', 'since=yesterday']) {
      expect((await call(d.baseUrl, key, `${SCR}/audit?${q}`)).status).toBe(400);
    }
  });

  it('posts signed, pretty-printed deliveries whose signature verifies over the raw bytes', async () => {
    const key = d.profile.keys.free;
    const { body } = await call(d.baseUrl, key, `${SCR}/screen`, submitBody());
    await rx.until((hs) => hs.filter((h) => h.body.requestId === body.requestId).length >= 2);
    const mine = rx.hooks.filter((h) => h.body.requestId === body.requestId);
    expect(mine.map((h) => h.body.event)).toEqual(['screening.scored', 'screening.review_decided']);
    for (const h of mine) {
      const expected = createHmac('sha256', d.profile.webhookSecrets.free!).update(h.raw).digest('hex');
      expect(h.headers['x-screening-signature']).toBe(`sha256=${expected.toUpperCase()}`);
      expect(h.raw).toBe(JSON.stringify(h.body, null, 2));
    }
    expect(Object.keys(mine[0].body.result).sort()).toEqual([
      'confidence',
      'dimensions',
      'modelId',
      'promptVersion',
      'rationale',
      'schemaVersion',
      'score',
    ]);
    expect(mine[1].body.result).toMatchObject({
      schemaVersion: 1,
      decision: expect.stringMatching(/^(approved|rejected|edited)$/),
    });
  });
});

describe('webhook retries', () => {
  it('retries a refused delivery and moves the request to delivered once it is acknowledged', async () => {
    const flaky = await startReceiver(1);
    const alt = await startAltDeployment({ webhookUrl: flaky.url, scoringDelayMs: 10, reviewDelayMs: 20 });
    try {
      const key = alt.profile.keys.pro;
      const { body } = await call(alt.baseUrl, key, `${SCR}/screen`, submitBody());
      await flaky.until((hs) => hs.filter((h) => h.body.event === 'screening.scored').length === 2);
      const scored = flaky.hooks.filter((h) => h.body.event === 'screening.scored');
      expect(scored[0].body.requestId).toBe(scored[1].body.requestId);
      await flaky.until((hs) => hs.some((h) => h.body.event === 'screening.review_decided'));
      const delivered = async () =>
        (await call(alt.baseUrl, key, `${SCR}/audit`)).body.events.some(
          (r: any) => r.requestId === body.requestId && r.toState === 'delivered',
        );
      await waitFor(delivered);
    } finally {
      await alt.stop();
      await flaky.close();
    }
  });
});

describe('jobs', () => {
  it('marks sponsored listings on free only, caps free at 5 pages and sends rate headers on every response', async () => {
    const free = await call(d.baseUrl, d.profile.keys.free, '/api/v1/jobs?limit=50');
    const pro = await call(d.baseUrl, d.profile.keys.pro, '/api/v1/jobs?limit=50');
    expect(free.body.tier).toBe('Free');
    expect(pro.body.tier).toBe('Pro');
    expect(free.body.jobs.filter((j: any) => j.sponsored).length).toBeGreaterThan(0);
    expect(pro.body.jobs.filter((j: any) => j.sponsored)).toEqual([]);
    expect(free.headers.get('x-ratelimit-limit')).toBe('60');
    expect(pro.headers.get('x-ratelimit-limit')).toBe('300');
    expect(Number(free.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    const past = await call(d.baseUrl, d.profile.keys.free, '/api/v1/jobs?limit=10&offset=50');
    expect(past.status).toBe(403);
    expect(past.headers.get('x-ratelimit-remaining')).not.toBeNull();
    expect((await call(d.baseUrl, d.profile.keys.pro, '/api/v1/jobs?limit=10&offset=50')).status).toBe(200);
    expect((await call(d.baseUrl, d.profile.keys.pro, `/api/v1/jobs/${d.profile.inactiveJobId}`)).status).toBe(404);
    expect((await call(d.baseUrl, undefined, '/api/v1/jobs')).headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('answers apply with 202 on paid tiers, spending one credit, and refuses free with 403', async () => {
    const job = (await call(d.baseUrl, d.profile.keys.pro, '/api/v1/jobs?limit=1')).body.jobs[0];
    const body = { candidate_name: 'Dewi', candidate_email: 'dewi@example.net', message: 'x'.repeat(80) };
    const me = async () => (await call(d.baseUrl, d.profile.keys.pro, '/api/v1/me')).body.balance.apply;
    const before = await me();
    expect((await call(d.baseUrl, d.profile.keys.pro, `/api/v1/jobs/${job.id}/apply`, body)).status).toBe(202);
    expect(await me()).toBe(before - 1);
    expect((await call(d.baseUrl, d.profile.keys.free, `/api/v1/jobs/${job.id}/apply`, body)).status).toBe(403);
    expect(
      (await call(d.baseUrl, d.profile.keys.pro, `/api/v1/jobs/${job.id}/apply`, { ...body, message: 'x'.repeat(79) }))
        .status,
    ).toBe(400);
  });
});

describe('MCP', () => {
  it('keyed server: protocol 2025-06-18, version 1.0.0, instructions, ten tools; 401 without a key', async () => {
    const m = await connectMcp(`${d.baseUrl}/api/mcp`, d.profile.keys.pro);
    expect(m.transport.protocolVersion).toBe('2025-06-18');
    expect(m.client.getServerVersion()?.version).toBe('1.0.0');
    expect(m.client.getInstructions()).toMatch(/get_me/);
    expect((await m.client.listTools()).tools).toHaveLength(10);
    const me = await tool(m.client, 'get_me');
    expect(me.data.tier).toBe('Pro');
    await m.close();
    const res = await fetch(`${d.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
  });

  it('anonymous server: three tools taking query and job_id, and a discovery document on GET', async () => {
    const m = await connectMcp(d.anonMcpUrl);
    expect((await m.client.listTools()).tools.map((t) => t.name).sort()).toEqual([
      'get_curated_list',
      'get_job',
      'search_jobs',
    ]);
    const found = await tool(m.client, 'search_jobs', { query: 'engineer', limit: 3 });
    expect(found.data.jobs).toHaveLength(3);
    expect((await tool(m.client, 'get_job', { job_id: found.data.jobs[0].id })).data.id).toBe(found.data.jobs[0].id);
    expect((await tool(m.client, 'get_curated_list')).data.platforms.length).toBeGreaterThan(0);
    await m.close();
    const disc = await (await fetch(d.anonMcpUrl)).json();
    expect(disc.tools).toHaveLength(3);
    const wk = await (await fetch(`${d.baseUrl}/.well-known/mcp.json`)).json();
    expect(wk.servers).toHaveLength(2);
  });
});

describe('independence', () => {
  it('imports nothing from src/ or conformance/', () => {
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const offenders: string[] = [];
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.ts'))) {
      const text = readFileSync(dir + f, 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (/(^|\/)(src|conformance)(\/|$)/.test(m[1]) || m[1].startsWith('../')) offenders.push(`${f}: ${m[1]}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
