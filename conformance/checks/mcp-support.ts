// Shared pieces of the MCP checks: connecting with the SDK client (a failed connection is a violation of
// the given requirement, with the error as evidence), reading tool payloads, telling tool errors apart.

import type { CheckContext } from '../check.js';
import { violation } from '../failure.js';
import type { Exchange } from '../target/http.js';
import { connectMcp, toolPayload, type McpSession } from '../target/mcp.js';
import type { Answer } from '../json.js';

/** Connects the SDK client; its HTTP calls share the harness's pacing of each key (and retry a 429). */
export async function connect(
  ctx: CheckContext,
  url: string,
  key: string | undefined,
  requirement: string,
  what: string,
): Promise<McpSession> {
  try {
    return await connectMcp(url, key, ctx.config.requestTimeoutMs, ctx.target.governor);
  } catch (e) {
    const ev: Exchange = {
      request: { method: 'POST', url, headers: {}, body: 'initialize' },
      error: (e as Error).message,
      durationMs: 0,
    };
    throw violation(requirement, `${what}: the MCP SDK client could not connect: ${(e as Error).message}`, ev);
  }
}

/** True when a tool call failed (an isError result or a JSON-RPC error). */
export const failed = (r: { result?: Answer; rpcError?: unknown }) =>
  r.rpcError !== undefined || r.result?.isError === true;

/** The first array of objects having all `keys`, searched depth-first in a payload. */
export function findList(payload: unknown, keys: string[]): Answer[] | null {
  if (Array.isArray(payload)) {
    if (payload.length && payload.every((x) => x && typeof x === 'object' && keys.every((k) => k in x))) return payload;
    for (const x of payload) {
      const f = findList(x, keys);
      if (f) return f;
    }
    return null;
  }
  if (payload && typeof payload === 'object') {
    for (const v of Object.values(payload)) {
      const f = findList(v, keys);
      if (f) return f;
    }
  }
  return null;
}

export { toolPayload };
