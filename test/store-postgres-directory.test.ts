// The partition of every step and the routing directory of a shared sandbox on a real PostgreSQL: drawn
// sequences of calls that make tenants, keys, dashboard accounts and sessions, sign out, revoke and reset, sent
// to two instances in turn. Afterwards each instance's directory (kept from the steps it ran and the changes
// recorded with the steps it replayed) is exactly what its state holds, the `sandbox_directory` table is the
// same, an instance started later rebuilds it from the table, every step carries its partition, and an API
// call's partition is the tenant of its key (or global for an unknown key).

import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Core } from '../src/domain/core.js';
import type { RunningSandbox } from '../src/main.js';
import type { DirectoryChange } from '../src/replication/directory.js';
import { DashboardClient, revealedKey } from './support/dashboard.js';
import './support/fast-check-seed.js';
import { postgresUnavailable, sharedInstances, twoSharedInstances, type TestDatabase } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const shared = sharedInstances('http://sandbox.test', { corpusSize: 50, noRateLimits: true, snapshotEvery: 0 });
const PASSWORD = 'correct horse battery';

type Op =
  | { op: 'tenant'; on: number }
  | { op: 'key'; on: number; of: number }
  | { op: 'submit'; on: number; of: number; unknownKey: boolean }
  | { op: 'signup'; on: number }
  | { op: 'signin'; on: number; of: number }
  | { op: 'signout'; on: number; of: number }
  | { op: 'dashKey'; on: number; of: number; revoke: boolean }
  | { op: 'reset'; on: number };

const on = fc.nat(1);
const of = fc.nat(7);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('tenant' as const), on }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('key' as const), on, of }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('submit' as const), on, of, unknownKey: fc.boolean() }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('signup' as const), on }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('signin' as const), on, of }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('signout' as const), on, of }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('dashKey' as const), on, of, revoke: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('reset' as const), on }), weight: 1 },
);

/** The directory as the state holds it: every tenant, key hash, account e-mail and session id, sorted. */
function fromState(core: Core): DirectoryChange[] {
  const out: DirectoryChange[] = [];
  for (const t of core.tenants.ordered()) {
    out.push(['tenant', t.id, t.id]);
    for (const k of core.tenants.keysOf(t.id)) out.push(['key', k.hash, t.id]);
  }
  for (const n of core.store.accounts.namesOf()) out.push([n.kind, n.name, n.tenantId]);
  return out.sort((x, y) => (x.join('\t') < y.join('\t') ? -1 : 1));
}

async function tableOf(url: string): Promise<DirectoryChange[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ kind: DirectoryChange[0]; name: string; tenant_id: string }>(
      'SELECT kind, name, tenant_id FROM sandbox_directory',
    );
    return rows
      .map((r): DirectoryChange => [r.kind, r.name, r.tenant_id])
      .sort((x, y) => (x.join('\t') < y.join('\t') ? -1 : 1));
  } finally {
    await c.end();
  }
}

/**
 * The directory of an instance and its state, read after every step committed so far is applied there, with every
 * tenant in memory (an operator's read across tenants loads them all): an instance drops the tenants whose calls
 * run elsewhere (D-172).
 */
const directoryOf = (sb: RunningSandbox) =>
  sb.replica!.read(() => Promise.resolve({ directory: sb.replica!.directory.entries(), state: fromState(sb.core) }), {
    app: 'main',
    method: 'GET',
    url: 'http://sandbox.test/sandbox/v1/reviews',
    header: (name) => (name.toLowerCase() === 'authorization' ? `Bearer ${ADMIN_TOKEN}` : undefined),
    body: null,
  });

