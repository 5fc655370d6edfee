// JSON-RPC checks made before a message reaches the SDK, for answers the protocol revision this
// server reports (2025-06-18) requires and the SDK does not give: batches (removed in 2025-06-18) and
// `[]` refused with -32600, and a malformed tools/call (no tool name, arguments not an object) answered
// -32602 with a message naming the problem instead of -32603 and a validation dump. Also the one
// JSON-RPC error body the HTTP-level refusals of both MCP endpoints use (D-92).

import type { DomainError } from '../errors/errors.js';
import { PROTOCOL_VERSION } from './instructions.js';

type Id = string | number | null;

export const rpcErrorBody = (id: Id, code: number, message: string, data?: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });

const rpcError = (status: number, id: Id, code: number, message: string) =>
  new Response(rpcErrorBody(id, code, message), { status, headers: { 'Content-Type': 'application/json' } });

/** JSON-RPC server-error codes of the HTTP refusals: -32001 unauthorized, -32003 forbidden, … */
const HTTP_RPC_CODE: Record<string, number> = {
  unauthorized: -32001,
  forbidden: -32003,
  rate_limited: -32029,
  not_found: -32004,
};

/**
 * An HTTP-level refusal of an MCP endpoint (401, 403) as a JSON-RPC error response that a REST client
 * reads too: `error.message` is the envelope's message, `error.data` carries the envelope's string
 * code (and HTTP status), `error.code` is a JSON-RPC integer so JSON-RPC clients can parse it.
 */
export function refusalBody(err: DomainError): string {
  return rpcErrorBody(null, HTTP_RPC_CODE[err.code] ?? -32000, err.message, { code: err.code, status: err.status });
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function idOf(msg: Record<string, unknown>): Id {
  const id = msg.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

export const refusalResponse = (err: DomainError) =>
  new Response(refusalBody(err), { status: err.status, headers: { 'Content-Type': 'application/json' } });

/** What is wrong with a tools/call's params, or null. */
export function toolsCallProblem(params: unknown): string | null {
  if (!isObject(params))
    return 'tools/call needs params: an object with the tool name in `name` and its arguments in `arguments`';
  if (!('name' in params))
    return 'tools/call params have no `name`: give the name of the tool to call (tools/list lists them)';
  if (typeof params.name !== 'string' || params.name === '')
    return `tools/call params.name must be a non-empty string naming the tool, not ${JSON.stringify(params.name)}`;
  if (params.arguments !== undefined && !isObject(params.arguments)) {
    return `tools/call params.arguments must be an object of named arguments, not ${Array.isArray(params.arguments) ? 'an array' : JSON.stringify(params.arguments)}`;
  }
  return null;
}

/** A JSON-RPC answer for a message the SDK would mishandle, or null to let the SDK serve it. */
export function gateMessage(parsed: unknown): Response | null {
  if (Array.isArray(parsed)) {
    return rpcError(
      400,
      null,
      -32600,
      `Invalid Request: JSON-RPC batches are not supported in protocol revision ${PROTOCOL_VERSION}; send one message per POST`,
    );
  }
  if (isObject(parsed) && parsed.method === 'tools/call' && 'id' in parsed) {
    const problem = toolsCallProblem(parsed.params);
    if (problem) return rpcError(200, idOf(parsed), -32602, `Invalid params: ${problem}`);
  }
  return null;
}

/** Reads at most `max` bytes of the body; null when it is longer. */
async function readLimited(req: Request, max: number): Promise<string | null> {
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const acceptsBoth = (req: Request) => {
  const accept = req.headers.get('accept') ?? '';
  return accept.includes('application/json') && accept.includes('text/event-stream');
};

/**
 * For a POST the SDK would parse: either the gate's own answer, or the parsed body to hand the SDK
 * (`parsedBody`), or nothing (let the SDK answer: wrong headers, unparsable JSON, too large).
 */
export async function gate(
  req: Request,
  maxBytes: number,
): Promise<{ answer?: Response; parsedBody?: unknown; req: Request }> {
  const type = (req.headers.get('content-type') ?? '').toLowerCase();
  if (req.method !== 'POST' || !acceptsBoth(req) || !type.startsWith('application/json')) return { req };
  const text = await readLimited(req, maxBytes);
  const rebuilt = new Request(req.url, { method: 'POST', headers: req.headers, body: text ?? '' });
  if (text === null) {
    return {
      req,
      answer: rpcError(413, null, -32000, `Payload Too Large: the request body exceeds ${maxBytes} bytes`),
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { req: rebuilt };
  }
  const answer = gateMessage(parsed);
  return answer ? { req: rebuilt, answer } : { req: rebuilt, parsedBody: parsed };
}
