// Audit export: keyset pages over the caller's own rows; cursors that survive appends, refuse
// tampering and other tenants; `since` seeds only the first page.

import { describe, expect, it } from 'vitest';
import type { SubmitRequest } from '../src/contract/types.js';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, clockAdvance, expectConforms, submitBody, waitFor } from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;
const core = () => sb.get().core;

/** Submits straight through the domain (fast seeding) and waits for the pipelines to run. */
async function seed(tenantId: string, requests: number): Promise<void> {
  const tenant = core().tenants.get(tenantId);
  tenant.screeningWallet.remaining += requests;
  for (let i = 0; i < requests; i++) core().screening.submit(tenant, submitBody() as SubmitRequest);
  await waitFor(
    () =>
      core()
        .screening.list({ tenantId })
        .every((r) => r.state === 'pending_review'),
    'pipelines',
    20_000,
  );
}

async function page(apiKey: string, query: string) {
  const res = await client(base(), apiKey)('GET', `${SCREENING}/audit${query}`);
  expect(res.status, res.text).toBe(200);
  expectConforms(core(), 'getAudit', res);
  return res.json as { events: any[]; nextCursor: string | null };
}

describe('GET /audit', () => {
  it('walks 10,000 rows exactly once each while rows keep arriving between pages', async () => {
    const t = await createTenant(base(), { planTier: 'scale' });
    await seed(t.tenantId, 2500); // four rows each: received, parsed, scored, pending_review
    const api = client(base(), t.apiKey);
    expect(core().screening.ledger.rowsOf(t.tenantId).length).toBe(10_000);

    const seen = new Map<string, number>();
    let lastSeq = '';
    let cursor: string | null = null;
    let pages = 0;
    do {
      const p = await page(t.apiKey, `?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      for (const e of p.events) {
        seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
        expect(e.id > lastSeq, 'ascending ids').toBe(true);
        lastSeq = e.id;
      }
      cursor = p.nextCursor;
      // rows arrive between pages: new submits over HTTP (and their pipelines)
      if (pages++ < 10) expect((await api('POST', `${SCREENING}/screen`, submitBody())).status).toBe(201);
    } while (cursor);

    const all = core().screening.ledger.rowsOf(t.tenantId);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    // every row that existed when the last page was read was returned
    const lastIndex = all.findIndex((r) => r.id === lastSeq);
    expect(all.slice(0, lastIndex + 1).map((r) => r.id)).toEqual([...seen.keys()]);
    expect(seen.size).toBeGreaterThanOrEqual(10_000 + 10);
  });

  it('defaults to 100 rows, honours limit, and ends with nextCursor null', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    await seed(t.tenantId, 30); // 120 rows
    const first = await page(t.apiKey, '');
    expect(first.events).toHaveLength(100);
    expect(typeof first.nextCursor).toBe('string');
    const rest = await page(t.apiKey, `?cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(rest.events).toHaveLength(20);
    expect(rest.nextCursor).toBeNull();
    const one = await page(t.apiKey, '?limit=1');
    expect(one.events).toHaveLength(1);
    expect(one.events[0]).toMatchObject({
      fromState: null,
      toState: 'received',
      actor: 'system',
      requestId: expect.stringMatching(/^scr_/),
    });
    const exact = await page(t.apiKey, '?limit=120');
    expect(exact.nextCursor).toBeNull();
  });

  it('uses since for the first page only; the cursor decides after that', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    await seed(t.tenantId, 5); // 20 rows
    await clockAdvance(base(), 60);
    const since = core().clock.iso();
    await seed(t.tenantId, 5); // 20 more, all at or after `since`
    const rows = core().screening.ledger.rowsOf(t.tenantId);
    const expected = rows.filter((r) => r.at >= Date.parse(since)).map((r) => r.id);
    expect(expected).toHaveLength(20);

    const got: string[] = [];
    let p = await page(t.apiKey, `?since=${encodeURIComponent(since)}&limit=6`);
    got.push(...p.events.map((e) => e.id));
    while (p.nextCursor) {
      p = await page(
        t.apiKey,
        `?since=${encodeURIComponent(since)}&limit=6&cursor=${encodeURIComponent(p.nextCursor)}`,
      );
      got.push(...p.events.map((e) => e.id));
    }
    expect(got).toEqual(expected);
    const future = await page(
      t.apiKey,
      `?since=${encodeURIComponent(new Date(core().clock.now() + 3600_000).toISOString())}`,
    );
    expect(future).toEqual({ events: [], nextCursor: null });
  });

  it('refuses bad parameters with 400 naming them', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const other = await createTenant(base(), { planTier: 'pro' });
    await seed(t.tenantId, 2);
    await seed(other.tenantId, 2);
    const api = client(base(), t.apiKey);
    const foreign = (await page(other.apiKey, '?limit=1')).nextCursor!;
    const own = (await page(t.apiKey, '?limit=1')).nextCursor!;
    const tampered = own.replace(/.(?=\.)/, (ch) => (ch === 'A' ? 'B' : 'A'));
    const cases: Array<[string, string]> = [
      ['?limit=0', 'limit'],
      ['?limit=501', 'limit'],
      ['?limit=100000000000000000000', 'limit'],
      ['?limit=ten', 'limit'],
      ['?limit=2.5', 'limit'],
      ['?since=yesterday', 'since'],
      ['?cursor=garbage', 'cursor'],
      [`?cursor=${encodeURIComponent(foreign)}`, 'cursor'],
      [`?cursor=${encodeURIComponent(tampered)}`, 'cursor'],
    ];
    for (const [q, field] of cases) {
      const res = await api('GET', `${SCREENING}/audit${q}`);
      expect(res.status, q).toBe(400);
      expect(res.json.error.code, q).toBe('invalid_request');
      expect(res.json.error.message, q).toContain(field);
      expectConforms(core(), 'getAudit', res);
    }
  });

  it("returns only the caller's rows", async () => {
    const a = await createTenant(base(), { planTier: 'pro' });
    const b = await createTenant(base(), { planTier: 'pro' });
    await seed(a.tenantId, 3);
    const ids = new Set(
      core()
        .screening.list({ tenantId: a.tenantId })
        .map((r) => r.id),
    );
    const pa = await page(a.apiKey, '?limit=500');
    expect(pa.events).toHaveLength(12);
    expect(pa.events.every((e) => ids.has(e.requestId))).toBe(true);
    expect(await page(b.apiKey, '?limit=500')).toEqual({ events: [], nextCursor: null });
  });
});
