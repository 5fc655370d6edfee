// The account dashboard on a shared sandbox: two instances on one PostgreSQL (a throwaway cluster), no
// sticky routing. A session made on one works on the other at once, a key made on one and revoked on the
// other answers 401 on both, a sign-out ends the session everywhere, a plan paid on one is the plan on
// the other, failed sign-ins on both count in one window, and an instance started later rebuilds all of
// it from the log.

import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/main.js';
import { limits } from '../src/domain/plans.js';
import { DashboardClient, revealedKey, startOfMinute } from './support/dashboard.js';
import { postgresUnavailable, sharedInstances, twoSharedInstances, type TestDatabase } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const PUBLIC_URL = 'http://sandbox.test';
const PASSWORD = 'correct horse battery';
const shared = sharedInstances(PUBLIC_URL, { seedDemo: false, corpusSize: 50 });

const usageAt = (sb: RunningSandbox, apiKey: string) => client(sb.listenUrl, apiKey)('GET', '/api/screening/v1/usage');

describe.skipIf(why !== null)('the dashboard on two instances of one shared sandbox', () => {
  let db: TestDatabase;
  let a: RunningSandbox;
  let b: RunningSandbox;
  twoSharedInstances(shared, (p) => ({ db, a, b } = p));

  /** One browser whose requests go to either instance, as behind a load balancer without sticky sessions. */
  const on = (c: DashboardClient, sb: RunningSandbox) => {
    c.base = sb.listenUrl;
    return c;
  };

  it('a session made on one instance works on the other; keys made and revoked anywhere hold everywhere', async () => {
    const c = new DashboardClient(a.listenUrl, '127.0.0.41');
    const signedUp = await on(c, a).signUp('shared@example.com', PASSWORD);
    expect(signedUp.status).toBe(201);
    const first = revealedKey(signedUp.text)!;
    expect((await usageAt(b, first)).status).toBe(200);

    const onB = await on(c, b).get('/app/keys');
    expect(onB.status).toBe(200);
    expect(onB.text).toContain('shared@example.com');

    // made on B (with a CSRF token read from A), revoked on A: 401 on both at once
    c.base = a.listenUrl;
    const csrfPage = (await c.get('/app')).text;
    c.base = b.listenUrl;
    const made = await c.send('POST', '/app/keys', { _csrf: /name="_csrf" value="([^"]+)"/.exec(csrfPage)![1] });
    expect(made.status).toBe(201);
    const second = revealedKey(made.text)!;
    expect((await usageAt(a, second)).status).toBe(200);
    const ids = [...(await on(c, a).get('/app/keys')).text.matchAll(/data-key-id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    expect((await on(c, a).post(`/app/keys/${ids[1]}/revoke`)).status).toBe(303);
    expect((await usageAt(b, second)).status).toBe(401);
    expect((await usageAt(a, second)).status).toBe(401);
    expect((await usageAt(b, first)).status).toBe(200);

    // a plan paid on B is the plan on A
    const paid = await on(c, b).post(
      '/app/billing',
      { planTier: 'pro', currency: 'USD', cardNumber: '4242424242424242', expiry: '12/39', cvc: '123' },
      '/app/billing',
    );
    expect(paid.status).toBe(303);
    expect((await on(c, a).get('/app/billing')).text).toContain('data-field="plan-tier">pro<');
    expect((await usageAt(a, first)).json).toMatchObject({ planTier: 'pro' });

    // an instance started later rebuilds accounts, sessions and revocations from the log
    const late = await shared.start(db.url);
    try {
      expect((await on(c, late).get('/app/keys')).text).toContain('shared@example.com');
      expect((await usageAt(late, second)).status).toBe(401);
      expect((await usageAt(late, first)).status).toBe(200);
    } finally {
      await late.close();
    }

    // signed out on A: the session is dead on B too
    const cookie = c.cookie;
    expect((await on(c, a).post('/app/logout')).status).toBe(303);
    c.cookie = cookie;
    expect((await on(c, b).get('/app/keys')).status).toBe(303);

    // the password hashed on A's step verifies on B
    c.cookie = '';
    expect((await on(c, b).signIn('shared@example.com', PASSWORD, '/app/webhooks')).location).toBe('/app/webhooks');
    expect((await on(c, a).get('/app/webhooks')).status).toBe(200);
  }, 60_000);

  it("counts one address's failed sign-ins on both instances in one window, and the upsell names the public dashboard", async () => {
    const c = new DashboardClient(a.listenUrl, '127.0.0.42');
    const { signInFailuresPerMinute } = limits.policy.dashboard;
    await startOfMinute(a.listenUrl, ADMIN_TOKEN);
    for (let i = 0; i < signInFailuresPerMinute; i++)
      expect((await on(c, i % 2 ? a : b).signIn('shared@example.com', 'wrong password')).status).toBe(401);
    expect((await on(c, a).signIn('shared@example.com', PASSWORD)).status).toBe(429);
    expect((await on(c, b).signIn('shared@example.com', PASSWORD)).status).toBe(429);

    const t = await client(a.listenUrl, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { planTier: 'free' });
    const pastCap = await client(b.listenUrl, t.json.apiKey)(
      'GET',
      `/api/v1/jobs?limit=1&offset=${limits.spec.jobs.free.maxPages}`,
    );
    expect(pastCap.status).toBe(402);
    expect(pastCap.json.error.upsell.upgradeUrl).toBe(`${PUBLIC_URL}/app/billing`);
  }, 60_000);
});
