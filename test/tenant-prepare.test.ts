// A tenant's import made ahead in slices (D-170): a shared sandbox reads a dropped tenant's stored state and makes
// its screening requests and ledger rows in slices between other tenants' calls, so that the import, which holds
// calls up, only puts them in place. What is put in place is exactly what a direct import makes, the rows made ahead
// are the ones put in place (not made a second time), nothing in memory changes while they are made, and rows made
// ahead against a ledger that a reset has since replaced are made again.

import { describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { resolveConfig } from '../src/config.js';
import { createCore, type Core } from '../src/domain/core.js';
import { exportTenant, forgetTenant, importTenant, prepareTenant } from '../src/domain/snapshot.js';
import { openMemoryStore } from '../src/store/memory.js';
import { appCaller, drawnSubmit, quiesce } from './support/inProcess.js';

const ADMIN = 'sat_tenant_prepare';
const REQUESTS = 300;

/** A core with one tenant of `REQUESTS` screenings (queued, scored and expired ones) and the tenant's export as JSON. */
async function tenantWithHistory(): Promise<{ core: Core; tenantId: string; text: string }> {
  const core = await createCore(
    resolveConfig({
      adminToken: ADMIN,
      seedDemo: false,
      corpusSize: 40,
      publicUrl: 'http://sandbox.test',
      rateLimits: false,
    } as never),
    (deps) => openMemoryStore(deps, {}),
  );
  const call = appCaller(createApp(core), ADMIN);
  const made = await call('POST', '/sandbox/v1/tenants', { name: 'long history', planTier: 'scale' });
  const { tenantId, apiKey } = made.body as { tenantId: string; apiKey: string };
  await call('PATCH', `/sandbox/v1/tenants/${tenantId}`, { screeningCredits: REQUESTS + 10 });
  for (let i = 0; i < REQUESTS; i++) {
    const res = await call(
      'POST',
      '/api/screening/v1/screen',
      drawnSubmit({ idem: i, cand: i % 3, title: i % 4 }),
      apiKey,
    );
    expect(res.status).toBe(201);
  }
  await quiesce(core);
  return { core, tenantId, text: JSON.stringify(exportTenant(core, tenantId)) };
}

/** Runs sliced work to its end, counting its pauses. */
function pausesOf(work: Iterator<void, unknown>): number {
  let pauses = 0;
  while (!work.next().done) pauses++;
  return pauses;
}

describe("a tenant's import made ahead in slices (D-170)", () => {
  it('puts in place what was made ahead, exactly what a direct import makes, without making it again', async () => {
    const { core, tenantId, text } = await tenantWithHistory();
    const rowsBefore = core.screening.ledger.size;
    // a direct import, for comparison
    forgetTenant(core, tenantId);
    importTenant(core, tenantId, JSON.parse(text));
    expect(JSON.stringify(exportTenant(core, tenantId))).toBe(text);

    const buildRows = vi.spyOn(core.screening.ledger, 'buildRows');
    try {
      const ahead: unknown = JSON.parse(text);
      forgetTenant(core, tenantId);
      const others = core.screening.ledger.size;
      // in many slices, and nothing of the tenant in memory meanwhile
      expect(pausesOf(prepareTenant(core, tenantId, ahead))).toBeGreaterThanOrEqual((2 * REQUESTS) / 64);
      expect(core.tenants.has(tenantId)).toBe(false);
      expect(core.screening.ledger.size).toBe(others);
      expect(core.screening.list({ tenantId })).toEqual([]);
      importTenant(core, tenantId, ahead);
      // the rows made ahead were put in place: made once
      expect(buildRows).toHaveBeenCalledTimes(1);
      expect(JSON.stringify(exportTenant(core, tenantId))).toBe(text);
      expect(core.screening.ledger.size).toBe(rowsBefore);
    } finally {
      buildRows.mockRestore();
    }
  });

  it('makes them again when a reset replaced the ledger after they were made', async () => {
    const { core, tenantId, text } = await tenantWithHistory();
    const buildRows = vi.spyOn(core.screening.ledger, 'buildRows');
    try {
      const ahead: unknown = JSON.parse(text);
      pausesOf(prepareTenant(core, tenantId, ahead));
      core.reset();
      importTenant(core, tenantId, ahead);
      expect(buildRows).toHaveBeenCalledTimes(2);
      expect(JSON.stringify(exportTenant(core, tenantId))).toBe(text);
    } finally {
      buildRows.mockRestore();
    }
  });

  it('makes nothing ahead for data of another format or tenant (the import refuses it)', async () => {
    const { core, tenantId, text } = await tenantWithHistory();
    const data = JSON.parse(text) as { format: number };
    expect(pausesOf(prepareTenant(core, 'ten_other', data))).toBe(0);
    expect(pausesOf(prepareTenant(core, tenantId, { ...data, format: data.format + 1 }))).toBe(0);
    expect(() => importTenant(core, tenantId, { ...data, format: data.format + 1 })).toThrow(/snapshot format/);
  });
});
