// Both MCP servers as clients nobody here wrote see them: raw JSON-RPC over fetch (no SDK, none of this
// project's code on the client side) for tools/list annotations, protocol error codes, batches, the
// 401/403 body and CORS preflights; and the SDK client for the message a TypeScript agent shows.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, useSandbox } from './support/sandbox.js';
import { connectMcp, contractFiles, rpc, type Connected } from './support/mcp.js';

const sb = useSandbox({ corpusSize: 2000 });
let key: string;
const servers = () => [
  { name: 'keyed' as const, url: `${sb.get().baseUrl}/api/mcp`, headers: { authorization: `Bearer ${key}` } },
  { name: 'anon' as const, url: sb.get().anonMcpUrl, headers: {} as Record<string, string> },
];

beforeAll(async () => {
  key = (
    await createTenant(sb.get().baseUrl, {
      planTier: 'pro',
      scopes: ['jobs', 'market', 'mcp', 'apply', 'employer', 'screening'],
    })
  ).apiKey;
});

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const ACTING = ['apply_to_job', 'post_job', 'hire'];

describe.each(['keyed', 'anon'] as const)('%s server over raw JSON-RPC', (which) => {
  const server = () => servers().find((s) => s.name === which)!;
  const post = (body: unknown, extra: Record<string, string> = {}) =>
    rpc(server().url, body, { ...server().headers, ...extra });

  it('lists every tool with a title and all four annotations, as its contract file gives them', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(res.status).toBe(200);
    const tools = res.json.result.tools as any[];
    const files = contractFiles(which) as Record<string, any>;
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(files).sort());
    for (const t of tools) {
      expect(typeof t.title, t.name).toBe('string');
      expect(t.title.length, t.name).toBeGreaterThan(3);
      expect(Object.keys(t.annotations).sort(), t.name).toEqual([...HINTS].sort());
      expect(t.annotations, t.name).toEqual(files[t.name].annotations);
      expect(t.title, t.name).toBe(files[t.name].title);
      // the tools that act say so; every other tool reads only
      if (ACTING.includes(t.name))
        expect(t.annotations, t.name).toMatchObject({
          readOnlyHint: false,
          openWorldHint: true,
          idempotentHint: false,
        });
      else if (t.name !== 'draft_application') expect(t.annotations.readOnlyHint, t.name).toBe(true);
      expect(t.annotations.destructiveHint, t.name).toBe(false);
    }
  });

  it('answers a tools/call without a name with -32602 naming the problem', async () => {
    for (const params of [{}, { arguments: {} }, { name: 7 }, { name: 'search_jobs', arguments: [1] }, undefined]) {
      const res = await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', ...(params ? { params } : {}) });
      expect(res.json?.id, JSON.stringify(params)).toBe(9);
      expect(res.json?.error?.code, `${JSON.stringify(params)}: ${res.text}`).toBe(-32602);
      expect(res.json.error.message).toMatch(/params|name|arguments/);
      expect(res.json.error.message).not.toMatch(/"expected"|invalid_type|\[\s*\{/);
    }
  });

  it('answers an unknown tool with -32602 whose message carries no "MCP error" prefix of its own', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'no_such_tool', arguments: {} },
    });
    expect(res.json.error).toEqual({ code: -32602, message: 'Unknown tool: no_such_tool' });
  });

  it('refuses JSON-RPC batches (removed in 2025-06-18), the empty one too, with a JSON-RPC error', async () => {
    for (const batch of [
      [],
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ],
    ]) {
      const res = await post(batch);
      expect(res.status, JSON.stringify(batch)).toBe(400);
      expect(res.json).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(res.json.error.message).toMatch(/batch/i);
    }
    // a single message still works
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'ping' })).json).toMatchObject({ id: 1, result: {} });
  });

  it('serves its server card at /.well-known/mcp/server-card.json as at /.well-known/mcp.json', async () => {
    const origin = new URL(server().url).origin;
    const card = await fetch(`${origin}/.well-known/mcp/server-card.json`);
    expect(card.status).toBe(200);
    const same = await fetch(`${origin}/.well-known/mcp.json`);
    expect(await card.json()).toEqual(await same.json());
  });
});

