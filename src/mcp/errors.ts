// The one place a domain error becomes an MCP tool error result: isError true, structuredContent
// { error: { code, message, … } } (contracts/mcp/tool-error.json) and the same JSON as text content.

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DomainError } from '../errors/errors.js';

export interface ToolErrorBody {
  error: {
    code: string;
    message: string;
    argument?: string;
    retryAfter?: number;
    upsell?: { upgradeUrl: string; freeScreenCap?: number };
  };
}

export function toolErrorBody(err: DomainError): ToolErrorBody {
  const body: ToolErrorBody = { error: { code: err.code, message: err.message } };
  if (err.details.field) body.error.argument = err.details.field;
  if (err.details.retryAfter !== undefined) body.error.retryAfter = err.details.retryAfter;
  if (err.details.upsell) body.error.upsell = err.details.upsell;
  return body;
}

/** Maps anything a tool threw; unknown errors become `internal` (and are logged, never leaked). */
export function toToolError(err: unknown): CallToolResult {
  let de: DomainError;
  if (err instanceof DomainError) de = err;
  else {
    console.error('MCP tool failed', err);
    de = new DomainError('internal', 'internal error');
  }
  const body = toolErrorBody(de);
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}

/** A successful result: the value as structuredContent and as JSON text. */
export function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}
