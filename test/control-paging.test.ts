// Every control API listing and console list answers one bounded page with a keyset cursor: with
// 20,000 pending reviews, GET /sandbox/v1/reviews and /console/reviews return one default page (rows
// and bytes counted, never timed), the walk visits each item once in order, and a cursor outlives
// nothing it should not.

import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';

const sb = useSandbox({ selfCheck: false });
const PENDING = 20_000;

async function seedPending(n: number): Promise<string> {
  const { core, baseUrl } = sb.get();
  const t = await createTenant(baseUrl, { planTier: 'scale', name: 'Bulk Co' });
  await client(baseUrl, ADMIN_TOKEN)('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { screeningCredits: 1_000_000 });
  const tenant = core.tenants.get(t.tenantId);
  for (let i = 0; i < n; i++) {
    core.screening.submit(tenant, {
      idempotencyKey: `bulk-${i}`,
      candidate: { kind: 'structured', fullName: `Candidate ${i}`, skills: ['TypeScript'] },
      jobSpec: { title: 'Backend Engineer', mustHaves: ['TypeScript'] },
    });
    if (i % 2000 === 1999) await new Promise((r) => setImmediate(r));
  }
  for (let tries = 0; core.screening.requests.countIn('pending_review') < n && tries < 400; tries++)
    await new Promise((r) => setTimeout(r, 25));
  expect(core.screening.requests.countIn('pending_review')).toBe(n);
  return t.tenantId;
}

async function consoleCookie(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: baseUrl },
    body: new URLSearchParams({ token: ADMIN_TOKEN, next: '/console/reviews' }),
  });
  return res.headers.get('set-cookie')!.split(';')[0];
}

describe('paged admin listings', () => {
  it('answers one bounded page of a 20,000-review queue, oldest first, and walks it by cursor', async () => {
    const tenantId = await seedPending(PENDING);
    const { baseUrl } = sb.get();
    const admin = client(baseUrl, ADMIN_TOKEN);

    const first = await admin('GET', '/sandbox/v1/reviews?state=pending_review');
    expect(first.status).toBe(200);
    expect(first.json.reviews).toHaveLength(50);
    expect(first.text.length).toBeLessThan(200_000);
    expect(typeof first.json.nextCursor).toBe('string');

    const counts = await admin('GET', '/sandbox/v1/reviews/counts');
    expect(counts.json.counts.pending_review).toBe(PENDING);

    // three pages of 200: in creation order, no repeats, each request once
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 3; i++) {
      const page: any = await admin(
        'GET',
        `/sandbox/v1/reviews?state=pending_review&tenantId=${tenantId}&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.json.reviews).toHaveLength(200);
      seen.push(...page.json.reviews.map((r: { requestId: string }) => r.requestId));
      cursor = page.json.nextCursor;
    }
    expect(new Set(seen).size).toBe(600);
    const created = seen.map((id) => sb.get().core.screening.get(id)!.createdAt);
    expect(created).toEqual([...created].sort((a, b) => a - b));
    expect(sb.get().core.screening.get(seen[0])!.idempotencyKey).toBe('bulk-0');

    // the console's queue is one page too, with the pending count in the navigation
    const cookie = await consoleCookie(baseUrl);
    const page = await fetch(`${baseUrl}/console/reviews`, { headers: { cookie } });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html.match(/<article class="panel review"/g)).toHaveLength(50);
    expect(html.length).toBeLessThan(1_000_000);
    expect(html).toContain(`data-field="pending-count">${PENDING}<`);
    expect(html).toContain('rel="next"');
    const requests = await (await fetch(`${baseUrl}/console/requests`, { headers: { cookie } })).text();
    expect(requests.match(/<tr><th scope="row">/g)).toHaveLength(50);
  }, 120_000);

  it('pages tenants, deliveries, applications, outbox and the request log, and refuses bad paging input', async () => {
    const { baseUrl } = sb.get();
    const admin = client(baseUrl, ADMIN_TOKEN);
    for (let i = 0; i < 3; i++) await createTenant(baseUrl, { planTier: 'free', name: `Paged ${i}` });
    const all = sb
      .get()
      .core.tenants.list()
      .map((t) => t.id);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await admin('GET', `/sandbox/v1/tenants?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.json.tenants.length).toBeLessThanOrEqual(2);
      walked.push(...page.json.tenants.map((t: { tenantId: string }) => t.tenantId));
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(walked).toEqual(all);

    for (const path of [
      '/sandbox/v1/webhooks/deliveries',
      '/sandbox/v1/applications',
      '/sandbox/v1/outbox',
      '/sandbox/v1/logs',
    ]) {
      const res = await admin('GET', `${path}?limit=1`);
      expect(res.status, path).toBe(200);
      expect(res.json, path).toHaveProperty('nextCursor');
    }
    for (const bad of ['limit=0', 'limit=501', 'limit=abc', 'order=sideways', 'cursor=not-a-cursor']) {
      const res = await admin('GET', `/sandbox/v1/reviews?${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.json.error.code).toBe('invalid_request');
    }
    // the short lists are bounded instead: at most 100 chaos rules, and `limit` endpoints
    for (let i = 0; i < 100; i++)
      expect(
        (await admin('POST', '/sandbox/v1/faults', { path: `/api/v1/x${i}`, mode: 'latency', latencyMs: 0 })).status,
      ).toBe(201);
    const over = await admin('POST', '/sandbox/v1/faults', {
      path: '/api/v1/one-too-many',
      mode: 'latency',
      latencyMs: 0,
    });
    expect(over.status).toBe(400);
    expect(over.json.error.message).toMatch(/at most 100 chaos rules/);
    expect((await admin('GET', '/sandbox/v1/faults')).json.rules).toHaveLength(100);
    await admin('DELETE', '/sandbox/v1/faults');
    expect((await admin('GET', '/sandbox/v1/webhooks/endpoints?limit=0')).status).toBe(400);
    // a cursor of the ascending walk is not a cursor of the descending one
    const asc = await admin('GET', '/sandbox/v1/tenants?limit=1');
    expect((await admin('GET', `/sandbox/v1/tenants?limit=1&order=desc&cursor=${asc.json.nextCursor}`)).status).toBe(
      400,
    );
    // after a reset the old cursor no longer matches anything: refused, not silently skipping. The cursor ends on
    // a tenant this test created (demo tenants keep their seed-derived ids across a reset, D-83)
    let mine: any = asc;
    while (mine.json.tenants[0].name.startsWith('Demo'))
      mine = await admin('GET', `/sandbox/v1/tenants?limit=1&cursor=${mine.json.nextCursor}`);
    await admin('POST', '/sandbox/v1/reset');
    for (let i = 0; i < 12; i++) await createTenant(baseUrl, { planTier: 'free', name: `After ${i}` });
    const stale = await admin('GET', `/sandbox/v1/tenants?limit=1&cursor=${mine.json.nextCursor}`);
    expect(stale.status).toBe(400);
    expect(stale.json.error.message).toMatch(/reset/);
  });
});
