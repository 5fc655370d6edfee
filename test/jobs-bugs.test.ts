// The planted bugs of the jobs API break exactly the rule they name while switched on, and the
// behaviour returns when they are switched off (so the conformance harness can be proven on them).

import { describe, expect, it } from 'vitest';
import { limits } from '../src/domain/plans.js';
import { admin, startOfWindow, tenantKey } from './support/jobs.js';
import { client, useSandbox } from './support/sandbox.js';

// the self-check would turn the broken responses into 500s, hiding the bug itself
const sb = useSandbox({ selfCheck: false });

async function withBug(name: string, run: () => Promise<void>) {
  expect((await admin(sb.get())('PUT', `/sandbox/v1/bugs/${name}`)).status).toBeLessThan(300);
  try {
    await run();
  } finally {
    expect((await admin(sb.get())('DELETE', `/sandbox/v1/bugs/${name}`)).status).toBeLessThan(300);
  }
}

describe('planted bugs of the jobs API', () => {
  it('sponsored_on_paid: paid-tier results carry sponsored listings', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    const sponsored = async () =>
      (await client(sb.get().baseUrl, t.apiKey)('GET', '/api/v1/jobs?limit=50')).json.jobs.filter(
        (j: any) => j.sponsored,
      ).length;
    expect(await sponsored()).toBe(0);
    await withBug('sponsored_on_paid', async () => expect(await sponsored()).toBeGreaterThan(0));
    expect(await sponsored()).toBe(0);
  });

  it('drop_ratelimit_remaining: responses lose X-RateLimit-Remaining only', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    const call = () => client(sb.get().baseUrl, t.apiKey)('GET', '/api/v1/me');
    expect((await call()).headers.get('x-ratelimit-remaining')).not.toBeNull();
    await withBug('drop_ratelimit_remaining', async () => {
      const res = await call();
      expect(res.headers.get('x-ratelimit-remaining')).toBeNull();
      expect(res.headers.get('x-ratelimit-limit')).not.toBeNull();
      expect(res.headers.get('x-ratelimit-reset')).not.toBeNull();
    });
    expect((await call()).headers.get('x-ratelimit-remaining')).not.toBeNull();
  });

  it('no_retry_after: 429 responses lose Retry-After', async () => {
    await startOfWindow(sb.get());
    const t = await tenantKey(sb.get(), 'free');
    const call = () => client(sb.get().baseUrl, t.apiKey)('GET', '/api/v1/me');
    for (let i = 0; i < limits.spec.jobs.free.rateLimitPerMinute; i++) await call();
    expect((await call()).headers.get('retry-after')).toMatch(/^\d+$/);
    await withBug('no_retry_after', async () => {
      const res = await call();
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBeNull();
    });
    expect((await call()).headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
