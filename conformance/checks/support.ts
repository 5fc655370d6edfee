// Small helpers the checks share: calling the documented endpoints, asserting statuses with evidence,
// unique idempotency keys, reading usage, and polling.

import { randomBytes } from 'node:crypto';
import type { CheckContext } from '../check.js';
import { violation } from '../failure.js';
import { describe, jsonOf, statusOf, type Exchange } from '../target/http.js';
import type { CallSpec } from '../target/target.js';
import type { Answer } from '../json.js';

export const SCREENING = '/api/screening/v1';
export const JOBS = '/api/v1';

/** A short random token, unique per call (keys, nonces). */
export const nonce = (prefix = 'cf') => `${prefix}-${randomBytes(6).toString('hex')}`;

export function screening(ctx: CheckContext) {
  const call = (spec: CallSpec) => ctx.target.call('screening', spec);
  return {
    submit: (key: string | null, body: unknown, extra: Partial<CallSpec> = {}) =>
      call({ method: 'POST', path: `${SCREENING}/screen`, key, json: body, ...extra }),
    usage: (key: string | null, extra: Partial<CallSpec> = {}) => call({ path: `${SCREENING}/usage`, key, ...extra }),
    audit: (key: string | null, query: CallSpec['query'] = {}, extra: Partial<CallSpec> = {}) =>
      call({ path: `${SCREENING}/audit`, key, query, ...extra }),
  };
}

export function jobsApi(ctx: CheckContext) {
  const call = (spec: CallSpec) => ctx.target.call('jobs', spec);
  return {
    call,
    search: (key: string | null, query: CallSpec['query'] = {}, extra: Partial<CallSpec> = {}) =>
      call({ path: `${JOBS}/jobs`, key, query, ...extra }),
    get: (key: string | null, id: string) => call({ path: `${JOBS}/jobs/${encodeURIComponent(id)}`, key }),
    apply: (key: string | null, id: string, body: unknown, extra: Partial<CallSpec> = {}) =>
      call({ method: 'POST', path: `${JOBS}/jobs/${encodeURIComponent(id)}/apply`, key, json: body, ...extra }),
    me: (key: string | null) => call({ path: `${JOBS}/me`, key }),
  };
}

/** Throws a violation of `requirement` unless the exchange answered one of `statuses`. */
export function expectStatus(ex: Exchange, statuses: number | number[], requirement: string, what: string): void {
  const want = Array.isArray(statuses) ? statuses : [statuses];
  const got = statusOf(ex);
  if (got === undefined || !want.includes(got)) {
    throw violation(
      requirement,
      `${what}: expected ${want.join(' or ')}, got ${got ?? ex.error ?? 'no response'} (${describe(ex)})`,
      ex,
    );
  }
}

/** Throws unless the exchange is an error envelope with `code`. */
export function expectCode(ex: Exchange, code: string, requirement: string, what: string): void {
  const got = jsonOf(ex)?.error?.code;
  if (got !== code)
    throw violation(
      requirement,
      `${what}: expected error code '${code}', got ${got === undefined ? 'no error code' : `'${got}'`}`,
      ex,
    );
}

export interface UsageReading {
  creditsRemaining: number;
  creditsCap: number;
  body: Answer;
  exchange: Exchange;
}

/** Reads GET /usage; a non-200 or a body without the credit numbers is a violation of `requirement`. */
export async function readUsage(ctx: CheckContext, key: string, requirement = 'SCR-USAGE-1'): Promise<UsageReading> {
  const ex = await screening(ctx).usage(key);
  expectStatus(ex, 200, requirement, 'GET /usage');
  const b = jsonOf(ex);
  if (!Number.isInteger(b?.creditsRemaining) || !Number.isInteger(b?.creditsCap)) {
    throw violation('SCR-USAGE-2', 'GET /usage did not report integer creditsRemaining and creditsCap', ex);
  }
  return { creditsRemaining: b.creditsRemaining, creditsCap: b.creditsCap, body: b, exchange: ex };
}

/** Gives the body a unique idempotency key (keeping the generated one as a suffix), so cases never collide. */
export function uniqueKey<T>(body: T, prefix = nonce('idem')): T {
  body = orderedBand(body);
  if (body && typeof body === 'object' && !Array.isArray(body) && typeof (body as Answer).idempotencyKey === 'string') {
    return { ...body, idempotencyKey: `${prefix}-${(body as Answer).idempotencyKey}` };
  }
  return body;
}

/**
 * Generated bodies satisfy the contract's policy rules too, so a deployment that applies them is never
 * failed on valid data; the one policy rule the schema cannot express (a salary band's minimum not
 * above its maximum, D-14) is applied here.
 */
export function orderedBand<T>(body: T): T {
  const spec = (body as Answer)?.jobSpec;
  if (
    spec &&
    typeof spec.salaryBandMinIdr === 'number' &&
    typeof spec.salaryBandMaxIdr === 'number' &&
    spec.salaryBandMinIdr > spec.salaryBandMaxIdr
  ) {
    return {
      ...body,
      jobSpec: { ...spec, salaryBandMinIdr: spec.salaryBandMaxIdr, salaryBandMaxIdr: spec.salaryBandMinIdr },
    };
  }
  return body;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `fn` until it returns a value other than undefined, or the timeout passes (then returns undefined). */
export async function poll<T>(
  fn: () => Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 100,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() >= deadline) return undefined;
    await sleep(everyMs);
  }
}

/** Records a policy-level finding once per requirement (policy problems never stop a check). */
export function policyOnce(ctx: CheckContext) {
  const seen = new Set<string>();
  return (requirement: string, why: string, ...evidence: (Exchange | undefined)[]) => {
    if (seen.has(requirement)) return;
    seen.add(requirement);
    ctx.failures.add(requirement, why, ...evidence);
  };
}

/** True when an error message names the field (its last path segment), as policy asks. */
export function messageNames(ex: Exchange, field: string): boolean {
  const msg = String(jsonOf(ex)?.error?.message ?? '');
  return !field || msg.includes(field);
}

/** Margin for clock skew and request time when a `since` is derived from the target's Date header. */
const SINCE_MARGIN_MS = 120_000;

/**
 * A `since` that surely precedes the rows an exchange caused, from the target's own Date header (never
 * the harness's clock); undefined when the target sends none, so the walk reads the whole ledger.
 */
export function sinceOf(ex: Exchange): string | undefined {
  const at = Date.parse(ex.response?.headers.date ?? '');
  return Number.isNaN(at) ? undefined : new Date(at - SINCE_MARGIN_MS).toISOString();
}

/** The key prefix this deployment issues (up to and including `_live_`), read from a key the harness holds. */
export function keyPrefix(ctx: CheckContext): string {
  const key = Object.values(ctx.config.keys).find((k) => typeof k === 'string' && k.includes('_live_'));
  return key ? key.slice(0, key.indexOf('_live_') + 6) : 'rjk_live_';
}
