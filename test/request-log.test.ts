// The request log: REST and keyed-MCP calls recorded per tenant with method, path or tool, status,
// duration and capped bodies; searchable; bounded to the latest entries whatever the traffic.

import { describe, expect, it } from 'vitest';
import { LOG_TEXT_CAP, CAPACITY } from '../src/domain/callLog.js';
import { connectMcp, call } from './support/mcp.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });

const logOf = (query: string) =>
  client(sb.get().baseUrl, ADMIN_TOKEN)('GET', `/sandbox/v1/logs?${query}`).then((r) => r.json);

describe('request log', () => {
  it('records REST and MCP calls per tenant, with capped bodies, and finds them by search', async () => {
    const { baseUrl } = sb.get();
    const a = await createTenant(baseUrl, { planTier: 'pro' });
    const b = await createTenant(baseUrl, { planTier: 'pro' });
    const submit = await client(baseUrl, a.apiKey)(
      'POST',
      `${SCREENING}/screen`,
      submitBody({ idempotencyKey: 'log-me-1' }),
    );
    const requestId = submit.json.requestId;
    const long = 'x'.repeat(LOG_TEXT_CAP * 3);
    const refused = await client(baseUrl, a.apiKey)('POST', `${SCREENING}/screen`, { idempotencyKey: long });
    expect(refused.status).toBe(400);
    await client(baseUrl, b.apiKey)('GET', '/api/v1/jobs?q=engineer&limit=2');
    const mcp = await connectMcp(`${baseUrl}/api/mcp`, a.apiKey);
    await call(mcp.client, 'get_me');
    await mcp.close();

    const mine = await waitFor(async () => {
      const page = await logOf(`tenantId=${a.tenantId}&limit=50`);
      return page.entries.some((e: any) => e.tool === 'tools/call get_me') ? page.entries : undefined;
    }, 'the MCP call in the log');
    expect(mine.every((e: any) => e.tenantId === a.tenantId)).toBe(true);
    const created = mine.find((e: any) => e.status === 201)!;
    expect(created).toMatchObject({ api: 'rest', method: 'POST', path: `${SCREENING}/screen` });
    expect(created.requestBody).toContain('log-me-1');
    expect(created.responseBody).toContain(requestId);
    expect(typeof created.durationMs).toBe('number');
    const bad = mine.find((e: any) => e.status === 400)!;
    expect(bad.requestBody.length).toBe(LOG_TEXT_CAP);
    expect(bad.truncated).toBe(true);
    expect(bad.responseBody).toContain('invalid_request');
    const tool = mine.find((e: any) => e.tool === 'tools/call get_me')!;
    expect(tool).toMatchObject({ api: 'mcp', method: 'POST', path: '/api/mcp', status: 200 });

    // search: by request id, and by status class; the other tenant's calls stay out of a's view
    const found = await logOf(`tenantId=${a.tenantId}&q=${requestId}`);
    expect(found.entries.length).toBeGreaterThan(0);
    expect(found.entries.every((e: any) => `${e.path}${e.requestBody}${e.responseBody}`.includes(requestId))).toBe(
      true,
    );
    expect(
      (await logOf(`tenantId=${a.tenantId}&status=4xx`)).entries.every((e: any) => e.status >= 400 && e.status < 500),
    ).toBe(true);
    expect((await logOf(`tenantId=${b.tenantId}`)).entries.map((e: any) => e.path)).toEqual([
      '/api/v1/jobs?q=engineer&limit=2',
    ]);
  });

  it('keeps the first characters of every answer, long or short, as the client read them', async () => {
    const { baseUrl } = sb.get();
    const t = await createTenant(baseUrl, { planTier: 'pro' });
    const api = client(baseUrl, t.apiKey);
    const long = await api('GET', '/api/v1/jobs?limit=50');
    const short = await api('GET', `/api/v1/jobs/${long.json.jobs[0].id}`);
    expect(long.text.length).toBeGreaterThan(LOG_TEXT_CAP * 3);
    const entries = (await logOf(`tenantId=${t.tenantId}&limit=10`)).entries;
    const of = (path: string) => entries.find((e: any) => e.path === path);
    expect(of('/api/v1/jobs?limit=50')).toMatchObject({
      status: 200,
      responseBody: long.text.slice(0, LOG_TEXT_CAP),
      truncated: true,
    });
    expect(of(`/api/v1/jobs/${long.json.jobs[0].id}`)).toMatchObject({
      status: 200,
      responseBody: short.text,
      truncated: false,
    });
  });

  it('keeps only the latest entries, and pages across the roll-off', async () => {
    const { core } = sb.get();
    const log = core.callLog;
    const call = {
      atMs: core.clock.now(),
      tenantId: null,
      api: 'rest' as const,
      method: 'GET',
      path: '/api/v1/me',
      tool: null,
      status: 200,
      durationMs: 1,
      request: '',
      response: 'x'.repeat(LOG_TEXT_CAP),
    };
    for (let i = 0; i < CAPACITY * 3 + 10; i++) log.record({ ...call, path: `/api/v1/me?n=${i}` });
    const { entries, base } = log.window(null);
    expect(entries).toHaveLength(CAPACITY);
    expect(base).toBeGreaterThan(0);
    expect(entries.map((e) => e.path)).toEqual(
      Array.from({ length: CAPACITY }, (_, i) => `/api/v1/me?n=${2 * CAPACITY + 10 + i}`),
    );
    // what is held, not just what is shown, is the capacity: no slot holds an older call
    expect((log as unknown as { global: { slots: unknown[] } }).global.slots).toHaveLength(CAPACITY);
    expect(log.get(entries[0].id)).toBe(entries[0]);
    expect(log.get(`log_${base.toString(36).padStart(6, '0')}`)).toBeUndefined();
    const first = await logOf('limit=500');
    const second = await logOf(`limit=500&cursor=${first.nextCursor}`);
    expect(second.entries[0].id < first.entries.at(-1).id).toBe(true);
    expect(new Set([...first.entries, ...second.entries].map((e: { id: string }) => e.id)).size).toBe(1000);
  });

  it('pages every ring merged newest first, also while one ring rolls off entries older than the cursor (D-143)', async () => {
    const { core } = sb.get();
    const log = core.callLog;
    const base = core.clock.now() + 10_000_000;
    const call = (tenantId: string, at: number) => ({
      atMs: base + at,
      tenantId,
      api: 'rest' as const,
      method: 'GET',
      path: `/api/v1/me?at=${at}`,
      tool: null,
      status: 200,
      durationMs: 1,
      request: '',
      response: '{}',
    });
    const [x, y] = ['ten_mergedringxxxx', 'ten_mergedringyyyy'];
    for (let i = 0; i < 500; i++) log.record(call(x, i));
    for (let i = 0; i < 300; i++) log.record(call(y, 1000 + i));
    const first = await logOf('limit=100');
    expect(first.entries.map((e: { path: string }) => e.path)).toEqual(
      Array.from({ length: 100 }, (_, i) => `/api/v1/me?at=${1299 - i}`),
    );
    // x's ring turns over: every entry of x older than the cursor rolls off, newer ones come after it
    for (let i = 0; i < CAPACITY; i++) log.record(call(x, 2000 + i));
    const second = await logOf(`limit=100&cursor=${first.nextCursor}`);
    expect(second.entries.map((e: { path: string }) => e.path)).toEqual(
      Array.from({ length: 100 }, (_, i) => `/api/v1/me?at=${1199 - i}`),
    );
  });
});
