// The operator console on a shared sandbox (D-141): two instances on one PostgreSQL, no sticky routing. A
// sign-in on instance A works on B; a form read on one is posted on the other; the new key a post on A
// reveals is shown once by the page on B; a post without the CSRF token, or with a forged session cookie,
// is refused on both and changes nothing; a sign-out on B ends the session on A too.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/main.js';
import { browser } from './support/console.js';
import { postgresUnavailable, sharedInstances, startTestDatabase, type TestDatabase } from './support/postgres.js';
import { adminOf } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const { failures, start } = sharedInstances('http://sandbox.test', { seedDemo: false, corpusSize: 50 });

describe.skipIf(why !== null)('console sessions on two instances of one shared sandbox', () => {
  let db: TestDatabase;
  let a: RunningSandbox;
  let b: RunningSandbox;

  beforeAll(async () => {
    db = await startTestDatabase();
    [a, b] = await Promise.all([start(db.url), start(db.url)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await db?.stop();
    expect(failures).toEqual([]);
  });

  const tenantCount = async (sb: RunningSandbox) =>
    (await adminOf(sb.listenUrl)('GET', '/sandbox/v1/tenants?limit=500')).json.tenants.length as number;
  /** A browser behind a load balancer without sticky sessions: each request goes where it is sent. */
  const on = (c: ReturnType<typeof browser>, sb: RunningSandbox) => {
    c.base = sb.listenUrl;
    return c;
  };

  it('a sign-in on A works on B; a form from one is posted on the other; a new key is shown once, anywhere', async () => {
    const c = browser(a.listenUrl);
    await c.login();
    const page = await on(c, b).request('GET', '/console/tenants');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<h1>Tenants/);
    // the CSRF token read on A is the session's on B too
    const csrf = await on(c, a).csrf();
    const made = await on(c, b).request('POST', '/console/tenants', {
      _csrf: csrf,
      planTier: 'pro',
      name: 'Across instances',
      scopes: ['screening'],
    });
    expect(made.status, made.text).toBe(303);
    const first = await on(c, a).request('GET', made.headers.get('location')!);
    const key = /id="new-api-key" class="secret">(rjk_live_[0-9a-z]{32})</.exec(first.text)?.[1];
    expect(key, first.text.slice(0, 400)).toBeDefined();
    expect(first.text).toMatch(/Created tenant Across instances/);
    const again = await on(c, b).request('GET', made.headers.get('location')!);
    expect(again.status).toBe(200);
    expect(again.text).not.toContain(key!);
    // the key is never readable in a cookie
    expect(c.cookie).not.toContain(key!);
  });

  it('refuses a post without the CSRF token, or with a forged session, on both instances', async () => {
    const c = browser(a.listenUrl);
    await c.login();
    const before = await tenantCount(a);
    for (const sb of [a, b]) {
      const res = await on(c, sb).request('POST', '/console/tenants', { planTier: 'pro', name: 'no token' });
      expect(res.status).toBe(403);
      expect(res.text).toContain('security token');
    }
    const csrf = await c.csrf();
    const real = c.cookie;
    const [, value] = /rjs_console=([^;]+)/.exec(real)!;
    const [id, seen, mac] = value.split('.');
    for (const forged of [`${id}.${Number(seen) + 1}.${mac}`, `${id}.${seen}.${mac.slice(0, -2)}AA`]) {
      c.cookie = `rjs_console=${forged}`;
      for (const sb of [a, b]) {
        const res = await on(c, sb).request('POST', '/console/tenants', {
          _csrf: csrf,
          planTier: 'pro',
          name: 'forged',
        });
        expect(res.status).toBe(401);
      }
    }
    expect(await tenantCount(a)).toBe(before);
    expect(await tenantCount(b)).toBe(before);
  });

  it('a sign-out on B ends the session on A', async () => {
    const c = browser(a.listenUrl);
    await c.login();
    const cookie = c.cookie;
    expect((await on(c, a).request('GET', '/console/clock')).status).toBe(200);
    const out = await on(c, b).request('POST', '/console/logout', { _csrf: await c.csrf() });
    expect(out.status).toBe(303);
    c.cookie = cookie;
    for (const sb of [a, b]) {
      const res = await on(c, sb).request('GET', '/console/clock');
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toMatch(/^\/console\/login/);
    }
  });
});
