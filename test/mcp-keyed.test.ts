// The keyed MCP server end to end, through the SDK's own client over real HTTP: handshake, tool list
// against the contract files, authentication, every seeker tool, errors, the shared wallet and the
// per-minute window shared with the REST API.

import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { limits } from '../src/domain/plans.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { call, connectMcp, contractFiles, rpc, type Connected } from './support/mcp.js';

const TOOL_ERROR_SCHEMA = JSON.parse(
  readFileSync(new URL('../contracts/mcp/tool-error.json', import.meta.url), 'utf8'),
);

const sb = useSandbox({ corpusSize: 400 });
const url = () => `${sb.get().baseUrl}/api/mcp`;

let pro: Connected;
let proKey: string;
let freeKey: string;
let freeTenantId: string;

beforeAll(async () => {
  proKey = (await createTenant(sb.get().baseUrl, { planTier: 'pro' })).apiKey;
  ({ apiKey: freeKey, tenantId: freeTenantId } = await createTenant(sb.get().baseUrl, { planTier: 'free' }));
  pro = await connectMcp(url(), proKey);
});
afterAll(async () => {
  await pro?.close();
});

describe('handshake', () => {
  it('reports protocol 2025-06-18, server remote-jobs 1.0.0 and usage instructions to the SDK client', () => {
    expect(pro.transport.protocolVersion).toBe('2025-06-18');
    expect(pro.client.getServerVersion()).toMatchObject({ name: 'remote-jobs', version: '1.0.0' });
    const instructions = pro.client.getInstructions() ?? '';
    for (const word of [
      'search_jobs',
      'draft_application',
      'apply_url',
      'apply_to_job',
      'payment_required',
      'never reveal',
    ]) {
      expect(instructions).toContain(word);
    }
    expect(pro.client.getServerCapabilities()?.tools).toBeDefined();
  });

  it.each(['2025-11-25', '2025-03-26', '2024-11-05'])('answers 2025-06-18 when a client asks for %s', async (asked) => {
    const res = await rpc(
      url(),
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      },
      { authorization: `Bearer ${proKey}` },
    );
    expect(res.status).toBe(200);
    expect(res.json.result.protocolVersion).toBe('2025-06-18');
    expect(res.json.result.serverInfo.version).toBe('1.0.0');
  });
});

describe('tools/list', () => {
  it('lists exactly the ten contract tools with the contract inputSchemas', async () => {
    const files = contractFiles('keyed');
    const { tools } = await pro.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(files).sort());
    expect(tools).toHaveLength(10);
    for (const t of tools) {
      expect(t.inputSchema, t.name).toEqual(files[t.name].inputSchema);
      expect(t.description, t.name).toBe(files[t.name].description);
    }
  });

  it('advertises output schemas that admit the error result shape', async () => {
    const { tools } = await pro.client.listTools();
    for (const t of tools) {
      expect(t.outputSchema?.type, t.name).toBe('object');
      expect((t.outputSchema as any).anyOf, t.name).toContainEqual(TOOL_ERROR_SCHEMA);
    }
  });
});

describe('authentication', () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

  it('answers 401 with a JSON-RPC error a REST client reads too, and a Bearer challenge, without a key', async () => {
    const res = await rpc(url(), init);
    expect(res.status).toBe(401);
    // JSON-RPC: an integer code, the reason in message; REST: the envelope's code and message (D-92)
    expect(res.json).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32001, data: { code: 'unauthorized', status: 401 } },
    });
    expect(res.json.error.message).toMatch(/missing bearer API key/);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="remote-jobs"$/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    await expect(connectMcp(url())).rejects.toThrow(/401|unauthorized/i);
  });

  it('answers 401 invalid_token for an unknown key and for a key in the query string', async () => {
    const bad = await rpc(url(), init, { authorization: 'Bearer rjk_live_00000000000000000000000000000000' });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const inQuery = await rpc(`${url()}?api_key=${proKey}`, init, { authorization: `Bearer ${proKey}` });
    expect(inQuery.status).toBe(401);
    expect(inQuery.json.error.message).toMatch(/query string/);
  });

  it('answers 403 for a key without the mcp scope and for a disabled tenant', async () => {
    const narrow = await createTenant(sb.get().baseUrl, { planTier: 'pro', scopes: ['jobs', 'market'] });
    const res = await rpc(url(), init, { authorization: `Bearer ${narrow.apiKey}` });
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({ code: -32003, data: { code: 'forbidden', status: 403 } });
    expect(res.json.error.message).toContain("'mcp' scope");
    // its headers are its key's window (pro's size), read and not counted (D-155)
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(limits.spec.jobs.pro.rateLimitPerMinute));
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(limits.spec.jobs.pro.rateLimitPerMinute));
    const off = await createTenant(sb.get().baseUrl, { planTier: 'pro' });
    await client(sb.get().baseUrl, ADMIN_TOKEN)('PATCH', `/sandbox/v1/tenants/${off.tenantId}`, { disabled: true });
    const disabled = await rpc(url(), init, { authorization: `Bearer ${off.apiKey}` });
    expect(disabled.status).toBe(403);
    expect(disabled.headers.get('x-ratelimit-limit')).toBe(String(limits.spec.jobs.pro.rateLimitPerMinute));
  });

  it('answers GET and DELETE with 405 and a JSON-RPC error body', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url(), {
        method,
        headers: { authorization: `Bearer ${proKey}`, accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect((await res.json()).error.code).toBe(-32000);
    }
  });

  it('refuses a browser Origin that is not this sandbox (DNS rebinding)', async () => {
    const res = await rpc(url(), init, { authorization: `Bearer ${proKey}`, origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    const same = await rpc(url(), init, { authorization: `Bearer ${proKey}`, origin: sb.get().baseUrl });
    expect(same.status).toBe(200);
  });
});

