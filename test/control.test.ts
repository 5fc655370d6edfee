import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';

const sb = useSandbox();

describe('control API: tenants, keys, clock, faults', () => {
  it('refuses calls without the admin token', async () => {
    const anon = client(sb.get().baseUrl);
    const res = await anon('GET', '/sandbox/v1/tenants');
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('unauthorized');
    const wrong = await client(sb.get().baseUrl, 'sat_wrong')('GET', '/sandbox/v1/tenants');
    expect(wrong.status).toBe(401);
  });

  it('creates a tenant whose key has the _live_ prefix and shows it once', async () => {
    const t = await createTenant(sb.get().baseUrl, { planTier: 'starter', webhookSecret: 'whsec_testsecret' });
    expect(t.apiKey).toMatch(/^rjk_live_[0-9a-z]{32}$/);
    expect(t.webhookSecret).toBe('whsec_testsecret');
    const admin = client(sb.get().baseUrl, ADMIN_TOKEN);
    const got = await admin('GET', `/sandbox/v1/tenants/${t.tenantId}`);
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(t.apiKey);
    expect(got.json.keys[0].hint).toBe(t.apiKey.slice(0, 13) + '…');
  });

  it('rejects bad tenant input with a 400 naming the field', async () => {
    const admin = client(sb.get().baseUrl, ADMIN_TOKEN);
    for (const [body, field] of [
      [{ planTier: 'gold' }, 'planTier'],
      [{ planTier: 'pro', scopes: ['root'] }, 'scopes'],
      [{ planTier: 'pro', webhookUrl: 'ftp://x' }, 'webhookUrl'],
      [{ planTier: 'pro', extra: 1 }, 'extra'],
    ] as const) {
      const res = await admin('POST', '/sandbox/v1/tenants', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.code).toBe('invalid_request');
      expect(res.json.error.message).toContain(field);
    }
    const bad = await admin('POST', '/sandbox/v1/tenants', '{"planTier":', {});
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/JSON/);
  });

  it('patches tier and credits, validating everything before changing anything', async () => {
    const t = await createTenant(sb.get().baseUrl, { planTier: 'free' });
    const admin = client(sb.get().baseUrl, ADMIN_TOKEN);
    const bad = await admin('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { planTier: 'pro', screeningCredits: -1 });
    expect(bad.status).toBe(400);
    const unchanged = await admin('GET', `/sandbox/v1/tenants/${t.tenantId}`);
    expect(unchanged.json.planTier).toBe('free');
    const ok = await admin('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { planTier: 'pro', applyCredits: 7 });
    expect(ok.status).toBe(200);
    expect(ok.json.planTier).toBe('pro');
    expect(ok.json.screeningCredits.cap).toBe(500);
    expect(ok.json.applyCredits.remaining).toBe(7);
  });

  it('advances the sandbox clock', async () => {
    const admin = client(sb.get().baseUrl, ADMIN_TOKEN);
    const before = Date.parse((await admin('GET', '/sandbox/v1/clock')).json.now);
    const res = await admin('POST', '/sandbox/v1/clock/advance', { seconds: 3600 });
    expect(res.status).toBe(200);
    expect(Date.parse(res.json.now) - before).toBeGreaterThanOrEqual(3600_000);
    expect((await admin('POST', '/sandbox/v1/clock/advance', { seconds: -5 })).status).toBe(400);
  });

  it('injects a 503 on the next call of an endpoint, then clears', async () => {
    const base = sb.get().baseUrl;
    const admin = client(base, ADMIN_TOKEN);
    const rule = await admin('POST', '/sandbox/v1/faults', {
      path: '/api/v1/me',
      mode: 'status',
      status: 503,
      count: 1,
    });
    expect(rule.status).toBe(201);
    const demoKey = sb.get().core.demo!.tenants[1].apiKey;
    const api = client(base, demoKey);
    const first = await api('GET', '/api/v1/me');
    expect(first.status).toBe(503);
    expect(first.json.error.code).toBe('service_disabled');
    const faults = await admin('GET', '/sandbox/v1/faults');
    expect(faults.json.rules).toHaveLength(0);
  });

  it('seeds one demo tenant per plan tier plus a key without the screening scope', () => {
    const demo = sb.get().core.demo!;
    expect(demo.tenants.map((t) => t.planTier).slice(0, 4)).toEqual(['free', 'starter', 'pro', 'scale']);
    expect(demo.tenants.some((t) => !t.scopes.includes('screening'))).toBe(true);
  });
});

describe('chaos faults on the jobs API', () => {
  it('still carry the X-RateLimit headers', async () => {
    const base = sb.get().baseUrl;
    const admin = client(base, ADMIN_TOKEN);
    await admin('POST', '/sandbox/v1/faults', { path: '/api/v1/jobs', mode: 'status', status: 429, count: 1 });
    const res = await client(base, sb.get().core.demo!.tenants[2].apiKey)('GET', '/api/v1/jobs');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      expect(res.headers.get(h), h).toMatch(/^\d+$/);
  });
});
