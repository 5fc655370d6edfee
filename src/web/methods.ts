// A documented path called with a method none of its operations serves (D-45): 404 `not_found` in the
// error envelope, as the documents' code table requires (no documented code goes with 405), plus the
// `Allow` header HTTP permits on any response, listing the methods that are served, and a message
// naming them. The methods come from the contracts, so they cannot drift.

import type { Context } from 'hono';
import type { Contracts } from '../contract/index.js';
import { envelopeOf } from './envelope.js';
import { notFound } from '../errors/errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods a documented path serves (with HEAD for GET, OPTIONS for CORS preflights), or null. */
export function allowedMethods(contracts: Contracts, path: string): string[] | null {
  const served = METHODS.filter((m) => contracts.match(m, path));
  if (served.length === 0) return null;
  return [...(served.includes('GET') ? ['GET', 'HEAD'] : []), ...served.filter((m) => m !== 'GET'), 'OPTIONS'];
}

/**
 * The answer for a documented path called with a method it does not serve, or null when the path is not
 * documented (then it is the plain 404). `beforeBuild` may still set headers (rate headers).
 */
export function methodNotServed(
  c: Context,
  contracts: Contracts,
  beforeBuild?: (status: number) => void,
): Response | null {
  const allow = allowedMethods(contracts, c.req.path);
  if (!allow || allow.includes(c.req.method)) return null;
  const err = notFound(
    `no route for ${c.req.method} ${c.req.path}: this path serves ${allow.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').join(', ')} (see the Allow header)`,
  );
  beforeBuild?.(err.status);
  c.header('Allow', allow.join(', '));
  return c.json(envelopeOf(err), 404);
}
