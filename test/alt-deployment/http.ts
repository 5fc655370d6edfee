// Small node:http helpers for the alternate deployment: routing, JSON bodies and the error envelope.
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Headers = Record<string, string>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Headers = {},
  ) {
    super(message);
  }
}

export const CODE_FOR_STATUS: Record<number, string> = {
  400: 'invalid_request',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  429: 'rate_limited',
  500: 'internal',
  503: 'service_disabled',
};

export const fail = (status: number, message: string, extra: Record<string, unknown> = {}, headers: Headers = {}) =>
  new HttpError(status, CODE_FOR_STATUS[status] ?? 'internal', message, extra, headers);

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, type: string): void {
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8` });
  res.end(text);
}

/** Envelope for an error; `flat` drops the `error` wrapper (a planted violation). */
export function sendError(res: ServerResponse, err: HttpError, headers: Headers = {}, flat = false): void {
  const inner = { code: err.code, message: err.message, ...err.extra };
  sendJson(res, err.status, flat ? inner : { error: inner }, { ...headers, ...err.headers });
}

export async function readRaw(req: IncomingMessage, maxBytes = 1 << 20): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw fail(400, `request body exceeds ${maxBytes} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const raw = await readRaw(req);
  if (raw.trim() === '') throw fail(400, 'body: a JSON object is required');
  try {
    return JSON.parse(raw);
  } catch {
    throw fail(400, 'body: not valid JSON');
  }
}

export function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : '';
}

export function clientIp(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** Matches `/a/:b/c` style patterns; returns the captured segments or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const s = path.split('/');
  if (p.length !== s.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) {
      if (s[i] === '') return null;
      try {
        out[p[i].slice(1)] = decodeURIComponent(s[i]);
      } catch {
        return null;
      }
    } else if (p[i] !== s[i]) return null;
  }
  return out;
}
