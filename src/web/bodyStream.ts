// Reads a request body while counting its bytes as they arrive, chunked or not, and stops at the limit:
// a body past it is refused with 413 before more of it is held in memory (D-80). A Content-Encoding other
// than identity is refused with 415 before anything is read.

import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { DomainError } from '../errors/errors.js';
import { headerOf } from './headers.js';

const refusal = (status: number, message: string) =>
  new DomainError('invalid_request', message, { field: 'body', status });

export const tooLarge = (maxBytes: number) =>
  refusal(413, `request body is larger than the limit of ${maxBytes} bytes`);

/** Whether a Content-Encoding header leaves the body as it is (absent or identity). */
export const isIdentityEncoding = (header: string | undefined) => {
  const encoding = header?.trim().toLowerCase();
  return !encoding || encoding === 'identity';
};

/** 415 for an encoded body: the sandbox reads only identity-encoded JSON. */
export function refuseEncoded(c: Context): void {
  const encoding = headerOf(c, 'content-encoding')?.trim().toLowerCase();
  if (!isIdentityEncoding(encoding)) {
    throw refusal(415, `Content-Encoding '${encoding}' is not supported; send the body unencoded (identity)`);
  }
}

// After a refusal the connection stays open for a moment before it is closed: closed at once, the client's
// next write would reset the connection before it read the 413 (the "lingering close" of web servers).
// Meanwhile up to LINGER_BYTES more are read and dropped, then reading stops (the client's writes wait);
// nothing of it is kept.
const LINGER_BYTES = 4 * 1024 * 1024;
const LINGER_MS = 2000;

function lingerThenClose(incoming: IncomingMessage): void {
  let dropped = 0;
  const timer = setTimeout(() => incoming.socket?.destroy(), LINGER_MS);
  timer.unref();
  incoming.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) incoming.pause();
  });
  incoming.once('close', () => clearTimeout(timer));
}

// The reader's state rides on the request, and its listeners are made once: no closure per body.
const READER = Symbol('body reader');

interface Reader {
  chunks: Buffer[];
  size: number;
  maxBytes: number;
  resolve: (buf: Uint8Array) => void;
  reject: (err: Error) => void;
}

type Reading = IncomingMessage & { [READER]?: Reader };

function finish(incoming: Reading, err: Error | null): void {
  const r = incoming[READER];
  if (!r) return;
  incoming[READER] = undefined;
  incoming.off('data', onData);
  if (err) return r.reject(err);
  r.resolve(r.chunks.length === 1 ? r.chunks[0] : Buffer.concat(r.chunks, r.size));
}

function onData(this: Reading, chunk: Buffer): void {
  const r = this[READER];
  if (!r) return;
  r.size += chunk.length;
  if (r.size > r.maxBytes) {
    finish(this, tooLarge(r.maxBytes));
    return lingerThenClose(this);
  }
  r.chunks.push(chunk);
}

function onEnd(this: Reading): void {
  finish(this, null);
}

function onError(this: Reading, e: Error): void {
  finish(this, e);
}

// 'close' follows 'end' on every request; before it, the client went away mid-body (the error is made
// only then: an error's stack costs more than the rest of a small body's reading)
function onClose(this: Reading): void {
  if (this[READER]) finish(this, new Error('the request body was cut off'));
}

/**
 * Where a request built by the sandbox itself (a recorded call applied as a step, replication/steps.ts) carries its
 * body, read already: `readNode` takes it from there, without a stream.
 */
export const BODY_READ = Symbol('the request body, read already');

/** The body of Node's request, at most `maxBytes` of it (413 past them, and the connection lingers). */
export function readNode(incoming: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const read = (incoming as IncomingMessage & { [BODY_READ]?: Uint8Array })[BODY_READ];
  if (read !== undefined)
    return read.byteLength > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(read);
  return new Promise((resolve, reject) => {
    (incoming as Reading)[READER] = { chunks: [], size: 0, maxBytes, resolve, reject };
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('error', onError);
    incoming.once('close', onClose);
  });
}

/** The body of a Web request, at most `maxBytes` of it (413 past them). */
export async function readWeb(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) throw tooLarge(maxBytes);
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

/**
 * The body's bytes, at most `maxBytes` of them. Served by @hono/node-server, Node's request stream is read
 * directly (cheaper than the Web stream adapters); otherwise the Web Request's stream.
 */
export async function readBodyCapped(c: Context, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(headerOf(c, 'content-length') ?? NaN);
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const fromNode = Boolean(incoming && typeof incoming.on === 'function' && !incoming.readableDidRead);
  if (Number.isFinite(declared) && declared > maxBytes) {
    if (fromNode) lingerThenClose(incoming!);
    throw refusal(413, `request body is ${declared} bytes; the limit is ${maxBytes} bytes`);
  }
  const buf = fromNode
    ? await readNode(incoming!, maxBytes)
    : c.req.raw.body
      ? await readWeb(c.req.raw.body, maxBytes)
      : new Uint8Array(0);
  // kept where Hono keeps a body it read, so later readers (the request log) find it without reading again
  c.req.bodyCache.arrayBuffer = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  return buf;
}
