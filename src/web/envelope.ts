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

/** Anything thrown, as the DomainError it is answered with; unknown errors are `internal` (and logged). */
export function domainErrorOf(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof HTTPException && err.status < 500) {
    return new DomainError(err.status === 401 ? 'unauthorized' : 'invalid_request', err.message || 'bad request');
  }
  console.error('internal error', err);
  return new DomainError('internal', 'internal error');
}

/**
 * Maps anything thrown by a route to the envelope; unknown errors are 500 `internal` (and logged).
 * `beforeBuild` may still set headers on the context once the status is known.
 */
export function toErrorResponse(c: Context, err: unknown, beforeBuild?: (status: number) => void): Response {
  const de = domainErrorOf(err);
  if (de.details.retryAfter !== undefined) c.header('Retry-After', String(de.details.retryAfter));
  beforeBuild?.(de.status);
  return c.json(envelopeOf(de), de.status as 400);
}
