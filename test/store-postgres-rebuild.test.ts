// Rebuilding one tenant of a shared sandbox from the database alone (src/replication/loader.ts) on a real
// PostgreSQL: after drawn calls of several tenants sent to two instances in turn (screening submits, keys, plan
// changes, dashboard sign-ups, the sandbox clock moved), with snapshots taken every few steps, each tenant rebuilt
// in a scratch core from the newest snapshot's global part, its own part and the steps of its partition (plus
// global, create and all) is exactly the slice the instance holds in memory, on both instances.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportTenant } from '../src/domain/snapshot.js';
import type { RunningSandbox } from '../src/main.js';
import './support/fast-check-seed.js';
import { postgresUnavailable, sharedInstances, twoSharedInstances } from './support/postgres.js';
import { withoutDurations } from './support/inProcess.js';
import { sendTenantCalls, tenantCallArb } from './support/tenantCalls.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const shared = sharedInstances('http://sandbox.test', {
  corpusSize: 50,
  noRateLimits: true,
  snapshotEvery: 9,
  verifyCarriedParts: true,
});

/** A slice without the request log's measured durations (real time, measured anew by every replay). */
const own = withoutDurations;

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
    let run = 0;
    const rebuilds: number[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(tenantCallArb, { minLength: 6, maxLength: 16 }), async (ops) => {
        run++;
        const { tenants } = await sendTenantCalls([a, b], ops, run);
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
