// Writes every REST and keyed-MCP call into the request log (domain/callLog.ts): who called, what,
// the answer's status and duration, and the first bytes of both bodies. Bodies come from what the
// handler already read, or from copies of at most COPY_LIMIT bytes, and are written to the log after
// the answer has been handed back, so the caller never waits on it.

import type { MiddlewareHandler } from 'hono';
import { BODY_CAP, CAP_BYTES, capBody, type CallEntry, type CallLog } from '../domain/callLog.js';
import type { AppEnv } from './env.js';

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

/**
 * The text of a response built from a string, read without touching its stream. @hono/node-server
 * answers such responses straight from the string it keeps under a symbol named 'cache'; cloning or
 * reading the response instead would cost that fast path on every API call.
 */
function stringBodyOf(res: Response): string | Uint8Array | null {
  cacheSymbol ??= Object.getOwnPropertySymbols(res).find((s) => s.description === 'cache');
  if (!cacheSymbol) return null;
  const kept = (res as unknown as Record<symbol, unknown>)[cacheSymbol];
  if (!Array.isArray(kept)) return null;
  return typeof kept[1] === 'string' || kept[1] instanceof Uint8Array ? kept[1] : null;
}

// heads are copied into shared slabs, as Node pools small buffers: one copy per call, no allocation per call;
// a slab is freed once the log has dropped every entry that points into it
const SLAB_BYTES = 1024 * 1024;
let slab = new Uint8Array(SLAB_BYTES);
let slabUsed = 0;

/** A copy of the answer's first CAP_BYTES bytes. */
function headOf(bytes: Uint8Array): Uint8Array {
  if (slabUsed + CAP_BYTES > SLAB_BYTES) {
    slab = new Uint8Array(SLAB_BYTES);
    slabUsed = 0;
  }
  const head = slab.subarray(slabUsed, slabUsed + CAP_BYTES);
  head.set(bytes.subarray(0, CAP_BYTES));
  slabUsed += CAP_BYTES;
  return head;
}

/**
 * One finished call, as the log keeps it: both bodies capped. An answer in bytes is kept as it is when short
 * (answered bytes are never written to again) or as a copy of its first bytes, and decoded when the log is read.
 */
export function recordCall(log: CallLog, call: Omit<CallEntry, 'id' | 'requestBody' | 'responseBody' | 'truncated'>, reqText: string, resBody: string | Uint8Array): void {
  const req = capBody(reqText);
  if (typeof resBody !== 'string') {
    // a longer answer's first bytes are copied: a view would hold the whole answer for as long as the entry lives
    log.appendAnswer({ ...call, requestBody: req.text, truncated: req.cut }, resBody.byteLength > CAP_BYTES ? headOf(resBody) : resBody);
    return;
  }
  // kept as a copy, so an entry never holds on to the whole answer it was cut from
  const res = resBody.length <= BODY_CAP ? { text: resBody, cut: false } : { text: Buffer.from(resBody.slice(0, BODY_CAP), 'utf16le').toString('utf16le'), cut: true };
  log.append({ ...call, requestBody: req.text, responseBody: res.text, truncated: req.cut || res.cut });
}
// found on the first response that has it, then reused: looking it up costs an array per call
let cacheSymbol: symbol | undefined;

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
  const isMcp = c.req.path === '/api/mcp';
  // REST handlers read their body through Hono's body cache (the log reads it there afterwards);
  // the MCP transport reads the Web request itself, so its body is copied, alongside the handler
  const mcpText = isMcp && hasBody && declared > 0 && declared <= COPY_LIMIT ? readCapped(c.req.raw.clone().body) : null;
  await next();
  const cached = c.req.bodyCache.arrayBuffer as Promise<ArrayBuffer> | ArrayBuffer | undefined;
  const durationMs = Math.round((performance.now() - t0) * 10) / 10;
  const status = c.res.status;
  const resString = stringBodyOf(c.res);
  // a stream (an MCP answer), or a response something already read (self-check mode), is copied
  const resCopy = resString === null && /json|text|event-stream/.test(c.res.headers.get('content-type') ?? '') ? c.res.clone() : null;
  const tenantId = c.var.principal?.tenant.id ?? null;
  const write = (reqText: string, resText: string | Uint8Array) => {
    const url = c.req.url;
    const q = url.indexOf('?');
    const call = { at, tenantId, api: isMcp ? 'mcp' : 'rest', method: c.req.method, path: q < 0 ? c.req.path : c.req.path + url.slice(q), tool: isMcp ? mcpTarget(reqText) : null, status, durationMs } as const;
    recordCall(core.callLog, call, reqText || (hasBody && declared > COPY_LIMIT ? `(${declared} bytes, not kept)` : ''), resText);
  };
  const keep = cached !== undefined && declared <= COPY_LIMIT;
  // the common case (a string answer, and no body or one already read whole) is written at once:
  // no promise per API call
  if (resString !== null && mcpText === null && (!keep || cached instanceof ArrayBuffer)) {
    write(keep ? Buffer.from(cached as ArrayBuffer).toString('utf8') : '', resString);
    return;
  }
  const reqText = mcpText ?? (keep ? Promise.resolve(cached).then((b) => Buffer.from(b).toString('utf8')).catch(() => '') : '');
  void Promise.all([reqText, resString ?? readCapped(resCopy?.body ?? null)])
    .then(([reqText, resText]) => write(reqText, resText))
    .catch(() => undefined);
};