describe('the keyed server refusing a call', () => {
  it('answers 401 and 403 with a body a JSON-RPC client and a REST client both read', async () => {
    const url = `${sb.get().baseUrl}/api/mcp`;
    const narrow = (await createTenant(sb.get().baseUrl, { planTier: 'pro', scopes: ['jobs'] })).apiKey;
    for (const [headers, status, code, rpcCode] of [
      [{}, 401, 'unauthorized', -32001],
      [{ authorization: 'Bearer rjk_live_00000000000000000000000000000000' }, 401, 'unauthorized', -32001],
      [{ authorization: `Bearer ${narrow}` }, 403, 'forbidden', -32003],
    ] as const) {
      const res = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }, headers);
      expect(res.status).toBe(status);
      // JSON-RPC 2.0 error response: integer code, string message
      expect(res.json.jsonrpc).toBe('2.0');
      expect(res.json.error.code).toBe(rpcCode);
      expect(Number.isInteger(res.json.error.code)).toBe(true);
      // what a REST client reads: the envelope's message and its string code
      expect(res.json.error.message.length).toBeGreaterThan(10);
      expect(res.json.error.data.code).toBe(code);
    }
  });
});

describe('the SDK client (what a TypeScript agent shows)', () => {
  let conn: Connected;
  beforeAll(async () => {
    conn = await connectMcp(`${sb.get().baseUrl}/api/mcp`, key);
  });
  afterAll(async () => {
    await conn?.close();
  });

  it('reads an unknown tool as "MCP error -32602: Unknown tool …" once', async () => {
    const err = await conn.client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toBe('MCP error -32602: Unknown tool: no_such_tool');
  });
});

describe('CORS preflights', () => {
  const preflight = (url: string, method: string, headers = 'authorization, content-type') =>
    fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://docs.partner.example',
        'access-control-request-method': method,
        'access-control-request-headers': headers,
      },
    });

  it('are answered without a key on the anonymous server, the discovery documents and the APIs the docs call', async () => {
    const b = sb.get().baseUrl;
    for (const [url, method] of [
      [sb.get().anonMcpUrl, 'POST'],
      [`${b}/api/openapi.json`, 'GET'],
      [`${b}/.well-known/mcp.json`, 'GET'],
      [`${b}/llms.txt`, 'GET'],
      [`${b}/docs/screening.json`, 'GET'],
      [`${b}/api/v1/jobs`, 'GET'],
      [`${b}/api/screening/v1/screen`, 'POST'],
    ] as const) {
      const res = await preflight(url, method);
      expect(res.status, url).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), url).toBe('*');
      expect(res.headers.get('access-control-allow-methods'), url).toContain(method);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase(), url).toContain('authorization');
    }
  });

  it('let a page on another origin read a keyed REST answer and its rate headers', async () => {
    const res = await fetch(`${sb.get().baseUrl}/api/v1/jobs?limit=1`, {
      headers: { origin: 'https://docs.partner.example', authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
  });

  it('leave the keyed MCP server behind its Origin check', async () => {
    const res = await rpc(
      `${sb.get().baseUrl}/api/mcp`,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: `Bearer ${key}`, origin: 'https://docs.partner.example' },
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('anonymous search_jobs', () => {
  it('finds jobs for the example query its own contract gives', async () => {
    const description = (contractFiles('anon').search_jobs.inputSchema as any).properties.query.description as string;
    const example = /e\.g\. '([^']+)'/.exec(description)?.[1];
    expect(example).toBeTruthy();
    const res = await rpc(sb.get().anonMcpUrl, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_jobs', arguments: { query: example } },
    });
    expect(res.json.result.isError).toBeFalsy();
    expect(res.json.result.structuredContent.jobs.length).toBeGreaterThan(0);
  });

  it('promises nothing about locale that it does not do', async () => {
    for (const which of ['keyed', 'anon'] as const) {
      const desc = (contractFiles(which).search_jobs.inputSchema as any).properties.locale.description as string;
      expect(desc).not.toMatch(/language of the listing/i);
      expect(desc).toMatch(/does not change/i);
    }
    const args = (locale: string) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_jobs', arguments: { query: 'engineer', limit: 5, locale } },
    });
    const id = await rpc(sb.get().anonMcpUrl, args('id'));
    const en = await rpc(sb.get().anonMcpUrl, args('en'));
    expect(id.json.result.structuredContent).toEqual(en.json.result.structuredContent);
  });
});
