// Reads a JSON request body defensively: content type, size limit and syntax problems become
// 400 invalid_request with a message naming the problem, never a 500 (POL-SUBMIT-2, POL-ERR-1; D-14,
// D-15). Served by @hono/node-server, the bytes come straight from Node's request stream rather than
// through a Web Request and its stream adapters (a large share of a small POST's cost); they are left in
// Hono's body cache, so a later c.req.json() or arrayBuffer() still sees them.

import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { invalid } from '../errors/errors.js';
import { limits } from '../domain/plans.js';
import { headerOf } from './headers.js';

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;
// made once: decoding is stateless with the default (non-streaming) decode calls
const UTF8 = new TextDecoder('utf-8', { fatal: true });

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

/** The request body's bytes, read once. */
function bodyBytes(c: Context): Promise<ArrayBuffer> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  // Hono keeps body promises in its cache (its type names the resolved values)
  const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
  if (incoming && typeof incoming.on === 'function' && !incoming.readableDidRead && Object.keys(cache).length === 0) {
    const bytes = readAll(incoming);
    cache.arrayBuffer = bytes;
    return bytes;
  }
  return c.req.arrayBuffer();
}

export async function readJsonBody(c: Context, maxBytes = limits.policy.bodyMaxBytes): Promise<unknown> {
  const type = headerOf(c, 'content-type') ?? '';
  if (!JSON_TYPE.test(type.trim())) {
    throw invalid(`request body must be JSON: send Content-Type: application/json (got '${type || 'none'}')`, 'body');
  }
  const declared = Number(headerOf(c, 'content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    throw invalid(`request body is ${declared} bytes; the limit is ${maxBytes} bytes`, 'body');
  }
  const buf = await bodyBytes(c);
  if (buf.byteLength > maxBytes) {
    throw invalid(`request body is ${buf.byteLength} bytes; the limit is ${maxBytes} bytes`, 'body');
  }
  if (buf.byteLength === 0) throw invalid('request body is empty; a JSON object is required', 'body');
  let text: string;
  try {
    text = UTF8.decode(buf);
  } catch {
    throw invalid('request body is not valid UTF-8', 'body');
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw invalid(`request body is not valid JSON: ${(e as Error).message}`, 'body');
  }
}
