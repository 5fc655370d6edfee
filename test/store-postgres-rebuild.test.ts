// Rebuilding one tenant of a shared sandbox from the database alone (src/replication/loader.ts) on a real
// PostgreSQL: after drawn calls of several tenants sent to two instances in turn (screening submits, keys, plan
// changes, dashboard sign-ups, the sandbox clock moved), with snapshots taken every few steps, each tenant rebuilt
// in a scratch core from the newest snapshot's global part, its own part and the steps of its partition (plus
// global, create and all) is exactly the slice the instance holds in memory, on both instances.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportTenant } from '../src/domain/snapshot.js';
import type { RunningSandbox } from '../src/main.js';
import { DashboardClient } from './support/dashboard.js';
import './support/fast-check-seed.js';
import { postgresUnavailable, sharedInstances, twoSharedInstances } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const shared = sharedInstances('http://sandbox.test', { corpusSize: 50, noRateLimits: true, snapshotEvery: 9 });

type Op =
  | { op: 'tenant'; on: number }
  | { op: 'key'; on: number; of: number }
  | { op: 'submit'; on: number; of: number; again: boolean }
  | { op: 'plan'; on: number; of: number; tier: string }
  | { op: 'signup'; on: number }
  | { op: 'clock'; on: number; hours: number }
  | { op: 'decide'; on: number; of: number };

const on = fc.nat(1);
const of = fc.nat(7);
const opArb: fc.Arbitrary<Op> = fc.oneof(
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
);

/**
 * A slice without its place in the list of every tenant (`tenant.position`): that place is among the tenants a core
 * holds (a scratch core holds the demo tenants and the one rebuilt), not part of the tenant's own state.
 */
const own = (slice: unknown) => {
  const s = structuredClone(slice) as { tenant: { position?: number } };
  delete s.tenant.position;
  return withoutDurations(s);
};

/** Without the request log's measured durations (real time, measured anew by every replay). */
function withoutDurations(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutDurations);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).flatMap(([k, x]) => (k === 'durationMs' ? [] : [[k, withoutDurations(x)]])),
  );
}

/** Every tenant's slice as the instance holds it and as rebuilt from the log, read between two batches. */
const slices = (sb: RunningSandbox, ids: string[]) =>
  sb.replica!.read(async () => {
    const out: { tenantId: string; held: unknown; rebuilt: unknown }[] = [];
    for (const t of sb.core.tenants.ordered().filter((x) => ids.includes(x.id)))
      out.push({
        tenantId: t.id,
        held: own(exportTenant(sb.core, t.id)),
        rebuilt: own(await sb.replica!.rebuildTenant(t.id)),
      });
    return out;
  });

describe.skipIf(why !== null)('a tenant rebuilt from the log in a scratch core', () => {
  let a: RunningSandbox;
  let b: RunningSandbox;
  twoSharedInstances(shared, (p) => ({ a, b } = p));

  it('is exactly the slice the instance holds, on both instances, after drawn calls and snapshots', async () => {
    const admin = (sb: RunningSandbox) => client(sb.listenUrl, ADMIN_TOKEN);
    let run = 0;
    const rebuilds: number[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 6, maxLength: 16 }), async (ops) => {
        run++;
        const tenants: { tenantId: string; apiKey: string }[] = [];
        const requests: string[] = [];
        let n = 0;
        for (const o of ops) {
          const sb = o.on ? b : a;
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
          }
        }
        // the run's tenants, and a demo tenant (made outside any step, at the sandbox's first start)
        const ids = [...tenants.map((t) => t.tenantId), a.core.tenants.ordered()[0].id];
        for (const sb of [a, b]) {
          const t0 = performance.now();
          const all = await slices(sb, ids);
          rebuilds.push((performance.now() - t0) / all.length);
          expect(all.length).toBeGreaterThan(0);
          for (const s of all) expect(s.rebuilt, `tenant ${s.tenantId}`).toEqual(s.held);
        }
      }),
      { numRuns: 4 },
    );
    console.log(
      `a rebuild took ${Math.round(Math.min(...rebuilds))} to ${Math.round(Math.max(...rebuilds))} ms on average per run`,
    );
  }, 240_000);
});
