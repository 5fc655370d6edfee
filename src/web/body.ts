// Reads a JSON request body defensively: content type, encoding, size limit and syntax problems become
// 4xx invalid_request with a message naming the problem, never a 500 (POL-SUBMIT-2, POL-ERR-1; D-14,
// D-15, D-80). The size is counted as the bytes arrive (bodyStream.ts), so a large or endless body is
// refused without being held in memory.

import type { Context } from 'hono';
import { invalid } from '../errors/errors.js';
import { limits } from '../domain/plans.js';
import { readBodyCapped, refuseEncoded } from './bodyStream.js';
import { headerOf } from './headers.js';

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;
// made once: decoding is stateless with the default (non-streaming) decode calls
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export async function readJsonBody(c: Context, maxBytes = limits.policy.bodyMaxBytes): Promise<unknown> {
  const type = headerOf(c, 'content-type');
  if (!isJsonType(type)) {
    throw invalid(`request body must be JSON: send Content-Type: application/json (got '${type || 'none'}')`, 'body');
  }
  refuseEncoded(c);
  return parseJsonBytes(await readBodyCapped(c, maxBytes));
}

/** Whether a Content-Type header names JSON (application/json or a +json type). */
export const isJsonType = (type: string | undefined) => JSON_TYPE.test((type ?? '').trim());

/** A whole JSON body's bytes, parsed: empty, non-UTF-8 and malformed bodies are 400 invalid_request. */
export function parseJsonBytes(buf: Uint8Array): unknown {
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
