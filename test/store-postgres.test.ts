// The PostgreSQL store against a real PostgreSQL (a throwaway cluster, test/support/postgres.ts):
// two pools stand for two sandbox instances on one database, and every guarantee the shared sandbox
// rests on is exercised by both at once.

import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/store/postgres/migrate.js';
import { advanceClock, claimSeed, clockOffset, cursorSecret } from '../src/store/postgres/meta.js';
import { claimDueDeliveries, claimPipelineJobs, enqueueDelivery, finishPipelineJob, LEASE_MS, recordAttempt } from '../src/store/postgres/outbox.js';
import { openPool, type Db } from '../src/store/postgres/pool.js';
import { admit, expireDue, ledgerPage, screeningCredits, transition, type LedgerPageRow } from '../src/store/postgres/screening.js';
import { addChaosRule, fireChaosRule, takeDraft, takeWindow } from '../src/store/postgres/shared.js';
import { applyWithCredit, createTenant, keyOwner } from '../src/store/postgres/tenants.js';
import { postgresUnavailable, startTestDatabase, type TestDatabase } from './support/postgres.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const submission = (key: string) => ({ idempotencyKey: key, candidate: { kind: 'structured' as const, fullName: 'Ana Putri' }, jobSpec: { title: 'Backend engineer', mustHaves: ['go'] } });
const attempt = (statusCode: number | null) => ({ attempt: 0, at: new Date().toISOString(), statusCode, error: null, durationMs: 1, manual: false, url: 'http://127.0.0.1:1/hook', requestHeaders: {}, body: '{}', signature: '', responseBody: '', responseTruncated: false });

