// Test helpers for the alternate deployment: a webhook receiver, keyed HTTP calls and an SDK MCP client.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface Hook {
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: any;
}

export interface Receiver {
  url: string;
  hooks: Hook[];
  /** Resolves once `pred` holds for the received hooks (polling the in-memory list). */
  until(pred: (hooks: Hook[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Collects deliveries; the first `refuse` attempts are answered 500 (and still recorded). */
export async function startReceiver(refuse = 0): Promise<Receiver> {
  const hooks: Hook[] = [];
  let refused = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      hooks.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(refused++ < refuse ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    hooks,
    until: (pred, timeoutMs = 10_000) => waitFor(() => pred(hooks), timeoutMs),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function waitFor(pred: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(base: string, key: string | undefined, path: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(base + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keeps the text */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

let n = 0;
export function submitBody(over: Record<string, unknown> = {}) {
  return {
    idempotencyKey: `idem-${Date.now()}-${n++}`,
    candidate: { kind: 'structured', fullName: 'Dewi Lestari', skills: ['Python', 'SQL'], experienceYears: 4 },
    jobSpec: { title: 'Data Engineer', mustHaves: ['python', 'sql'] },
    ...over,
  };
}

export async function connectMcp(url: string, key?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
  });
  const client = new Client({ name: 'alt-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

export async function tool(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, data: r.structuredContent as any };
}
