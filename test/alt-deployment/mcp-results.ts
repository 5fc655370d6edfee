// Tool results for both MCP servers: JSON text plus structured content, and errors as isError results.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpError } from './http.js';

export function ok(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

export function toolError(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  const error = { code, message, ...extra };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}

/** Runs a tool body; a refusal thrown as an HttpError becomes a tool error with the same code. */
export async function guard(
  fn: () => Record<string, unknown> | Promise<Record<string, unknown> | CallToolResult>,
): Promise<CallToolResult> {
  try {
    const r = await fn();
    return 'content' in r && Array.isArray(r.content) ? (r as CallToolResult) : ok(r);
  } catch (e) {
    if (e instanceof HttpError) return toolError(e.code, e.message, e.extra);
    return toolError('internal', 'internal error');
  }
}
