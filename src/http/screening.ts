// REST adapter for /api/screening/v1: authenticates, validates against the contract, calls the
// screening domain and shapes the answer. Screening endpoints are not rate-limited (policy).

import type { IncomingMessage } from 'node:http';
import { type Context, Hono } from 'hono';
import { invalid } from '../errors/errors.js';
import { requireKey, searchParamsOf } from '../web/auth.js';
import { readJsonBody } from '../web/body.js';
import type { AppEnv } from '../web/env.js';

/** Query values arrive as strings from a permissive parser and as numbers from the contract's. */
function integerParam(v: unknown, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw invalid(`${name} must be an integer`, name);
  return n;
}

function stringParam(v: unknown, name: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw invalid(`${name} must be given once, as a string`, name);
  return v;
}

function readAll(incoming: IncomingMessage): Promise<ArrayBuffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let ended = false;
    incoming.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    incoming.once('end', () => {
      ended = true;
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      resolve(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) as ArrayBuffer);
    });
    incoming.once('error', reject);
    // 'close' follows 'end' on every request; before it, the client went away mid-body
    incoming.once('close', () => {
      if (!ended) reject(new Error('the request body was cut off'));
    });
  });
}

/**
 * Served by @hono/node-server, the body can be read straight from Node's request stream instead of
 * through a Web Request and its stream adapters (a large share of a submit's cost). The bytes are handed to
 * readJsonBody through Hono's body cache, so every check and every message stays readJsonBody's; the
 * stream is only read when readJsonBody asks for the body, after its header checks.
 */
function offerNodeBody(c: Context<AppEnv>): void {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || typeof incoming.on !== 'function' || incoming.readableDidRead) return;
  for (const _ in c.req.bodyCache) return; // the body was read already
  let body: Promise<ArrayBuffer> | undefined;
  Object.defineProperty(c.req.bodyCache, 'arrayBuffer', { configurable: true, enumerable: true, get: () => (body ??= readAll(incoming)) });
}

export function screeningRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireKey('screening'));

  r.post('/screen', async (c) => {
    offerNodeBody(c);
    const body = await readJsonBody(c);
    // c.get, not c.var: c.var builds a new object on each read
    const { contracts, screening, faults } = c.get('core');
    contracts.operation('submitScreen').checkBody(body);
    const out = screening.submit(c.get('principal').tenant, body);
    if (!out.replayed) return c.json({ requestId: out.requestId, state: out.state }, 201);
    c.header('Idempotent-Replayed', 'true');
    // planted bug: a replay answered as if it were new
    return c.json({ requestId: out.requestId, state: out.state }, faults.bug('replay_returns_201') ? 201 : 200);
  });

  // The specification documents no parameters and no 400 for usage: query parameters are ignored
  // (a key in the query string is still refused by requireKey).
  r.get('/usage', (c) => c.json(c.var.core.screening.usage(c.var.principal.tenant)));

  r.get('/audit', (c) => {
    const { contracts, screening } = c.get('core');
    const q = contracts.operation('getAudit').parseQuery(searchParamsOf(c.req.url));
    const page = screening.auditJson(c.get('principal').tenant.id, {
      since: stringParam(q.since, 'since'),
      cursor: stringParam(q.cursor, 'cursor'),
      limit: integerParam(q.limit, 'limit'),
    });
    // the bytes c.json(page) would send; a fresh header object each time, as the server adds to it
    return c.body(page, 200, { 'Content-Type': 'application/json' });
  });

  return r;
}
