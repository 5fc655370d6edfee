// Writes every REST and keyed-MCP call into the request log (domain/callLog.ts): who called, what,
// the answer's status and duration, and the first bytes of both bodies. Bodies are read from copies
// (a tee of at most the declared size) after the answer has been handed back, so the caller never
// waits on the log.

import type { MiddlewareHandler } from 'hono';
import { BODY_CAP, capBody } from '../domain/callLog.js';
import type { AppEnv } from './types.js';

// bodies larger than this are not copied at all: the log keeps BODY_CAP characters anyway
const COPY_LIMIT = 64 * 1024;

async function readCapped(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size <= BODY_CAP * 4) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON-RPC method, and the tool's name for tools/call, of an MCP request body. */
function mcpTarget(text: string): string | null {
  try {
    const msg = JSON.parse(text) as { method?: unknown; params?: { name?: unknown } };
    if (typeof msg.method !== 'string') return null;
    return msg.method === 'tools/call' && typeof msg.params?.name === 'string' ? `tools/call ${msg.params.name}` : msg.method;
  } catch {
    return null;
  }
}

export const callLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const core = c.var.core;
  const at = core.clock.iso();
  const t0 = performance.now();
  const declared = Number(c.req.header('content-length') ?? NaN);
  const hasBody = c.req.method !== 'GET' && c.req.method !== 'HEAD';
  const reqCopy = hasBody && declared > 0 && declared <= COPY_LIMIT ? c.req.raw.clone() : null;
  await next();
  const durationMs = Math.round((performance.now() - t0) * 10) / 10;
  const status = c.res.status;
  const type = c.res.headers.get('content-type') ?? '';
  const resCopy = /json|text|event-stream/.test(type) ? c.res.clone() : null;
  const tenantId = c.var.principal?.tenant.id ?? null;
  const isMcp = c.req.path === '/api/mcp';
  void Promise.all([readCapped(reqCopy?.body ?? null), readCapped(resCopy?.body ?? null)])
    .then(([reqText, resText]) => {
      const req = capBody(reqText || (hasBody && !reqCopy && declared > 0 ? `(${declared} bytes, not kept)` : ''));
      const res = capBody(resText);
      core.callLog.append({
        at,
        tenantId,
        api: isMcp ? 'mcp' : 'rest',
        method: c.req.method,
        path: c.req.path + (c.req.url.includes('?') ? c.req.url.slice(c.req.url.indexOf('?')) : ''),
        tool: isMcp ? mcpTarget(reqText) : null,
        status,
        durationMs,
        requestBody: req.text,
        responseBody: res.text,
        truncated: req.cut || res.cut,
      });
    })
    .catch(() => undefined);
};
