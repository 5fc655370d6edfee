// The anonymous MCP server end to end: no key, three read-only tools with their own argument names,
// the GET discovery document, the planted bug that exposes apply_to_job, and the per-IP daily limit.

import { request as httpRequest } from 'node:http';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client, useSandbox } from './support/sandbox.js';
import { call, connectMcp, contractFiles, rpc, type Connected } from './support/mcp.js';

const sb = useSandbox({ corpusSize: 400 });
const admin = () => client(sb.get().baseUrl, ADMIN_TOKEN);

let anon: Connected;
beforeAll(async () => {
  anon = await connectMcp(sb.get().anonMcpUrl);
});
afterAll(async () => {
  await anon?.close();
});

describe('anonymous server', () => {
  it('needs no key and pins protocol 2025-06-18', () => {
    expect(anon.transport.protocolVersion).toBe('2025-06-18');
    expect(anon.client.getServerVersion()).toMatchObject({ name: 'remote-jobs-public', version: '1.0.0' });
    expect(anon.client.getInstructions()).toMatch(/read-only/);
  });

  it('lists exactly search_jobs, get_job and get_curated_list with the contract inputSchemas', async () => {
    const files = contractFiles('anon');
    const { tools } = await anon.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['get_curated_list', 'get_job', 'search_jobs']);
    for (const t of tools) expect(t.inputSchema, t.name).toEqual(files[t.name].inputSchema);
    expect(Object.keys((tools.find((t) => t.name === 'search_jobs')!.inputSchema as any).properties)).toContain(
      'query',
    );
    expect((tools.find((t) => t.name === 'get_job')!.inputSchema as any).required).toEqual(['job_id']);
  });

  it('has none of the keyed server’s other tools', async () => {
    for (const name of [
      'apply_to_job',
      'draft_application',
      'get_me',
      'get_skill_demand',
      'match_candidates',
      'talent_search',
      'post_job',
      'hire',
    ]) {
      const err = await anon.client.callTool({ name, arguments: {} }).catch((e) => e);
      expect(err, name).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(-32602);
    }
  });

  it('searches with free-tier rules under `query`, and reads a job by `job_id`', async () => {
    const r = await call(anon.client, 'search_jobs', { query: 'engineer', limit: 10 });
    expect(r.isError).toBe(false);
    expect(r.data.tier).toBe('free');
    const job = r.data.jobs.find((j: any) => !j.sponsored) ?? r.data.jobs[0];
    const one = await call(anon.client, 'get_job', { job_id: job.id });
    expect(one.data.id).toBe(job.id);
    expect(one.data.applyUrl).toBe(job.applyUrl);
    const keyedName = await call(anon.client, 'search_jobs', { q: 'engineer' });
    expect(keyedName.data.error).toMatchObject({ code: 'invalid_request', argument: 'q' });
    const pastCap = await call(anon.client, 'search_jobs', { limit: 10, offset: 50 });
    expect(pastCap.data.error.code).toBe('payment_required');
  });

  it('serves the curated AI-data-work list, filtered by category', async () => {
    const all = await call(anon.client, 'get_curated_list');
    expect(all.data.platforms.length).toBeGreaterThanOrEqual(5);
    for (const p of all.data.platforms) expect(new URL(p.url).hostname).toMatch(/\.example$/);
    const rlhf = await call(anon.client, 'get_curated_list', { category: 'rlhf' });
    expect(rlhf.data.platforms.length).toBeGreaterThan(0);
    expect(rlhf.data.platforms.length).toBeLessThan(all.data.platforms.length);
    for (const p of rlhf.data.platforms) expect(p.categories).toContain('rlhf');
    const bad = await call(anon.client, 'get_curated_list', { category: 'crypto' });
    expect(bad.data.error).toMatchObject({ code: 'invalid_request', argument: 'category' });
  });

  it('answers GET /mcp with its discovery document, matching tools/list', async () => {
    const res = await fetch(sb.get().anonMcpUrl);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.serverInfo).toMatchObject({ name: 'remote-jobs-public', version: '1.0.0' });
    expect(doc.transport).toEqual({ type: 'streamable-http', endpoint: sb.get().anonMcpUrl });
    expect(doc.authentication.required).toBe(false);
    expect(doc.rateLimit).toMatchObject({ limit: 500, window: 'day', scope: 'client IP' });
    const { tools } = await anon.client.listTools();
    expect(doc.tools).toEqual(
      tools.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        annotations: t.annotations,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
      })),
    );
    const stream = await fetch(sb.get().anonMcpUrl, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(405);
  });

  it('lists apply_to_job only while the planted bug anon_exposes_apply is on', async () => {
    expect((await admin()('PUT', '/sandbox/v1/bugs/anon_exposes_apply')).status).toBe(200);
    try {
      const { tools } = await anon.client.listTools();
      expect(tools.map((t) => t.name)).toContain('apply_to_job');
      expect((await (await fetch(sb.get().anonMcpUrl)).json()).tools.map((t: any) => t.name)).toContain('apply_to_job');
    } finally {
      await admin()('DELETE', '/sandbox/v1/bugs/anon_exposes_apply');
    }
    expect((await anon.client.listTools()).tools.map((t) => t.name)).not.toContain('apply_to_job');
  });

  it('refuses a Host that is not this sandbox (DNS rebinding), and serves any Origin (public, read-only)', async () => {
    const { port } = new URL(sb.get().anonMcpUrl);
    const rebound = await rawPost(Number(port), 'evil.example.com', 'http://evil.example.com');
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error).toMatchObject({ code: -32003, data: { code: 'forbidden' } });
    const page = await rpc(
      sb.get().anonMcpUrl,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { origin: 'https://agent.example' },
    );
    expect(page.status).toBe(200);
    expect(page.headers.get('access-control-allow-origin')).toBe('*');
  });
});

/** A POST with a chosen Host header (fetch does not let a caller set Host). */
function rawPost(port: number, host: string, origin: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { host, origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('per-IP daily limit', () => {
  it('allows 500 tool calls per day per IP, then rate_limited until 00:00 UTC', async () => {
    // start from a fresh UTC day so every call of this test lands in one window
    const now = Date.parse((await admin()('GET', '/sandbox/v1/clock')).json.now);
    await admin()('POST', '/sandbox/v1/clock/advance', {
      seconds: Math.ceil((86_400_000 - (now % 86_400_000)) / 1000) + 1,
    });
    const body = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'get_curated_list', arguments: { category: 'coding' } },
    });
    // listing and discovery are not tool calls and do not count
    await anon.client.listTools();
    const before = await fetch(sb.get().anonMcpUrl);
    expect(before.headers.get('x-ratelimit-remaining')).toBe('500');
    let last: Awaited<ReturnType<typeof rpc>> | undefined;
    for (let i = 1; i <= 500; i++) {
      last = await rpc(sb.get().anonMcpUrl, body(i));
      if (last.json?.result?.isError) throw new Error(`call ${i} failed: ${last.text}`);
    }
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    const over = await call(anon.client, 'get_curated_list');
    expect(over.isError).toBe(true);
    expect(over.data.error.code).toBe('rate_limited');
    expect(over.data.error.retryAfter).toBeGreaterThan(0);
    expect(over.data.error.retryAfter).toBeLessThanOrEqual(86_400);
    await admin()('POST', '/sandbox/v1/clock/advance', { seconds: over.data.error.retryAfter });
    const next = await call(anon.client, 'get_curated_list');
    expect(next.isError).toBe(false);
  });
});