describe('seeker tools', () => {
  it('search_jobs answers the REST search shape for the key tier, honouring filters', async () => {
    const r = await call(pro.client, 'search_jobs', { q: 'engineer', remote_type: 'worldwide', limit: 5 });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ tier: 'pro', page: 0 });
    expect(r.data.jobs.length).toBeGreaterThan(0);
    for (const job of r.data.jobs) {
      expect(job.remoteType).toBe('worldwide');
      expect(job.sponsored).toBe(false);
      expect(Object.keys(job).sort()).toHaveLength(14);
    }
    const rest = await client(sb.get().baseUrl, proKey)('GET', '/api/v1/jobs?q=engineer&remote_type=worldwide&limit=5');
    expect(r.data).toEqual(rest.json);
  });

  it('get_job fetches one active job and answers not_found for an unknown id', async () => {
    const first = (await call(pro.client, 'search_jobs', { limit: 1 })).data.jobs[0];
    const r = await call(pro.client, 'get_job', { id: first.id });
    expect(r.data).toEqual(first);
    const missing = await call(pro.client, 'get_job', { id: 'job_doesnotexist' });
    expect(missing.isError).toBe(true);
    expect(missing.data.error.code).toBe('not_found');
    expect(missing.data.error.message).toContain('job_doesnotexist');
  });

  it('get_skill_demand and get_me answer what the REST endpoints answer', async () => {
    const rest = client(sb.get().baseUrl, proKey);
    const skills = await call(pro.client, 'get_skill_demand', { limit: 5 });
    expect(skills.data.skills).toHaveLength(5);
    expect(skills.data).toEqual((await rest('GET', '/api/v1/market/skills?limit=5')).json);
    const me = await call(pro.client, 'get_me');
    expect(me.data).toEqual((await rest('GET', '/api/v1/me')).json);
    expect(me.data.tier).toBe('pro');
  });

  it('answers bad arguments with invalid_request naming the argument, and charges nothing', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['search_jobs', { limit: 0 }, 'limit'],
      ['search_jobs', { remote_type: 'moon' }, 'remote_type'],
      ['search_jobs', { query: 'x' }, 'query'],
      ['get_job', {}, 'id'],
      ['get_skill_demand', { limit: 101 }, 'limit'],
      [
        'apply_to_job',
        { id: 'job_x', candidate_name: 'A', candidate_email: 'a@b.example', message: 'too short' },
        'message',
      ],
    ];
    for (const [tool, args, argument] of cases) {
      const r = await call(pro.client, tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(r.data.error).toMatchObject({ code: 'invalid_request', argument });
      expect(r.data.error.message).toContain(argument);
    }
    expect((await call(pro.client, 'get_me')).data.applyCredits.remaining).toBe(500);
  });

  it('answers an unknown tool with JSON-RPC error -32602', async () => {
    const err = await pro.client.callTool({ name: 'delete_everything', arguments: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain('delete_everything');
  });
});

