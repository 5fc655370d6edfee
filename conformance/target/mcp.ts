// MCP access for the checks: the SDK's own client over Streamable HTTP (what integrators use), plus a
// raw JSON-RPC POST for the wire-level facts the SDK hides (HTTP status, negotiated protocol version).
// Results are recorded as exchanges so MCP failures carry evidence like HTTP ones.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { headersToRecord, maskSecret, parseJson, send, type Exchange } from './http.js';
import type { RateGovernor } from './rate-governor.js';
import type { Answer } from '../json.js';

export interface McpSession {
  client: Client;
  url: string;
  /** Calls a tool and records the call as an exchange (JSON-RPC errors are returned, not thrown). */
  callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ result?: Answer; rpcError?: { code?: number; message: string }; exchange: Exchange }>;
  listTools(): Promise<{ tools: Answer[]; exchange: Exchange }>;
  close(): Promise<void>;
}

function record(
  url: string,
  key: string | undefined,
  method: string,
  params: unknown,
  outcome: unknown,
  durationMs: number,
  error?: string,
): Exchange {
  return {
    request: {
      method: 'POST',
      url,
      headers: key ? { authorization: maskSecret(`Bearer ${key}`) } : {},
      body: JSON.stringify({ jsonrpc: '2.0', method, params }),
    },
    ...(error === undefined
      ? { response: { status: 200, headers: {}, body: JSON.stringify(outcome), json: outcome } }
      : { error }),
    durationMs,
  };
}

/**
 * A fetch for the SDK transport that waits for the key's rate window and retries a 429 after its
 * Retry-After (a keyed MCP call counts in the same window as REST), so the harness's own pace never
 * shows up as a tool failure.
 */
function pacedFetch(governor: RateGovernor, credential: string | undefined): typeof fetch {
  return async (input, init) => {
    for (let attempt = 0; ; attempt++) {
      const ticket = credential ? await governor.beforeCall(credential, 'mcp') : undefined;
      let res: Response;
      try {
        res = await fetch(input, init);
      } finally {
        governor.release(ticket);
      }
      const headers = headersToRecord(res.headers);
      if (credential) governor.observe(credential, res.status, headers, 'mcp');
      if (res.status !== 429 || attempt >= 3) return res;
      governor.retries++;
      await governor.pause(governor.retryDelay(headers));
    }
  };
}

export async function connectMcp(
  url: string,
  key?: string,
  timeoutMs = 15_000,
  governor?: RateGovernor,
): Promise<McpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
    ...(governor ? { fetch: pacedFetch(governor, key ? `Bearer ${key}` : undefined) } : {}),
  });
  const client = new Client({ name: 'conformance-harness', version: '1.0.0' });
  await client.connect(transport, { timeout: timeoutMs });
  return {
    client,
    url,
    async callTool(name, args) {
      const t0 = performance.now();
      try {
        const result = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
        return {
          result,
          exchange: record(
            url,
            key,
            'tools/call',
            { name, arguments: args },
            { result },
            Math.round(performance.now() - t0),
          ),
        };
      } catch (e) {
        const err = e as { code?: number; message: string };
        const rpcError = { ...(typeof err.code === 'number' ? { code: err.code } : {}), message: err.message };
        return {
          rpcError,
          exchange: record(
            url,
            key,
            'tools/call',
            { name, arguments: args },
            { error: rpcError },
            Math.round(performance.now() - t0),
          ),
        };
      }
    },
    async listTools() {
      const t0 = performance.now();
      const res = await client.listTools(undefined, { timeout: timeoutMs });
      return {
        tools: res.tools,
        exchange: record(url, key, 'tools/list', {}, { result: res }, Math.round(performance.now() - t0)),
      };
    },
    async close() {
      await client.close().catch(() => {});
    },
  };
}

/** Reads a JSON-RPC message from a JSON or an SSE (text/event-stream) response body. */
export function rpcMessageOf(ex: Exchange): Answer {
  const res = ex.response;
  if (!res) return undefined;
  if (res.json !== undefined) return res.json;
  if ((res.headers['content-type'] ?? '').includes('text/event-stream')) {
    for (const block of res.body.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      const msg = parseJson(data);
      if (msg && typeof msg === 'object' && ('result' in msg || 'error' in msg)) return msg;
    }
  }
  return undefined;
}

export interface RawRpcOptions {
  key?: string;
  authorization?: string;
  protocolVersion?: string;
  timeoutMs?: number;
}

/** One raw JSON-RPC request over Streamable HTTP (POST with both accepted content types). */
export async function rawRpc(
  url: string,
  method: string,
  params: unknown,
  opts: RawRpcOptions = {},
): Promise<{ exchange: Exchange; message: Answer }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  else if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.protocolVersion) headers['mcp-protocol-version'] = opts.protocolVersion;
  const exchange = await send(
    { method: 'POST', url, headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) },
    opts.timeoutMs ?? 15_000,
  );
  return { exchange, message: rpcMessageOf(exchange) };
}

export const initializeParams = (protocolVersion: string) => ({
  protocolVersion,
  capabilities: {},
  clientInfo: { name: 'conformance-harness', version: '1.0.0' },
});

/** Structured content of a tool result, else the JSON of its first text block. */
export function toolPayload(result: Answer): Answer {
  if (result?.structuredContent !== undefined) return result.structuredContent;
  const text = Array.isArray(result?.content)
    ? result.content.find((c: Answer) => c?.type === 'text')?.text
    : undefined;
  return typeof text === 'string' ? parseJson(text) : undefined;
}
