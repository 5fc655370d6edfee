// One HTTP exchange, recorded whole (request and response as sent and received), so any failure can
// show exactly what went over the wire. Secrets in Authorization headers are masked in the record.

import type { Answer } from '../json.js';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The parsed body when it is JSON. */
  json?: unknown;
}

export interface Exchange {
  request: RecordedRequest;
  response?: RecordedResponse;
  /** A network-level error (refused, reset, timeout) instead of a response. */
  error?: string;
  durationMs: number;
}

/** Masks bearer credentials: keeps the scheme, the key prefix and the last four characters. */
export function maskSecret(value: string): string {
  const m = /^(Bearer\s+)(.*)$/i.exec(value);
  const scheme = m ? m[1] : '';
  const secret = m ? m[2] : value;
  if (secret.length <= 12) return `${scheme}${'*'.repeat(secret.length)}`;
  const live = secret.indexOf('_live_');
  const keep = live >= 0 ? live + 6 : 4;
  return `${scheme}${secret.slice(0, keep)}…${secret.slice(-4)}`;
}

export function headersToRecord(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

export function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The URL with any query value that looks like an API key masked (reports must not leak keys). */
export function maskUrl(url: string): string {
  const u = new URL(url);
  let changed = false;
  for (const [k, v] of [...u.searchParams]) {
    if (/_live_/.test(v)) {
      u.searchParams.set(k, maskSecret(v));
      changed = true;
    }
  }
  return changed ? u.toString() : url;
}

/** Sends one request and records the exchange; network errors become `error`, never exceptions. */
export async function send(req: RecordedRequest, timeoutMs: number): Promise<Exchange> {
  const t0 = performance.now();
  const shown: RecordedRequest = { ...req, url: maskUrl(req.url), headers: { ...req.headers } };
  for (const k of Object.keys(shown.headers)) {
    if (k.toLowerCase() === 'authorization') shown.headers[k] = maskSecret(shown.headers[k]);
  }
  try {
    const res = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await res.text();
    const json = parseJson(body);
    return {
      request: shown,
      response: {
        status: res.status,
        headers: headersToRecord(res.headers),
        body,
        ...(json !== undefined ? { json } : {}),
      },
      durationMs: Math.round(performance.now() - t0),
    };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string } };
    return {
      request: shown,
      error: `${err.name}: ${err.message}${err.cause?.code ? ` (${err.cause.code})` : ''}`,
      durationMs: Math.round(performance.now() - t0),
    };
  }
}

/** A short one-line description of an exchange, for messages. */
export function describe(ex: Exchange): string {
  const u = new URL(ex.request.url);
  const head = `${ex.request.method} ${u.pathname}${u.search}`;
  if (!ex.response) return `${head} -> ${ex.error ?? 'no response'}`;
  const code = (ex.response.json as Answer)?.error?.code;
  return `${head} -> ${ex.response.status}${code ? ` ${code}` : ''}`;
}

export const statusOf = (ex: Exchange): number | undefined => ex.response?.status;
export const jsonOf = (ex: Exchange): Answer => ex.response?.json;
export const headerOf = (ex: Exchange, name: string): string | undefined => ex.response?.headers[name.toLowerCase()];
