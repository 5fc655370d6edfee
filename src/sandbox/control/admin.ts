// Shared pieces of the control API: small body readers with clear 400s (who may call: caller.ts).

import type { Context } from 'hono';
import { invalid } from '../../errors/errors.js';
import { readJsonBody } from '../../web/body.js';

/** Reads a JSON object body; an empty body reads as {} when `optional`. */
export async function readObject(c: Context, optional = false): Promise<Record<string, unknown>> {
  if (optional && (c.req.header('content-length') === '0' || !c.req.header('content-type'))) return {};
  const body = await readJsonBody(c);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('request body must be a JSON object', 'body');
  return body as Record<string, unknown>;
}

/** Refuses properties other than `allowed`, naming the first unknown one. */
export function onlyKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) throw invalid(`unknown property '${k}'; allowed: ${allowed.join(', ')}`, k);
  }
}

export function optString(body: Record<string, unknown>, key: string, max = 2000): string | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > max)
    throw invalid(`${key} must be a string of at most ${max} characters`, key);
  return v;
}

export function optInt(body: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(`${key} must be an integer from ${min} to ${max}`, key);
  }
  return v;
}

export function optBool(body: Record<string, unknown>, key: string): boolean | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw invalid(`${key} must be true or false`, key);
  return v;
}
