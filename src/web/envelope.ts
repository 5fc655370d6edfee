// The one place a domain error becomes an HTTP response: { error: { code, message[, upsell] } }.

import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { DomainError } from '../errors/errors.js';

export interface ErrorEnvelope {
  error: { code: string; message: string; upsell?: { upgradeUrl: string; freeScreenCap?: number } };
}

export function envelopeOf(err: DomainError): ErrorEnvelope {
  const body: ErrorEnvelope = { error: { code: err.code, message: err.message } };
  if (err.details.upsell) body.error.upsell = err.details.upsell;
  return body;
}

/**
 * Maps anything thrown by a route to the envelope; unknown errors are 500 `internal` (and logged).
 * `beforeBuild` may still set headers on the context once the status is known.
 */
export function toErrorResponse(c: Context, err: unknown, beforeBuild?: (status: number) => void): Response {
  let de: DomainError;
  if (err instanceof DomainError) de = err;
  else if (err instanceof HTTPException && err.status < 500) {
    de = new DomainError(err.status === 401 ? 'unauthorized' : 'invalid_request', err.message || 'bad request');
  } else {
    console.error('internal error', err);
    de = new DomainError('internal', 'internal error');
  }
  if (de.details.retryAfter !== undefined) c.header('Retry-After', String(de.details.retryAfter));
  beforeBuild?.(de.status);
  return c.json(envelopeOf(de), de.status as 400);
}