describe.skipIf(why !== null)('the routing directory and the partition of every step on a shared sandbox', () => {
  let db: TestDatabase;
  let a: RunningSandbox;
  let b: RunningSandbox;
  twoSharedInstances(shared, (p) => ({ db, a, b } = p));

  it('keeps every instance’s directory and the table equal to the state, through drawn calls on two instances', async () => {
    const admin = (sb: RunningSandbox) => client(sb.listenUrl, ADMIN_TOKEN);
    let run = 0;
    // every key ever issued with its tenant (a key's text is never issued twice, reset or not)
    const issued = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 4, maxLength: 14 }), async (ops) => {
        run++;
        const tenants: { tenantId: string; apiKey: string }[] = [];
        const people: { email: string; browser: DashboardClient }[] = [];
        let n = 0;
        for (const o of ops) {
          const sb = o.on ? b : a;
          const pick = <T>(xs: T[], i: number) => (xs.length ? xs[i % xs.length] : undefined);
          switch (o.op) {
            case 'tenant': {
              const res = await admin(sb)('POST', '/sandbox/v1/tenants', { planTier: 'scale' });
              expect(res.status, res.text).toBe(201);
              const made = res.json as { tenantId: string; apiKey: string };
              tenants.push(made);
              issued.set(made.apiKey, made.tenantId);
              break;
            }
            case 'key': {
              const t = pick(tenants, o.of);
              if (!t) break;
              const res = await admin(sb)('POST', `/sandbox/v1/tenants/${t.tenantId}/keys`, {});
              expect(res.status, res.text).toBe(201);
              issued.set((res.json as { apiKey: string }).apiKey, t.tenantId);
              break;
            }
            case 'submit': {
              const t = pick(tenants, o.of);
              const key = o.unknownKey || !t ? 'sk_test_unknown0000000000000000' : t.apiKey;
              await client(sb.listenUrl, key)('POST', `${SCREENING}/screen`, submitBody());
              break;
            }
            case 'signup': {
              const browser = new DashboardClient(sb.listenUrl, `127.0.0.${60 + ((run * 16 + n) % 150)}`);
              const email = `p${run}-${n++}@example.com`;
              const res = await browser.signUp(email, PASSWORD);
              expect(res.status, res.text).toBe(201);
              people.push({ email, browser });
              break;
            }
            case 'signin': {
              const p = pick(people, o.of);
              if (!p) break;
              p.browser.base = sb.listenUrl;
              await p.browser.signIn(p.email, PASSWORD);
              break;
            }
            case 'signout': {
              const p = pick(people, o.of);
              if (!p?.browser.cookie) break;
              p.browser.base = sb.listenUrl;
              await p.browser.post('/app/logout');
              break;
            }
            case 'dashKey': {
              const p = pick(people, o.of);
              if (!p?.browser.cookie) break;
              p.browser.base = sb.listenUrl;
              const page = await p.browser.get('/app/keys');
              if (page.status !== 200) break;
              const ids = [...page.text.matchAll(/data-key-id="([^"]+)"/g)].map((m) => m[1]);
              if (o.revoke && ids.length) await p.browser.post(`/app/keys/${ids[0]}/revoke`, {}, '/app/keys');
              else revealedKey((await p.browser.post('/app/keys', {}, '/app/keys')).text);
              break;
            }
            case 'reset': {
              const res = await admin(sb)('POST', '/sandbox/v1/reset');
              expect(res.status, res.text).toBe(200);
              tenants.length = 0;
              people.length = 0;
              break;
            }
          }
        }
        const [onA, onB] = await Promise.all([directoryOf(a), directoryOf(b)]);
        expect(onA.directory).toEqual(onA.state);
        expect(onB.directory).toEqual(onB.state);
        expect(onB.directory).toEqual(onA.directory);
        expect(await tableOf(db.url)).toEqual(onA.directory);
      }),
      { numRuns: 6 },
    );

    // the operator sees the steps by partition and the directory's size
    const report = await client(a.listenUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/store');
    expect(report.status, report.text).toBe(200);
    const parts = (
      report.json as { instance: { partitions: { directoryTenants: number; steps: Record<string, number> } } }
    ).instance.partitions;
    expect(parts.directoryTenants).toBe(a.core.tenants.list().length);
    for (const kind of ['tenant', 'global', 'create', 'all']) expect(parts.steps[kind]).toBeGreaterThan(0);

    // an instance started now rebuilds the directory from the table (and the steps after its snapshot)
    const late = await shared.start(db.url);
    try {
      const onLate = await directoryOf(late);
      expect(onLate.directory).toEqual(onLate.state);
      expect(onLate.directory).toEqual((await directoryOf(a)).directory);
    } finally {
      await late.close();
    }

    // every step carries its partition; an API call's is its key's tenant, or global for a key of no tenant
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const { rows } = await c.query<{ step: string; partition: string | null }>(
        'SELECT step, partition FROM sandbox_log ORDER BY seq',
      );
      expect(rows.length).toBeGreaterThan(20);
      expect(rows.filter((r) => r.partition === null)).toEqual([]);
      const kinds = new Set(rows.map((r) => (r.partition!.startsWith('ten_') ? 'tenant' : r.partition)));
      expect([...kinds].sort()).toEqual(['all', 'create', 'global', 'tenant']);
      // each API call's key names the tenant of its partition (a key is never moved to another tenant)
      let checked = 0;
      for (const r of rows) {
        const step = JSON.parse(r.step) as { t: string; url?: string; headers?: [string, string][] };
        if (step.t !== 'call' || !step.url!.includes('/api/')) continue;
        const auth = step.headers!.find(([h]) => h.toLowerCase() === 'authorization')?.[1];
        const owner = auth ? issued.get(auth.replace(/^Bearer /i, '')) : undefined;
        if (owner) {
          expect(r.partition).toBe(owner);
          checked++;
        } else if (auth?.includes('unknown')) expect(r.partition).toBe('global');
      }
      expect(checked).toBeGreaterThan(0);
    } finally {
      await c.end();
    }
  }, 180_000);
});