describe('apply_to_job', () => {
  const body = (id: string) => ({
    id,
    candidate_name: 'Sari Wulandari',
    candidate_email: 'sari@seeker.example',
    message: 'I have four years of customer support experience in English and Bahasa Indonesia.'.padEnd(100, '.'),
  });

  it('refuses the free tier with payment_required and an upgrade link, spending nothing', async () => {
    const free = await connectMcp(url(), freeKey);
    try {
      const id = (await call(free.client, 'search_jobs', { limit: 1 })).data.jobs[0].id;
      const r = await call(free.client, 'apply_to_job', body(id));
      expect(r.isError).toBe(true);
      expect(r.data.error.code).toBe('payment_required');
      expect(r.data.error.upsell.upgradeUrl).toBe(`${sb.get().baseUrl}/app/billing`);
      const apps = await client(sb.get().baseUrl, ADMIN_TOKEN)(
        'GET',
        `/sandbox/v1/applications?tenantId=${freeTenantId}`,
      );
      expect(apps.json.applications).toEqual([]);
    } finally {
      await free.close();
    }
  });

  it('spends the same wallet as REST: one credit per apply over either', async () => {
    const t = await createTenant(sb.get().baseUrl, { planTier: 'starter' });
    const rest = client(sb.get().baseUrl, t.apiKey);
    const mcp = await connectMcp(url(), t.apiKey);
    try {
      const before = (await rest('GET', '/api/v1/me')).json.applyCredits.remaining;
      const [a, b] = (await call(mcp.client, 'search_jobs', { limit: 2 })).data.jobs;
      const viaMcp = await call(mcp.client, 'apply_to_job', body(a.id));
      expect(viaMcp.isError).toBe(false);
      expect(viaMcp.data.creditsRemaining).toBe(before - 1);
      expect((await rest('GET', '/api/v1/me')).json.applyCredits.remaining).toBe(before - 1);
      const { id: _id, ...restBody } = body(b.id);
      expect((await rest('POST', `/api/v1/jobs/${b.id}/apply`, restBody)).status).toBe(200);
      expect((await call(mcp.client, 'get_me')).data.applyCredits.remaining).toBe(before - 2);
      if (viaMcp.data.status === 'submitted') {
        const apps = await client(sb.get().baseUrl, ADMIN_TOKEN)(
          'GET',
          `/sandbox/v1/applications?tenantId=${t.tenantId}`,
        );
        expect(apps.json.applications.find((x: any) => x.applicationId === viaMcp.data.applicationId)?.channel).toBe(
          'mcp',
        );
      } else {
        expect(viaMcp.data.applyUrl).toBe(a.applyUrl);
      }
    } finally {
      await mcp.close();
    }
  });

  it('needs the apply scope; employer tools need the employer scope', async () => {
    const t = await createTenant(sb.get().baseUrl, { planTier: 'pro', scopes: ['mcp', 'jobs'] });
    const mcp = await connectMcp(url(), t.apiKey);
    try {
      const id = (await call(mcp.client, 'search_jobs', { limit: 1 })).data.jobs[0].id;
      const apply = await call(mcp.client, 'apply_to_job', body(id));
      expect(apply.data.error).toMatchObject({ code: 'forbidden' });
      expect(apply.data.error.message).toContain("'apply' scope");
      for (const [tool, args] of [
        ['match_candidates', { skills: ['Go'] }],
        ['talent_search', { query: 'backend' }],
        [
          'post_job',
          { title: 'Dev', company: 'Acme', description: 'x'.repeat(60), apply_url: 'https://acme.example/a' },
        ],
        ['hire', { brief: 'backend engineer with Go', company: 'Acme', contact_email: 'hr@acme.example' }],
      ] as const) {
        const r = await call(mcp.client, tool, args);
        expect(r.data.error?.code, tool).toBe('forbidden');
        expect(r.data.error.message).toContain("'employer' scope");
      }
      expect((await call(mcp.client, 'get_me')).data.applyCredits.remaining).toBe(500);
    } finally {
      await mcp.close();
    }
  });
});

describe('rate limit shared with REST', () => {
  it('counts each tools/call in the per-minute window, sends X-RateLimit-* and refuses past it', async () => {
    const t = await createTenant(sb.get().baseUrl, { planTier: 'free' });
    const rest = client(sb.get().baseUrl, t.apiKey);
    const auth = { authorization: `Bearer ${t.apiKey}` };
    const callMe = (id: number) =>
      rpc(url(), { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_me', arguments: {} } }, auth);

    const first = await callMe(1);
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(Number(first.headers.get('x-ratelimit-remaining'))).toBe(59);
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    const list = await rpc(url(), { jsonrpc: '2.0', id: 2, method: 'tools/list' }, auth);
    expect(list.headers.get('x-ratelimit-remaining')).toBe('59');
    const viaRest = await rest('GET', '/api/v1/me');
    expect(viaRest.headers.get('x-ratelimit-remaining')).toBe('58');

    let last = first;
    for (let i = 0; i < 58; i++) last = await callMe(10 + i);
    expect(last.json.result.isError).toBeUndefined();
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');
    const over = await callMe(99);
    expect(over.status).toBe(200);
    expect(over.json.result.isError).toBe(true);
    expect(over.json.result.structuredContent.error.code).toBe('rate_limited');
    expect(over.json.result.structuredContent.error.retryAfter).toBeGreaterThanOrEqual(1);
    expect((await rest('GET', '/api/v1/me')).status).toBe(429);

    await client(sb.get().baseUrl, ADMIN_TOKEN)('POST', '/sandbox/v1/clock/advance', { seconds: 61 });
    const again = await callMe(100);
    expect(again.json.result.isError).toBeUndefined();
    expect(again.json.result.structuredContent.tier).toBe('free');
  });
});
