// The one place a domain error becomes an HTTP response: { error: { code, message[, upsell] } }, with
// Retry-After when the error names one (SCR-ERR-1, POL-ERR-1, JOB-RATE-3). The envelope step of both REST
// paths (the routed app's error handler and the fast path) and of every other adapter.

import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { DomainError } from '../errors/errors.js';
import type { SetHeader } from './rateHeaders.js';

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
  const { status, body } = errorAnswer(err, (n, v) => c.header(n, v), beforeBuild);
  return c.json(body, status as 400);
}

/**
 * The envelope step on any path: the status and envelope of anything thrown, its Retry-After set first,
 * then `beforeBuild` (which may still set headers once the status is known).
 */
export function errorAnswer(
  err: unknown,
  set: SetHeader,
  beforeBuild?: (status: number) => void,
): { status: number; body: ErrorEnvelope } {
  const de = domainErrorOf(err);
  if (de.details.retryAfter !== undefined) set('retry-after', String(de.details.retryAfter));
  beforeBuild?.(de.status);
  return { status: de.status, body: envelopeOf(de) };
}
