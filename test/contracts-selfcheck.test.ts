// Self-check mode over real HTTP: a conforming response passes untouched, a response that breaks the
// contract becomes a 500 naming the problem (and is logged), chaos-injected statuses are let through, and
// with self-check off the same broken response reaches the client as it is.

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSandbox, type RunningSandbox } from '../src/main.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';

const sandbox = useSandbox({ corpusSize: 200 });

describe('self-check on', () => {
  let key: string;
  const admin = () => client(sandbox.get().baseUrl, ADMIN_TOKEN);
  const api = () => client(sandbox.get().baseUrl, key);

  beforeAll(async () => {
    key = (await createTenant(sandbox.get().baseUrl, { planTier: 'starter' })).apiKey;
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await admin()('DELETE', '/sandbox/v1/bugs/drop_ratelimit_remaining');
    await admin()('DELETE', '/sandbox/v1/faults');
  });

  it('lets a conforming response through unchanged', async () => {
    const res = await api()('GET', '/api/v1/me');
    expect(res.status).toBe(200);
    expect(res.json.tier).toBe('starter');
    expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const usage = await api()('GET', '/api/screening/v1/usage');
    expect(usage.status).toBe(200);
    expect(usage.json.planTier).toBe('starter');
  });

  it('turns a response that breaks the contract into a 500 naming the problem, and logs it', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect((await admin()('PUT', '/sandbox/v1/bugs/drop_ratelimit_remaining')).status).toBe(200);
    const res = await api()('GET', '/api/v1/me');
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('internal');
    expect(res.json.error.message).toContain('getMe');
    expect(res.json.error.message).toContain('header X-RateLimit-Remaining is missing');
    expect(log.mock.calls.some((args) => String(args[0]).includes('header X-RateLimit-Remaining is missing'))).toBe(
      true,
    );
  });

  it('lets statuses injected by chaos rules through, even where undocumented', async () => {
    const rule = await admin()('POST', '/sandbox/v1/faults', {
      path: '/api/screening/v1/usage',
      mode: 'status',
      status: 503,
      count: 1,
    });
    expect(rule.status).toBeLessThan(300);
    const res = await api()('GET', '/api/screening/v1/usage');
    expect(res.status).toBe(503);
    expect(res.json.error.code).toBe('service_disabled');
    expect(res.json.error.message).toMatch(/^injected fault /);
  });

  it('checks error responses too: a 400 carries a message naming the parameter', async () => {
    const res = await api()('GET', '/api/screening/v1/audit?limit=501');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: { code: 'invalid_request', message: "limit must be an integer from 1 to 500 (got '501')" },
    });
  });
});

describe('self-check off', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await startSandbox({
      host: '127.0.0.1',
      port: 0,
      anonMcpPort: 0,
      adminToken: ADMIN_TOKEN,
      selfCheck: false,
      corpusSize: 200,
      bugs: ['drop_ratelimit_remaining'],
    });
  });
  afterAll(async () => {
    await sb?.close();
  });

  it('passes the broken response through as it is', async () => {
    const { apiKey } = await createTenant(sb.baseUrl, { planTier: 'starter' });
    const res = await client(sb.baseUrl, apiKey)('GET', '/api/v1/me');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
  });
});
