// Rate limits of /api/v1 over real HTTP on the sandbox clock: the X-RateLimit-* headers on every
// response, 429 with Retry-After past the tier's limit, recovery in the next window, per-key windows,
// and the lifted-limits mode.

import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { limits } from '../src/domain/plans.js';
import { admin, applyBody, balances, jobsApi, nextMinute, startOfWindow, tenantKey, type Res } from './support/jobs.js';
import { client, useSandbox } from './support/sandbox.js';

const rate = (res: Res) => ({
  limit: Number(res.headers.get('x-ratelimit-limit')),
  remaining: Number(res.headers.get('x-ratelimit-remaining')),
  reset: Number(res.headers.get('x-ratelimit-reset')),
});

function expectHeaders(res: Res) {
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(res.headers.get(h), `${h} on ${res.status}`).toMatch(/^\d+$/);
  }
  const { reset } = rate(res);
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

describe('rate limits', () => {
  const sb = useSandbox();

  it('sends the headers on every response, the remaining count falling by one per call across endpoints', async () => {
    await startOfWindow(sb.get());
    const t = await tenantKey(sb.get(), 'starter');
    const calls: Array<[string, string, string, unknown?]> = [
      ['getMe', 'GET', '/api/v1/me'],
      ['searchJobs', 'GET', '/api/v1/jobs?q=engineer'],
      ['searchJobs', 'GET', '/api/v1/jobs?limit=500'],
      ['getJob', 'GET', '/api/v1/jobs/job_unknown'],
      ['searchJobs', 'GET', '/api/v1/jobs?offset=10000'],
      ['applyToJob', 'POST', '/api/v1/jobs/job_unknown/apply', applyBody()],
      ['getSalaryBenchmarks', 'GET', '/api/v1/market/salary'],
      ['listRoles', 'GET', '/api/v1/market/roles'],
      ['getRoleReport', 'GET', '/api/v1/market/roles/nope'],
      ['listSkills', 'GET', '/api/v1/market/skills'],
    ];
    const statuses: number[] = [];
    let previousReset = 61;
    for (const [i, [op, method, path, body]] of calls.entries()) {
      const res = await t.api(op, method, path, body);
      statuses.push(res.status);
      expectHeaders(res);
      expect(rate(res)).toMatchObject({
        limit: limits.spec.jobs.starter.rateLimitPerMinute,
        remaining: limits.spec.jobs.starter.rateLimitPerMinute - 1 - i,
      });
      expect(rate(res).reset).toBeLessThanOrEqual(previousReset);
      previousReset = rate(res).reset;
    }
    expect(new Set(statuses)).toEqual(new Set([200, 400, 402, 404]));
  });

  it('answers 429 with Retry-After past the limit, without doing the work, and recovers in the next window', async () => {
    await startOfWindow(sb.get());
    const t = await tenantKey(sb.get(), 'free');
    const limit = limits.spec.jobs.free.rateLimitPerMinute;
    for (let i = 0; i < limit; i++)
      expect((await t.api('listSkills', 'GET', '/api/v1/market/skills?limit=1')).status).toBe(200);
    const limited = await t.api('searchJobs', 'GET', '/api/v1/jobs');
    expect(limited.status).toBe(429);
    expect(limited.json.error.code).toBe('rate_limited');
    expectHeaders(limited);
    expect(rate(limited)).toMatchObject({ limit, remaining: 0 });
    expect(limited.headers.get('retry-after')).toBe(limited.headers.get('x-ratelimit-reset'));
    // a refused call does no work: not even validation runs, and nothing is charged
    await admin(sb.get())('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { planTier: 'free', applyCredits: 3 });
    expect((await t.api('searchJobs', 'GET', '/api/v1/jobs?limit=0')).status).toBe(429);
    expect((await t.api('applyToJob', 'POST', '/api/v1/jobs/job_x/apply', applyBody())).status).toBe(429);
    expect((await balances(sb.get(), t.tenantId)).apply).toBe(3);

    await nextMinute(sb.get());
    const again = await t.api('searchJobs', 'GET', '/api/v1/jobs');
    expect(again.status).toBe(200);
    expect(rate(again)).toMatchObject({ limit, remaining: limit - 1 });
  });

  it('keeps one window per key, sized by the tier (a scale account gets pro limits)', async () => {
    await startOfWindow(sb.get());
    const t = await tenantKey(sb.get(), 'free');
    const limit = limits.spec.jobs.free.rateLimitPerMinute;
    for (let i = 0; i < limit; i++) await t.api('getMe', 'GET', '/api/v1/me');
    expect((await t.api('getMe', 'GET', '/api/v1/me')).status).toBe(429);
    const second = await admin(sb.get())('POST', `/sandbox/v1/tenants/${t.tenantId}/keys`, { scopes: ['jobs'] });
    const other = await jobsApi(sb.get(), second.json.apiKey)('getMe', 'GET', '/api/v1/me');
    expect(other.status).toBe(200);
    expect(rate(other).remaining).toBe(limit - 1);
    const scale = await tenantKey(sb.get(), 'scale');
    expect(rate(await scale.api('getMe', 'GET', '/api/v1/me')).limit).toBe(limits.spec.jobs.pro.rateLimitPerMinute);
  });

  it('follows a tier change at once', async () => {
    await startOfWindow(sb.get());
    const t = await tenantKey(sb.get(), 'free');
    expect(rate(await t.api('getMe', 'GET', '/api/v1/me')).limit).toBe(limits.spec.jobs.free.rateLimitPerMinute);
    await admin(sb.get())('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { planTier: 'pro' });
    const res = await t.api('getMe', 'GET', '/api/v1/me');
    expect(rate(res)).toMatchObject({
      limit: limits.spec.jobs.pro.rateLimitPerMinute,
      remaining: limits.spec.jobs.pro.rateLimitPerMinute - 2,
    });
  });

  it('sends the headers on 401 and 403 too, from a per-client window, and never turns them into 429', async () => {
    await startOfWindow(sb.get());
    const anonymous = jobsApi(sb.get());
    const wrongKey = jobsApi(sb.get(), `rjk_live_${'0'.repeat(32)}`);
    const { apiKey } = await tenantKey(sb.get(), 'pro');
    const noScope = await tenantKey(sb.get(), 'pro', ['screening']);
    let last: Res | undefined;
    for (let i = 0; i < limits.spec.jobs.free.rateLimitPerMinute + 5; i++) {
      last = await (i % 2 ? anonymous : wrongKey)('searchJobs', 'GET', '/api/v1/jobs');
      expect(last.status).toBe(401);
      expectHeaders(last);
    }
    expect(rate(last!)).toMatchObject({ limit: limits.spec.jobs.free.rateLimitPerMinute, remaining: 0 });
    const inQuery = await anonymous('getMe', 'GET', `/api/v1/me?key=${apiKey}`);
    expect(inQuery.status).toBe(401);
    expectHeaders(inQuery);
    const forbidden = await noScope.api('getMe', 'GET', '/api/v1/me');
    expect(forbidden.status).toBe(403);
    expectHeaders(forbidden);
    // a keyed caller is not affected by the anonymous window
    expect((await jobsApi(sb.get(), apiKey)('getMe', 'GET', '/api/v1/me')).status).toBe(200);
  });

  it("keeps a client address's window only while it can count: a minute after it ends it is gone (D-193)", async () => {
    const free = limits.spec.jobs.free.rateLimitPerMinute;
    /** An unauthenticated search from a loopback address of its own (127.0.0.0/8 all reach the sandbox). */
    const fromAddress = (n: number) =>
      new Promise<{ status: number; remaining: number }>((resolve, reject) => {
        const url = new URL('/api/v1/jobs', sb.get().baseUrl);
        const req = httpRequest(url, { method: 'GET', localAddress: `127.0.3.${n}` }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({ status: res.statusCode!, remaining: Number(res.headers['x-ratelimit-remaining']) }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    const addressWindows = () =>
      sb
        .get()
        .core.store.perMinute.exportState((bucket) => bucket.startsWith('ip:127.0.3.'))
        .map(([bucket]) => bucket);
    await startOfWindow(sb.get());
    for (let n = 1; n <= 40; n++) expect(await fromAddress(n)).toEqual({ status: 401, remaining: free - 1 });
    expect(addressWindows()).toHaveLength(40);
    // the next minute: last minute's windows are kept; the address counts in a new one
    await nextMinute(sb.get());
    expect(await fromAddress(1)).toEqual({ status: 401, remaining: free - 1 });
    expect(addressWindows()).toHaveLength(40);
    // a minute later the windows of two minutes ago are gone, the last minute's kept, and counting goes on as before
    await nextMinute(sb.get());
    expect(await fromAddress(2)).toEqual({ status: 401, remaining: free - 1 });
    expect(addressWindows()).toEqual(['ip:127.0.3.1', 'ip:127.0.3.2']);
    expect(await fromAddress(2)).toEqual({ status: 401, remaining: free - 2 });
    expect(await fromAddress(1)).toEqual({ status: 401, remaining: free - 1 });
  });

  it("shows a tenant's key its own window, uncounted, on a call that never reached it (403, no route, an injected fault; D-155)", async () => {
    await startOfWindow(sb.get());
    const starter = limits.spec.jobs.starter.rateLimitPerMinute;
    const t = await tenantKey(sb.get(), 'starter');
    const raw = client(sb.get().baseUrl, t.apiKey);
    expect(rate(await t.api('getMe', 'GET', '/api/v1/me'))).toMatchObject({ limit: starter, remaining: starter - 1 });
    const noRoute = await raw('GET', '/api/v1/no-such-route');
    expect(noRoute.status).toBe(404);
    expectHeaders(noRoute);
    expect(rate(noRoute)).toMatchObject({ limit: starter, remaining: starter - 1 });
    const rule = await admin(sb.get())('POST', '/sandbox/v1/faults', {
      mode: 'status',
      status: 503,
      path: '/api/v1/jobs',
      count: 1,
      tenantId: t.tenantId,
    });
    expect(rule.status, rule.text).toBe(201);
    const injected = await raw('GET', '/api/v1/jobs');
    expect(injected.status).toBe(503);
    expectHeaders(injected);
    expect(rate(injected)).toMatchObject({ limit: starter, remaining: starter - 1 });
    // neither was counted: the next call is the window's second
    expect(rate(await t.api('getMe', 'GET', '/api/v1/me'))).toMatchObject({ remaining: starter - 2 });
    // a key refused for its scope shows its window too (a tier other than the free one's)
    const noScope = await tenantKey(sb.get(), 'pro', ['screening']);
    const forbidden = await noScope.api('getMe', 'GET', '/api/v1/me');
    expect(forbidden.status).toBe(403);
    const pro = limits.spec.jobs.pro.rateLimitPerMinute;
    expect(rate(forbidden)).toMatchObject({ limit: pro, remaining: pro });
    // the same on the REST fast path's search
    const fastForbidden = await noScope.api('searchJobs', 'GET', '/api/v1/jobs');
    expect(fastForbidden.status).toBe(403);
    expect(rate(fastForbidden)).toMatchObject({ limit: pro, remaining: pro });
    // and none of them counted in the client's own window: an anonymous call is its window's first
    const anonymous = await jobsApi(sb.get())('searchJobs', 'GET', '/api/v1/jobs');
    expect(anonymous.status).toBe(401);
    expect(rate(anonymous)).toMatchObject({
      limit: limits.spec.jobs.free.rateLimitPerMinute,
      remaining: limits.spec.jobs.free.rateLimitPerMinute - 1,
    });
  });
});

describe('rate limits lifted (--no-rate-limits)', () => {
  const sb = useSandbox({ noRateLimits: true });

  it('never answers 429 but still sends the headers with the tier limit', async () => {
    await startOfWindow(sb.get());
    const t = await tenantKey(sb.get(), 'free');
    const limit = limits.spec.jobs.free.rateLimitPerMinute;
    for (let i = 0; i < limit + 10; i++) {
      const res = await t.api('getMe', 'GET', '/api/v1/me');
      expect(res.status).toBe(200);
      expectHeaders(res);
      expect(rate(res).limit).toBe(limit);
    }
  });
});
