// Snapshots that copy the parts of tenants unchanged since a stored state instead of exporting them (D-152), on a
// real PostgreSQL. Two instances share one database, hold every tenant and write a snapshot every few steps (an
// instance that drops tenants writes their newest states as rows, which would hide a stale part: the tests of
// loading on demand cover that side). After drawn calls sent to both in turn (tenants created,
// keys, submits, plan changes, sign-ups, review decisions, the sandbox clock moved), and automatic reviews decided by
// real-time timers steps, a third instance started on the database (from the newest snapshot, whoever wrote it)
// holds every tenant exactly as the first one does: a part copied from a state older than the tenant's last change
// would show here. The snapshots did copy parts.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreReport } from '../src/domain/store.js';
import type { RunningSandbox } from '../src/main.js';
import './support/fast-check-seed.js';
import { postgresUnavailable, sharedInstances, startTestDatabase, type TestDatabase } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';
import { sendTenantCalls, sliceOf, tenantCallArb } from './support/tenantCalls.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const shared = sharedInstances('http://sandbox.test', {
  corpusSize: 50,
  noRateLimits: true,
  snapshotEvery: 3,
  // every copied part also exported and compared: a stale copy is a store failure, even where a newer stored state hides it
  verifyCarriedParts: true,
});

const lastWritten = async (sb: RunningSandbox) => {
  const res = await client(sb.listenUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/store');
  expect(res.status).toBe(200);
  return (res.json as unknown as StoreReport).instance.lastWritten;
};

describe.skipIf(why !== null)('snapshots copy the parts of unchanged tenants (D-152)', () => {
  let db: TestDatabase;
  let full: RunningSandbox;
  let other: RunningSandbox;
  beforeAll(async () => {
    db = await startTestDatabase();
    [full, other] = await Promise.all([
      shared.start(db.url, { residentTenants: 0 }),
      shared.start(db.url, { residentTenants: 0 }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([full?.close(), other?.close()]);
    await db?.stop();
    expect(shared.failures).toEqual([]);
  });

  it('a start from the newest snapshot holds every tenant as the instances do, after drawn calls and timers', async () => {
    let run = 0;
    const copied = { parts: 0, snapshots: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(tenantCallArb, { minLength: 4, maxLength: 14 }), fc.nat(1), async (calls, on) => {
        run++;
        const { tenants } = await sendTenantCalls([full, other], calls, run);
        // an automatic reviewer decides a request by a `timers` step, which changes only the tenants whose timers fire
        if (tenants.length) {
          const sb = [full, other][on];
          const t = tenants[0];
          const admin = client(sb.listenUrl, ADMIN_TOKEN);
          const auto = { autoReview: { afterSeconds: 1, rule: 'approve' } };
          expect((await admin('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, auto)).status).toBe(200);
          const res = await client(sb.listenUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
          if (res.status === 201) {
            const id = res.json.requestId as string;
            await waitFor(
              async () => ((await admin('GET', `/sandbox/v1/reviews/${id}`)).json.decision ? true : undefined),
              'the automatic review',
              10_000,
            );
          }
        }
        for (const sb of [full, other]) {
          const w = await lastWritten(sb);
          if (w?.carried) {
            copied.parts += w.carried;
            copied.snapshots++;
          }
        }
        const third = await shared.start(db.url, { residentTenants: 0 });
        try {
          for (const t of full.core.tenants.ordered())
            expect(await sliceOf(third, t.id), `tenant ${t.id}`).toEqual(await sliceOf(full, t.id));
        } finally {
          await third.close();
        }
      }),
      { numRuns: 6 },
    );
    expect(copied.snapshots).toBeGreaterThan(0);
    expect(copied.parts).toBeGreaterThan(copied.snapshots);
  }, 240_000);
});
