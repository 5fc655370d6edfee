// The tenants benchmark's seeded databases (bench/lib/history.ts): one tenant's history recorded
// through HTTP and copied to every other tenant in SQL must replay, on a restarted instance, as each
// tenant's own calls; and the proof the benchmark runs on every restart must tell a tenant without
// that history apart.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor } from '../bench/lib/http.js';
import { createTenants, seedHistories, verifyHistory } from '../bench/lib/history.js';
import { postgresUnavailable, sharedInstances, startTestDatabase, type TestDatabase } from './support/postgres.js';
import { ADMIN_TOKEN } from './support/sandbox.js';

const unavailable = postgresUnavailable();
if (unavailable) console.warn(unavailable);

describe.skipIf(unavailable)('tenant histories for the tenants benchmark', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await startTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await db?.stop();
  });

  it('copies one recorded history to every tenant; a restarted instance replays each as that tenant’s own', async () => {
    const { start, failures } = sharedInstances('http://127.0.0.1:9', { noRateLimits: true });
    const seeder = await start(db.url);
    const h = await seedHistories(
      { baseUrl: seeder.listenUrl, admin: clientFor(seeder.listenUrl, ADMIN_TOKEN) },
      db.url,
      () => seeder.close(),
      { tenants: 4, callsPerTenant: 6 },
      () => {},
    );
    expect(h.method).toBe('sql');
    expect(h.submitsPerTenant).toBe(1);
    // four creations, then the template's six calls once per tenant
    expect(h.calls).toBeGreaterThanOrEqual(4 + 4 * 6);
    const again = await start(db.url);
    try {
      for (const t of h.tenants) expect(await verifyHistory(again.listenUrl, h, t)).toContain('1 credits spent');
      const [fresh] = await createTenants(
        { baseUrl: again.listenUrl, admin: clientFor(again.listenUrl, ADMIN_TOKEN) },
        1,
      );
      await expect(verifyHistory(again.listenUrl, h, fresh)).rejects.toThrow(/spent 0 credits/);
    } finally {
      await again.close();
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('seeds every tenant through HTTP when another table holds anything (state the SQL copy would miss)', async () => {
    const url = await db.another();
    const { start, failures } = sharedInstances('http://127.0.0.1:9', { noRateLimits: true });
    const seeder = await start(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        'CREATE TABLE tenant_state_elsewhere (tenant_id text PRIMARY KEY); INSERT INTO tenant_state_elsewhere VALUES ($$t$$)',
      );
    } finally {
      await client.end();
    }
    const h = await seedHistories(
      { baseUrl: seeder.listenUrl, admin: clientFor(seeder.listenUrl, ADMIN_TOKEN) },
      url,
      () => seeder.close(),
      { tenants: 3, callsPerTenant: 4 },
      () => {},
    );
    expect(h.method).toBe('http');
    const again = await start(url);
    try {
      for (const t of h.tenants) expect(await verifyHistory(again.listenUrl, h, t)).toContain('1 credits spent');
    } finally {
      await again.close();
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
