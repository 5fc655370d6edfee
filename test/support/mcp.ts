// MCP test helpers: the SDK's own Client over Streamable HTTP against a running sandbox, and the
// structured content of a tool result.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

/** Connects (initialize + initialized) with the bearer key on every request, when given. */
export async function connectMcp(url: string, apiKey?: string): Promise<Connected> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: apiKey ? { headers: { authorization: `Bearer ${apiKey}` } } : undefined,
  });
  const client = new Client({ name: 'sandbox-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

export interface ToolOutcome {
  isError: boolean;
  data: any;
  text: string;
}

/** Calls a tool and returns its structuredContent (and checks the text content says the same). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as { type: string; text: string }[];
  const text = content.find((x) => x.type === 'text')?.text ?? '';
  if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(r.structuredContent)) {
    throw new Error(`text content of ${name} differs from its structuredContent`);
  }
  return { isError: r.isError === true, data: r.structuredContent, text };
}

/** A raw JSON-RPC POST (no SDK), for HTTP-level assertions. */
export async function rpc(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

const MCP_DIR = fileURLToPath(new URL('../../contracts/mcp/', import.meta.url));

/** The contract files of one server, by tool name. */
/**
 * The tool files of contracts/mcp/<server>/, read straight from disk. An inputSchema that takes its
 * properties from an OpenAPI component (`x-propertiesFrom`) gets them merged in, as a client sees it in
 * tools/list.
 */
export function contractFiles(
  server: 'keyed' | 'anon',
): Record<string, { name: string; description: string; inputSchema: unknown }> {
  return Object.fromEntries(
    readdirSync(`${MCP_DIR}${server}`)
      .filter((f) => f.endsWith('.json'))
      .map((f) => {
        const doc = JSON.parse(readFileSync(`${MCP_DIR}${server}/${f}`, 'utf8'));
        return [doc.name, { ...doc, inputSchema: withPropertiesFrom(doc.inputSchema) }];
      }),
  );
}

function withPropertiesFrom(input: Record<string, any>): Record<string, any> {
  const ref = input['x-propertiesFrom'];
  if (ref === undefined) return input;
  const [file, pointer] = String(ref).split('#/components/schemas/');
  const from = parse(readFileSync(`${MCP_DIR}../${file}`, 'utf8')).components.schemas[pointer] as Record<string, any>;
  const { 'x-propertiesFrom': _ref, ...own } = input;
  return {
    ...own,
    properties: { ...own.properties, ...from.properties },
    required: [...(own.required ?? []), ...(from.required ?? [])],
  };
}
