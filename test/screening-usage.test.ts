// Usage: the caller's own wallet, the near-limit flag at 80%, reset dates per tier.

import { describe, expect, it } from 'vitest';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, adminOf, expectConforms, submitBody } from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;

describe('GET /usage', () => {
  it('reports a fresh free tenant: cap 10, no reset, freeScreenCap present', async () => {
    const t = await createTenant(base(), { planTier: 'free' });
    const res = await client(base(), t.apiKey)('GET', `${SCREENING}/usage`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      tenantId: t.tenantId,
      planTier: 'free',
      creditsRemaining: 10,
      creditsCap: 10,
      usagePercent: 0,
      nearLimit: false,
      resetAt: null,
      freeScreenCap: 10,
    });
    expectConforms(sb.get().core, 'getUsage', res);
  });

  it.each([
    ['starter', 100],
    ['pro', 500],
    ['scale', 2000],
  ])('reports a %s tenant: cap %i, reset at the next month start UTC, no freeScreenCap', async (planTier, cap) => {
    const t = await createTenant(base(), { planTier });
    const res = await client(base(), t.apiKey)('GET', `${SCREENING}/usage`);
    expect(res.json).toMatchObject({ planTier, creditsCap: cap, creditsRemaining: cap, nearLimit: false });
    expect(res.json).not.toHaveProperty('freeScreenCap');
    expectConforms(sb.get().core, 'getUsage', res);
    const reset = new Date(res.json.resetAt);
    expect(reset.getUTCDate()).toBe(1);
    expect(reset.getUTCHours() + reset.getUTCMinutes() + reset.getUTCSeconds()).toBe(0);
    const now = new Date(sb.get().core.clock.now());
    expect(reset.getTime()).toBeGreaterThan(now.getTime());
    expect(reset.getTime() - now.getTime()).toBeLessThanOrEqual(31 * 86400_000);
  });

  it('sets nearLimit once 80% of the cap is used, not before', async () => {
    const t = await createTenant(base(), { planTier: 'free' });
    const api = client(base(), t.apiKey);
    for (let i = 1; i <= 8; i++) {
      expect((await api('POST', `${SCREENING}/screen`, submitBody())).status).toBe(201);
      const u = (await api('GET', `${SCREENING}/usage`)).json;
      expect(u.creditsRemaining).toBe(10 - i);
      expect(u.usagePercent).toBeCloseTo(i / 10, 10);
      expect(u.nearLimit).toBe(i >= 8);
    }
  });

  it('refills a paid wallet when the sandbox clock passes resetAt', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    await adminOf(base())('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { screeningCredits: 10 });
    const api = client(base(), t.apiKey);
    const before = (await api('GET', `${SCREENING}/usage`)).json;
    expect(before).toMatchObject({ creditsRemaining: 10, nearLimit: true, usagePercent: 0.9 });
    const seconds = Math.ceil((Date.parse(before.resetAt) - sb.get().core.clock.now()) / 1000) + 1;
    await adminOf(base())('POST', '/sandbox/v1/clock/advance', { seconds });
    const after = (await api('GET', `${SCREENING}/usage`)).json;
    expect(after).toMatchObject({ creditsRemaining: 100, nearLimit: false, usagePercent: 0 });
    expect(Date.parse(after.resetAt)).toBeGreaterThan(Date.parse(before.resetAt));
  });

  it('keeps credits the operator sets after a refill came due, whether or not a read came first (D-162)', async () => {
    const admin = adminOf(base());
    const [read, unread] = [
      await createTenant(base(), { planTier: 'starter' }),
      await createTenant(base(), { planTier: 'starter' }),
    ];
    const usage = (key: string) => client(base(), key)('GET', `${SCREENING}/usage`);
    const resetAt = Date.parse((await usage(read.apiKey)).json.resetAt);
    const seconds = Math.ceil((resetAt - sb.get().core.clock.now()) / 1000) + 1;
    await admin('POST', '/sandbox/v1/clock/advance', { seconds });
    // the refill that came due is reported, and reading it changes nothing
    expect((await usage(read.apiKey)).json).toMatchObject({ creditsRemaining: 100 });
    for (const t of [read, unread]) {
      const set = await admin('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { screeningCredits: 5 });
      expect(set.json.screeningCredits, t.tenantId).toMatchObject({ remaining: 5 });
      expect(Date.parse(set.json.screeningCredits.resetAt)).toBeGreaterThan(resetAt);
      expect((await client(base(), t.apiKey)('POST', `${SCREENING}/screen`, submitBody())).status).toBe(201);
      expect((await usage(t.apiKey)).json, t.tenantId).toMatchObject({ creditsRemaining: 4 });
    }
  });

  it('ignores query parameters (none are documented) but still refuses a key in the query', async () => {
    const t = await createTenant(base(), { planTier: 'pro' });
    const api = client(base(), t.apiKey);
    const res = await api('GET', `${SCREENING}/usage?verbose=1`);
    expect(res.status).toBe(200);
    expect(res.json.tenantId).toBe(t.tenantId);
    expect((await api('GET', `${SCREENING}/usage?key=${t.apiKey}`)).status).toBe(401);
  });

  it('is not rate-limited (policy): more calls than the jobs API allows a free key per minute all answer', async () => {
    const t = await createTenant(base(), { planTier: 'free' });
    const api = client(base(), t.apiKey);
    const statuses = await Promise.all(
      Array.from({ length: 70 }, () => api('GET', `${SCREENING}/usage`).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
  });

  it("never reports another tenant's wallet", async () => {
    const a = await createTenant(base(), { planTier: 'starter' });
    const b = await createTenant(base(), { planTier: 'starter' });
    await client(base(), a.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    await client(base(), a.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    const ua = (await client(base(), a.apiKey)('GET', `${SCREENING}/usage`)).json;
    const ub = (await client(base(), b.apiKey)('GET', `${SCREENING}/usage`)).json;
    expect([ua.tenantId, ua.creditsRemaining]).toEqual([a.tenantId, 98]);
    expect([ub.tenantId, ub.creditsRemaining]).toEqual([b.tenantId, 100]);
  });
});
