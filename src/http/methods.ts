// 405 Method Not Allowed for the documented APIs (D-45): a path of an operation in the contracts called
// with a method none of its operations serves answers 405 with `Allow` listing the methods that are
// served, in the error envelope. The methods come from the contracts, so they cannot drift.

import type { Context } from 'hono';
import type { Contracts } from '../contract/index.js';
import { envelopeOf } from './envelope.js';
import { invalid } from '../domain/errors.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The methods a documented path serves (with HEAD for GET, OPTIONS for CORS preflights), or null. */
export function allowedMethods(contracts: Contracts, path: string): string[] | null {
  const served = METHODS.filter((m) => contracts.match(m, path));
  if (served.length === 0) return null;
  return [...(served.includes('GET') ? ['GET', 'HEAD'] : []), ...served.filter((m) => m !== 'GET'), 'OPTIONS'];
}

/**
 * The 405 answer for a documented path called with a method it does not serve, or null when the path is
 * not documented (then it is a plain 404). `beforeBuild` may still set headers (rate headers).
 */
export function methodNotAllowed(c: Context, contracts: Contracts, beforeBuild?: (status: number) => void): Response | null {
  const allow = allowedMethods(contracts, c.req.path);
  if (!allow || allow.includes(c.req.method)) return null;
  const err = invalid(`method ${c.req.method} is not allowed on ${c.req.path}; it serves ${allow.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').join(', ')}`);
  beforeBuild?.(405);
  c.header('Allow', allow.join(', '));
  return c.json(envelopeOf(err), 405);
}