describe.skipIf(why !== null)('PostgreSQL store, two instances on one database', () => {
  let db: TestDatabase;
  let a: Db;
  let b: Db;
  const now = () => Date.now();

  beforeAll(async () => {
    db = await startTestDatabase();
    a = openPool(db.url);
    b = openPool(db.url);
    await migrate(a);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([a?.end(), b?.end()]);
    await db?.stop();
  });

  it('migrates once when four instances start at the same moment, and seeds the demo tenants once', async () => {
    const url = await db.another();
    const pools = Array.from({ length: 4 }, () => openPool(url, 2));
    const seeded: boolean[] = [];
    const applied = await Promise.all(pools.map((p) => migrate(p, async (client) => void seeded.push(await claimSeed(client, 1)))));
    expect(applied.flat()).toEqual([1]);
    expect(seeded.filter(Boolean)).toHaveLength(1);
    const { rows } = await pools[0].query('SELECT version FROM schema_migrations');
    expect(rows).toEqual([{ version: 1 }]);
    await Promise.all(pools.map((p) => p.end()));
  });

  it('concurrent same-key submits on both instances make one request and one charge', async () => {
    const { tenantId } = await createTenant(a, { planTier: 'pro' }, now());
    const before = (await screeningCredits(a, tenantId))!.remaining;
    const outcomes = await Promise.all(Array.from({ length: 16 }, (_, i) => admit(i % 2 ? a : b, tenantId, submission('same-key'), now())));
    const created = outcomes.filter((o) => o.kind === 'created');
    expect(created).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'replayed')).toHaveLength(15);
    expect(new Set(outcomes.map((o) => ('requestId' in o ? o.requestId : null))).size).toBe(1);
    expect((await screeningCredits(b, tenantId))!.remaining).toBe(before - 1);
    const { rows } = await b.query('SELECT count(*)::int AS n FROM ledger WHERE tenant_id = $1', [tenantId]);
    expect(rows[0].n).toBe(1);
  });

  it('same-key submits that all missed the key before any committed still make one request and one charge', async () => {
    const { tenantId } = await createTenant(a, { planTier: 'pro' }, now());
    // hold the tenant's row so every submit gets past its first look-up and then queues up behind the lock
    const holder = await a.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
    const racing = Array.from({ length: 8 }, (_, i) => admit(i % 2 ? a : b, tenantId, submission('queued-key'), now()));
    for (let waiting = 0; waiting < 8; ) {
      const { rows } = await b.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
      waiting = rows[0].n;
    }
    await holder.query('COMMIT');
    holder.release();
    const outcomes = await Promise.all(racing);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['created', ...Array(7).fill('replayed')]);
    const credits = (await screeningCredits(a, tenantId))!;
    expect(credits.cap - credits.remaining).toBe(1);
  });

  it('a wallet at its cap is charged exactly up to it across instances, never below zero', async () => {
    const { tenantId } = await createTenant(b, { planTier: 'free' }, now());
    const cap = (await screeningCredits(a, tenantId))!.cap;
    const outcomes = await Promise.all(Array.from({ length: cap * 3 }, (_, i) => admit(i % 2 ? a : b, tenantId, submission(`k${i}`), now())));
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(cap);
    expect(outcomes.filter((o) => o.kind === 'exhausted')).toHaveLength(cap * 2);
    expect((await screeningCredits(a, tenantId))!.remaining).toBe(0);
  });

  it('concurrent applies on both instances spend the apply wallet exactly down to zero; the draft quota likewise', async () => {
    const { tenantId } = await createTenant(a, { planTier: 'starter' }, now());
    const cap: number = (await a.query('SELECT apply_cap FROM tenants WHERE id = $1', [tenantId])).rows[0].apply_cap;
    expect(cap).toBeGreaterThan(0);
    const outcomes = await Promise.all(Array.from({ length: cap + 12 }, (_, i) => applyWithCredit(i % 2 ? a : b, tenantId, { jobId: `job_${i}` }, now())));
    expect(outcomes.filter((o) => o.kind === 'submitted')).toHaveLength(cap);
    expect(outcomes.filter((o) => o.kind === 'no_credits')).toHaveLength(12);
    const stored = await a.query('SELECT count(*)::int AS n FROM applications WHERE tenant_id = $1', [tenantId]);
    expect(stored.rows[0].n).toBe(cap);
    expect((await a.query('SELECT apply_remaining FROM tenants WHERE id = $1', [tenantId])).rows[0].apply_remaining).toBe(0);
    const drafts = await Promise.all(Array.from({ length: 20 }, (_, i) => takeDraft(i % 2 ? a : b, tenantId, 202611, 7)));
    expect(drafts.filter((d) => d !== null).sort((p, q) => p! - q!)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('keyset pages read while both instances append never skip or repeat a row', async () => {
    const { tenantId } = await createTenant(a, { planTier: 'scale' }, now());
    const seen: LedgerPageRow[] = [];
    let after = 0;
    let writing = true;
    const readPage = async () => {
      const page = await ledgerPage(a, tenantId, after, 7);
      seen.push(...page.rows);
      if (page.rows.length) after = page.rows.at(-1)!.seq;
    };
    const writers = Array.from({ length: 6 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 15; i++) {
          const out = await admit(w % 2 ? a : b, tenantId, submission(`w${w}-${i}`), now());
          if (out.kind === 'created') await transition(w % 2 ? b : a, out.requestId, 'received', 'parsed', 'system', null, now());
        }
      })(),
    );
    const reader = (async () => {
      while (writing) await readPage();
    })();
    await Promise.all(writers);
    writing = false;
    await reader;
    await readPage();
    await readPage();
    const all = await b.query('SELECT event_id FROM ledger WHERE tenant_id = $1 ORDER BY seq', [tenantId]);
    expect(all.rows).toHaveLength(6 * 15 * 2);
    expect(seen.map((r) => r.id)).toEqual(all.rows.map((r) => r.event_id));
  });

  it('a key, the clock, the cursor secret and a credit change made on one instance are seen at once on the other', async () => {
    const { tenantId, apiKey } = await createTenant(a, { planTier: 'starter' }, now());
    expect((await keyOwner(b, apiKey))?.tenant.id).toBe(tenantId);
    const offset = await clockOffset(b);
    await advanceClock(a, 3_600_000);
    expect(await clockOffset(b)).toBe(offset + 3_600_000);
    expect((await cursorSecret(a)).equals(await cursorSecret(b))).toBe(true);
    await admit(a, tenantId, submission('one'), now());
    const w = (await keyOwner(b, apiKey))!.tenant.screeningWallet;
    expect(w.remaining).toBe(w.cap - 1);
  });

  it('each queued pipeline job and each due delivery is claimed by exactly one instance; a dead lease is taken over', async () => {
    const { tenantId } = await createTenant(a, { planTier: 'pro', webhookUrl: 'http://127.0.0.1:1/hook' }, now());
    await a.query('DELETE FROM pipeline_jobs');
    for (let i = 0; i < 20; i++) await admit(a, tenantId, submission(`p${i}`), now());
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => claimPipelineJobs(i % 2 ? a : b, `inst-${i % 2}`, 3)));
    const ids = claims.flat();
    expect(ids).toHaveLength(new Set(ids).size);
    expect(ids).toHaveLength(20);
    // the instance holding the jobs dies: nobody may take them until the lease runs out, then one does
    expect(await claimPipelineJobs(b, 'inst-new', 50)).toEqual([]);
    const later = Date.now() + LEASE_MS + 1;
    expect((await claimPipelineJobs(b, 'inst-new', 50, later)).sort()).toEqual([...ids].sort());
    expect(await finishPipelineJob(a, 'inst-0', ids[0])).toBe(false);
    expect(await finishPipelineJob(b, 'inst-new', ids[0])).toBe(true);

    const t = now();
    const deliveries = await Promise.all(Array.from({ length: 12 }, (_, i) => enqueueDelivery(a, { tenantId, requestId: `scr_${i}`, event: 'screening.scored', result: { i } }, t)));
    const got = (await Promise.all(Array.from({ length: 8 }, (_, i) => claimDueDeliveries(i % 2 ? a : b, `inst-${i % 2}`, t, 4)))).flat();
    expect(got.map((d) => d.id).sort()).toEqual([...deliveries].sort());
    const d0 = got[0];
    const owner = (await a.query('SELECT lease_owner FROM deliveries WHERE id = $1', [d0.id])).rows[0].lease_owner;
    const other = owner === 'inst-0' ? 'inst-1' : 'inst-0';
    expect(await recordAttempt(b, other, d0.id, attempt(500), t)).toBe('lost');
    expect(await recordAttempt(b, owner, d0.id, attempt(500), t)).toBe('retrying');
    // the retry is due 5 s of sandbox time later, and survives in the database for whoever is running then
    expect(await claimDueDeliveries(a, 'x', t + 4_000, 10)).toEqual([]);
    const retry = await claimDueDeliveries(a, 'x', t + 5_000, 10);
    expect(retry.map((d) => [d.id, d.failures])).toEqual([[d0.id, 1]]);
    expect(await recordAttempt(a, 'x', d0.id, attempt(204), t + 5_000)).toBe('delivered');
    const recorded = await a.query('SELECT attempt, instance FROM delivery_attempts WHERE delivery_id = $1 ORDER BY attempt', [d0.id]);
    expect(recorded.rows).toEqual([{ attempt: 1, instance: owner }, { attempt: 2, instance: 'x' }]);
  });

  it('review expiries fire exactly once when both instances sweep', async () => {
    const { tenantId } = await createTenant(a, { planTier: 'pro' }, now());
    const t = now();
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const out = await admit(b, tenantId, submission(`e${i}`), t);
      if (out.kind !== 'created') throw new Error('not created');
      await transition(a, out.requestId, 'received', 'pending_review', 'system', null, t, { reviewExpiresAt: t + 1000 });
      ids.push(out.requestId);
    }
    expect(await expireDue(a, t + 999)).toEqual([]);
    const [x, y] = await Promise.all([expireDue(a, t + 1000), expireDue(b, t + 1000)]);
    expect([...x, ...y].sort()).toEqual([...ids].sort());
    const { rows } = await a.query(`SELECT count(*)::int AS n FROM ledger WHERE tenant_id = $1 AND to_state = 'expired'`, [tenantId]);
    expect(rows[0].n).toBe(8);
  });

  it('rate windows and chaos rule counts are shared: no unit is spent twice', async () => {
    const counts = await Promise.all(Array.from({ length: 40 }, (_, i) => takeWindow(i % 2 ? a : b, 'anon-day', '203.0.113.9', 1_700_000_000_000)));
    expect([...counts].sort((p, q) => p - q)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    await addChaosRule(a, 'rule_1', { status: 503 }, 5, now());
    const fired = await Promise.all(Array.from({ length: 20 }, (_, i) => fireChaosRule(i % 2 ? a : b, 'rule_1')));
    expect(fired.filter(Boolean)).toHaveLength(5);
  });

  it('kill -9 of an instance mid-write loses nothing it acknowledged, and its claimed work is taken over', async () => {
    const { tenantId } = await createTenant(a, { planTier: 'scale' }, now());
    await a.query('DELETE FROM pipeline_jobs');
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/pg-writer.ts', db.url, tenantId], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked = new Map<string, string>();
    const claimed = new Set<string>();
    let buffer = '';
    const enough = new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
      child.stdout!.on('data', (chunk) => {
        buffer += chunk;
        const lines = buffer.split('\n');
        buffer = lines.pop()!;
        for (const l of lines) {
          const [what, x, y] = l.split(' ');
          if (what === 'ack') acked.set(x, y);
          if (what === 'claimed') claimed.add(x);
        }
        if (acked.size >= 40 && claimed.size >= 5) resolve();
        else if (acked.size >= 400) reject(new Error(`the writer claimed only ${claimed.size} distinct queued jobs in 400 submits`));
      });
    });
    await enough.catch((err) => {
      child.kill('SIGKILL');
      throw err;
    });
    child.removeAllListeners('exit');
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    const { rows } = await b.query('SELECT idempotency_key, id FROM screening_requests WHERE tenant_id = $1', [tenantId]);
    const stored = new Map(rows.map((r) => [r.idempotency_key, r.id]));
    for (const [key, id] of acked) expect(stored.get(key), key).toBe(id);
    // whatever committed, acknowledged or not, was charged once and written to the ledger once
    const w = await screeningCredits(b, tenantId);
    expect(w!.cap - w!.remaining).toBe(stored.size);
    const ledger = await b.query('SELECT count(*)::int AS n FROM ledger WHERE tenant_id = $1', [tenantId]);
    expect(ledger.rows[0].n).toBe(stored.size);
    // the dead instance's leased jobs stay untouched until the lease runs out, then another instance takes them all
    const queued = (await b.query('SELECT request_id FROM pipeline_jobs')).rows.map((r) => r.request_id);
    expect(queued.sort()).toEqual([...stored.values()].sort());
    const takenNow = await claimPipelineJobs(b, 'survivor', 10_000);
    for (const id of claimed) expect(takenNow).not.toContain(id);
    const takenLater = await claimPipelineJobs(b, 'survivor', 10_000, Date.now() + LEASE_MS + 1);
    for (const id of claimed) expect(takenLater).toContain(id);
  }, 60_000);
});
