// Drawn calls of several tenants sent to the instances of a shared sandbox in turn: tenants created, keys issued,
// screening submits (some repeating an idempotency key), plan changes, dashboard sign-ups, review decisions, a
// tenant's clock moved and the sandbox clock moved. The tests of rebuilding and of loading tenants on demand run them.

import fc from 'fast-check';
import { expect } from 'vitest';
import { exportTenant } from '../../src/domain/snapshot.js';
import type { RunningSandbox } from '../../src/main.js';
import { withoutDurations } from './inProcess.js';
import { DashboardClient } from './dashboard.js';
import { ADMIN_TOKEN, client } from './sandbox.js';
import { SCREENING, submitBody } from './screening.js';

export type TenantCall =
  | { op: 'tenant'; on: number }
  | { op: 'key'; on: number; of: number }
  | { op: 'submit'; on: number; of: number; again: boolean }
  | { op: 'plan'; on: number; of: number; tier: string }
  | { op: 'signup'; on: number }
  | { op: 'clock'; on: number; hours: number }
  | { op: 'tenantClock'; on: number; of: number; hours: number }
  | { op: 'decide'; on: number; of: number };

const on = fc.nat(1);
const of = fc.nat(7);
export const tenantCallArb: fc.Arbitrary<TenantCall> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('tenant' as const), on }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('key' as const), on, of }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('submit' as const), on, of, again: fc.boolean() }), weight: 5 },
  {
    arbitrary: fc.record({ op: fc.constant('plan' as const), on, of, tier: fc.constantFrom('free', 'pro', 'scale') }),
    weight: 1,
  },
  { arbitrary: fc.record({ op: fc.constant('signup' as const), on }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('decide' as const), on, of }), weight: 1 },
  {
    arbitrary: fc.record({ op: fc.constant('clock' as const), on, hours: fc.integer({ min: 30, max: 100 }) }),
    weight: 1,
  },
  {
    arbitrary: fc.record({ op: fc.constant('tenantClock' as const), on, of, hours: fc.integer({ min: 1, max: 100 }) }),
    weight: 1,
  },
);

/** What a run of drawn calls made: the tenants it created (with their first key) and the screening requests. */
export interface TenantCallsMade {
  tenants: { tenantId: string; apiKey: string }[];
  requests: string[];
}

/**
 * Sends `calls` to `instances[call.on]`; `run` numbers the run (idempotency keys, sign-up addresses and the
 * client addresses they come from are the run's own).
 */
export async function sendTenantCalls(
  instances: readonly RunningSandbox[],
  calls: readonly TenantCall[],
  run: number,
): Promise<TenantCallsMade> {
  const admin = (sb: RunningSandbox) => client(sb.listenUrl, ADMIN_TOKEN);
  const made: TenantCallsMade = { tenants: [], requests: [] };
  const { tenants, requests } = made;
  let n = 0;
  for (const o of calls) {
    const sb = instances[o.on % instances.length];
    const pick = <T>(xs: T[], i: number) => (xs.length ? xs[i % xs.length] : undefined);
    switch (o.op) {
      case 'tenant': {
        const res = await admin(sb)('POST', '/sandbox/v1/tenants', { planTier: 'scale' });
        expect(res.status, res.text).toBe(201);
        tenants.push(res.json as { tenantId: string; apiKey: string });
        break;
      }
      case 'key': {
        const t = pick(tenants, o.of);
        if (t) await admin(sb)('POST', `/sandbox/v1/tenants/${t.tenantId}/keys`, {});
        break;
      }
      case 'submit': {
        const t = pick(tenants, o.of);
        if (!t) break;
        const body = submitBody(o.again ? { idempotencyKey: `again-${run}` } : {});
        const res = await client(sb.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, body);
        if (res.status === 201) requests.push(res.json.requestId as string);
        break;
      }
      case 'plan': {
        const t = pick(tenants, o.of);
        if (t) await admin(sb)('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { planTier: o.tier });
        break;
      }
      case 'signup': {
        const browser = new DashboardClient(sb.listenUrl, `127.0.0.${70 + ((run * 16 + n) % 150)}`);
        await browser.signUp(`r${run}-${n++}@example.com`, 'correct horse battery');
        break;
      }
      case 'decide': {
        const id = pick(requests, o.of);
        if (id)
          await admin(sb)('POST', `/sandbox/v1/reviews/${id}/decision`, {
            decision: 'approved',
            reviewerId: 'r1',
          });
        break;
      }
      case 'clock': {
        await admin(sb)('POST', '/sandbox/v1/clock/advance', { seconds: o.hours * 3600 });
        break;
      }
      case 'tenantClock': {
        const t = pick(tenants, o.of);
        if (t) {
          const res = await admin(sb)('POST', `/sandbox/v1/tenants/${t.tenantId}/clock/advance`, {
            seconds: o.hours * 3600,
          });
          expect(res.status, res.text).toBe(200);
        }
        break;
      }
    }
  }
  return made;
}

/**
 * A tenant's slice as an instance holds it, read as a call of that tenant (which loads it when it is not in memory).
 * Exactly as exported: a read changes no state (D-162), so two instances that applied the same steps hold the same
 * slice whichever reads each served.
 */
export const sliceOf = (sb: RunningSandbox, tenantId: string) =>
  sb.replica!.read(async () => withoutDurations(exportTenant(sb.core, tenantId)), {
    app: 'control',
    method: 'GET',
    url: `http://sandbox.test/sandbox/v1/tenants/${tenantId}`,
    header: () => undefined,
    body: null,
  });

/** A tenant made through an instance's control API (scale plan). */
export const tenantOn = async (base: string) =>
  (await client(base, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { planTier: 'scale' })).json as {
    tenantId: string;
    apiKey: string;
  };

/** The operator's reads across tenants (every tenant loaded first), without measured durations. */
export async function acrossTenants(sb: RunningSandbox): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const path of ['/sandbox/v1/tenants', '/sandbox/v1/reviews', '/sandbox/v1/logs']) {
    const res = await client(sb.listenUrl, ADMIN_TOKEN)('GET', path);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    out.push(withoutDurations(res.json));
  }
  return out;
}
