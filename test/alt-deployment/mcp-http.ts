// Streamable HTTP glue for both MCP servers: one stateless server and transport per POST.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { fail, readRaw } from './http.js';

/** Reads a JSON-RPC body; an unparsable one is left for the transport to refuse with a JSON-RPC parse error. */
export async function readRpc(req: IncomingMessage): Promise<unknown> {
  const raw = await readRaw(req, 1 << 20);
  try {
    return JSON.parse(raw);
  } catch {
    throw fail(400, 'body: not valid JSON-RPC');
  }
}

/** Number of tools/call messages in a JSON-RPC body (single or batch). */
export function toolCalls(body: unknown): number {
  const msgs = Array.isArray(body) ? body : [body];
  return msgs.filter((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'tools/call')
    .length;
}

export async function serveMcp(
  server: McpServer,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

export function methodNotAllowed(res: ServerResponse): void {
  res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this stateless server takes POST only' },
      id: null,
    }),
  );
}
