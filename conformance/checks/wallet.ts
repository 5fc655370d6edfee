// The apply-credit balance as GET /me shows it, read without assuming a field name (the body shape of
// /me is "not shown"; the documents only say it carries the balance). Two /me calls in a row tell which
// numbers move by themselves (rate counters, clocks); after an operation, any other number that moved
// is what the operation spent. A paid apply must move one of them by exactly one; a free, refused or
// read-only operation must move none.

import type { CheckContext } from '../check.js';
import { violation } from '../failure.js';
import { jsonOf, type Exchange } from '../target/http.js';
import { numericChanges } from './open-shape.js';
import { expectStatus, jobsApi } from './support.js';

export interface WalletReading {
  body: unknown;
  exchange: Exchange;
  /** Paths of numbers that changed between two /me calls with nothing in between. */
  noise: Set<string>;
}

/**
 * GET /me, read to learn the wallet: an answer other than 200 breaks JOB-ME-1, but a transport failure
 * (refused, reset, timed out: no answer at all) is no verdict on the target's rules, so it stops the
 * check as a harness error, as a failed control-plane call does.
 */
async function me(ctx: CheckContext, key: string): Promise<Exchange> {
  const ex = await jobsApi(ctx).me(key);
  if (!ex.response) throw new Error(`GET /me could not be read: ${ex.error ?? 'no response'} (transport failure)`);
  expectStatus(ex, 200, 'JOB-ME-1', 'GET /me');
  return ex;
}

/** Reads /me twice in a row: the second reading, and the numbers that move by themselves. */
export async function readWallet(ctx: CheckContext, key: string): Promise<WalletReading> {
  const first = await me(ctx, key);
  const second = await me(ctx, key);
  const noise = new Set(numericChanges(jsonOf(first), jsonOf(second)).map((c) => c.path));
  return { body: jsonOf(second), exchange: second, noise };
}

/** What moved in /me since `before`, other than its self-moving numbers. */
export async function walletChanges(ctx: CheckContext, key: string, before: WalletReading) {
  const after = await me(ctx, key);
  const changes = numericChanges(before.body, jsonOf(after)).filter((c) => !before.noise.has(c.path));
  return { changes, exchange: after };
}

const shown = (cs: { path: string; from: number; to: number }[]) =>
  cs.map((c) => `${c.path} ${c.from} → ${c.to}`).join(', ');

/** Throws `requirement` unless exactly one credit moved in /me since `before` (one number changed by one). */
export async function expectOneCharge(
  ctx: CheckContext,
  key: string,
  before: WalletReading,
  requirement: string,
  what: string,
  ...evidence: Exchange[]
): Promise<void> {
  const { changes, exchange } = await walletChanges(ctx, key, before);
  if (changes.length === 0)
    throw violation(
      requirement,
      `${what}: no number in GET /me changed, so no apply credit was spent (/me carries the apply-credit balance)`,
      before.exchange,
      ...evidence,
      exchange,
    );
  if (!changes.some((c) => Math.abs(c.delta) === 1))
    throw violation(
      requirement,
      `${what}: GET /me changed ${shown(changes)}; none moved by exactly one credit`,
      before.exchange,
      ...evidence,
      exchange,
    );
}

/** Throws `requirement` when any number in /me moved since `before` (nothing may be spent). */
export async function expectNoCharge(
  ctx: CheckContext,
  key: string,
  before: WalletReading,
  requirement: string,
  what: string,
  ...evidence: Exchange[]
): Promise<void> {
  const { changes, exchange } = await walletChanges(ctx, key, before);
  if (changes.length)
    throw violation(requirement, `${what} changed GET /me: ${shown(changes)}`, before.exchange, ...evidence, exchange);
}
