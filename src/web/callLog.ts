// Writes every REST and keyed-MCP call into the request log (domain/callLog.ts): who called, what,
// the answer's status and duration, and the first bytes of both bodies. Bodies come from what the
// handler already read, or from copies of at most COPY_LIMIT bytes, and are written to the log after
// the answer has been handed back, so the caller never waits on it. `recordCall` is the record step of
// both REST paths (this middleware and the fast path): what a log entry holds is decided there alone.
// Requirements: none of the documents (a sandbox convenience); decisions D-104.

import type { MiddlewareHandler } from 'hono';
import { LOG_TEXT_CAP, type CallRecord } from '../domain/callLog.js';
import type { Core } from '../domain/core.js';
import { callerTenant } from './chaos.js';
import type { AppEnv } from './env.js';

// bodies larger than this are not copied at all: the log keeps LOG_TEXT_CAP characters anyway
export const COPY_LIMIT = 64 * 1024;

/** One finished call, as either REST path knows it: the log's record, with its timings instead of a duration. */
export interface FinishedCall extends Omit<CallRecord, 'durationMs'> {
  /** performance.now() at arrival and when the answer was ready. */
  t0: number;
  t1: number;
  /** Whether the call has a body at all, and its declared length (NaN when none was declared). */
  hasBody: boolean;
  declared: number;
  /** The request body's text when it was kept (declared within COPY_LIMIT and read), else ''. */
  request: string;
}

/** The record step: writes one call into the request log. */
export function recordCall(core: Core, call: FinishedCall): void {
  core.callLog.record({
    atMs: call.atMs,
    tenantId: call.tenantId,
    api: call.api,
    method: call.method,
    path: call.path,
    tool: call.tool,
    status: call.status,
    durationMs: Math.round((call.t1 - call.t0) * 10) / 10,
    request: call.request || (call.hasBody && call.declared > COPY_LIMIT ? `(${call.declared} bytes, not kept)` : ''),
    response: call.response,
  });
}

async function readCapped(body: ReadableStream<Uint8Array> | null): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size <= LOG_TEXT_CAP * 4) {
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
 * Framework internal (D-131): @hono/node-server's private `Symbol('cache')` holding [status, body, headers];
 * the version is pinned exactly in package.json and test/framework-internals.test.ts fails when it changes.
 */
export function stringBodyOf(res: Response): string | Uint8Array | null {
  cacheSymbol ??= Object.getOwnPropertySymbols(res).find((s) => s.description === 'cache');
  if (!cacheSymbol) return null;
  const kept = (res as unknown as Record<symbol, unknown>)[cacheSymbol];
  if (!Array.isArray(kept)) return null;
  return typeof kept[1] === 'string' || kept[1] instanceof Uint8Array ? kept[1] : null;
}

// found on the first response that has it, then reused: looking it up costs an array per call
let cacheSymbol: symbol | undefined;

/** The JSON-RPC method, and the tool's name for tools/call, of an MCP request body. */
function mcpTarget(text: string): string | null {
  try {
    const msg = JSON.parse(text) as { method?: unknown; params?: { name?: unknown } };
    if (typeof msg.method !== 'string') return null;
    return msg.method === 'tools/call' && typeof msg.params?.name === 'string'
      ? `tools/call ${msg.params.name}`
      : msg.method;
  } catch {
    return null;
  }
}

export const callLog: MiddlewareHandler<AppEnv> = async (c, next) => {
  const core = c.var.core;
  const atMs = core.clock.now();
  const t0 = performance.now();
  const declared = Number(c.req.header('content-length') ?? NaN);
  const hasBody = c.req.method !== 'GET' && c.req.method !== 'HEAD';
  const isMcp = c.req.path === '/api/mcp';
  // REST handlers read their body through Hono's body cache (the log reads it there afterwards);
  // the MCP transport reads the Web request itself, so its body is copied, alongside the handler
  const mcpText =
    isMcp && hasBody && declared > 0 && declared <= COPY_LIMIT ? readCapped(c.req.raw.clone().body) : null;
  await next();
  const cached = c.req.bodyCache.arrayBuffer as Promise<ArrayBuffer> | ArrayBuffer | undefined;
  const t1 = performance.now();
  const status = c.res.status;
  const resString = stringBodyOf(c.res);
  // a stream (an MCP answer), or a response something already read (self-check mode), is copied
  const resCopy =
    resString === null && /json|text|event-stream/.test(c.res.headers.get('content-type') ?? '') ? c.res.clone() : null;
  // a refused call with a tenant's key (403) is that tenant's too: every call its keys make is in its log
  const tenantId = c.var.principal?.tenant.id ?? callerTenant(core.tenants, c.req.header('authorization'));
  const write = (reqText: string, resText: string | Uint8Array) => {
    const url = c.req.url;
    const q = url.indexOf('?');
    recordCall(core, {
      atMs,
      t0,
      t1,
      tenantId,
      api: isMcp ? 'mcp' : 'rest',
      method: c.req.method,
      path: q < 0 ? c.req.path : c.req.path + url.slice(q),
      tool: isMcp ? mcpTarget(reqText) : null,
      status,
      hasBody,
      declared,
      request: reqText,
      response: resText,
    });
  };
  const keep = cached !== undefined && declared <= COPY_LIMIT;
  // the common case (a string answer, and no body or one already read whole) is written at once:
  // no promise per API call
  if (resString !== null && mcpText === null && (!keep || cached instanceof ArrayBuffer)) {
    write(keep ? Buffer.from(cached as ArrayBuffer).toString('utf8') : '', resString);
    return;
  }
  const reqText =
    mcpText ??
    (keep
      ? Promise.resolve(cached)
          .then((b) => Buffer.from(b).toString('utf8'))
          .catch(() => '')
      : '');
  void Promise.all([reqText, resString ?? readCapped(resCopy?.body ?? null)])
    .then(([reqText, resText]) => write(reqText, resText))
    .catch(() => undefined);
};
