// The account dashboard through real HTTP: sign-up validation (message beside the field, what was typed
// kept, never the password), sign-in and sign-out, the per-address throttles, keys (created once,
// listed by hint, revoked: 401 at once), billing (declined card changes nothing, the test card changes
// tier and credits as the tier tables say, the 402's upgradeUrl is this billing page), webhook settings
// and rotation, CSRF and origin checks, and one account never seeing or changing another's keys. Each
// test speaks from its own loopback address, so the per-address limits of one do not touch another.

import { describe, expect, it } from 'vitest';
import { jobsLimitsOf, limits } from '../src/domain/plans.js';
import { ADMIN_TOKEN, client, useSandbox } from './support/sandbox.js';
import { csrfOf, DashboardClient, fieldError, revealedKey, startOfMinute, valueOf } from './support/dashboard.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
let addresses = 10;
/** A client from an address no other test uses. */
const fresh = () => new DashboardClient(sb.get().baseUrl, `127.0.0.${addresses++}`);
const PASSWORD = 'correct horse battery';
const POLICY = limits.policy.dashboard;

async function account(email: string) {
  const c = fresh();
  const res = await c.signUp(email, PASSWORD);
  expect(res.status, res.text).toBe(201);
  return { c, apiKey: revealedKey(res.text)! };
}

const usage = (apiKey: string) => client(sb.get().baseUrl, apiKey)('GET', '/api/screening/v1/usage');
const candidate = { kind: 'structured', fullName: 'Ayu Lestari', skills: ['TypeScript'], experienceYears: 4 };
const jobSpec = { title: 'Backend Engineer', mustHaves: ['TypeScript'] };

describe('sign-up', () => {
  it('answers bad input beside the field, keeps the e-mail typed and never the password', async () => {
    const c = fresh();
    const short = await c.signUp('dev@example.com', 'short');
    expect(short.status).toBe(400);
    expect(fieldError(short.text, 'password')).toMatch(/at least 10 characters/);
    expect(valueOf(short.text, 'email')).toBe('dev@example.com');
    expect(valueOf(short.text, 'password')).toBe('');
    expect(short.text).not.toContain('short"');
    expect(c.cookie).toBe('');

    const bad = await c.signUp('not-an-address', PASSWORD);
    expect(bad.status).toBe(400);
    expect(fieldError(bad.text, 'email')).toMatch(/e-mail address like/);
    expect(valueOf(bad.text, 'email')).toBe('not-an-address');
    expect(bad.text).not.toContain(PASSWORD);

    const ok = await c.signUp('Dev@Example.com', PASSWORD);
    expect(ok.status).toBe(201);
    expect(revealedKey(ok.text)).toMatch(/^rjk_live_[a-z0-9]{32}$/);
    expect(c.cookie).toMatch(/^rjs_app=/);
    expect(ok.headers['set-cookie']?.[0]).toMatch(/HttpOnly; SameSite=Lax/);

    const again = await fresh().signUp('dev@example.com', PASSWORD);
    expect(again.status).toBe(400);
    expect(fieldError(again.text, 'email')).toMatch(/exists already/);
  });

  it('opens a tenant of its own on the free tier whose first key works at once', async () => {
    const { c, apiKey } = await account('free@example.com');
    const res = await usage(apiKey);
    expect(res.status).toBe(200);
    expect(res.json.planTier ?? res.json.tier ?? 'free').toBe('free');
    const overview = await c.get('/app');
    expect(overview.status).toBe(200);
    expect(overview.text).toContain('data-field="plan-tier">free<');
    const tenantId = /data-field="tenant-id">([^<]+)</.exec(overview.text)![1];
    const t = await client(sb.get().baseUrl, ADMIN_TOKEN)('GET', `/sandbox/v1/tenants/${tenantId}`);
    expect(t.json).toMatchObject({
      planTier: 'free',
      name: 'free@example.com',
      screeningCredits: { remaining: POLICY && limits.policy.screening.free.creditsCap },
    });
  });

  it('lets one address open a bounded number of accounts a day, on the sandbox clock', async () => {
    const c = fresh();
    for (let i = 0; i < POLICY.accountsPerAddressPerDay; i++) {
      c.cookie = '';
      expect((await c.signUp(`many${i}@example.com`, PASSWORD)).status).toBe(201);
    }
    c.cookie = '';
    const over = await c.signUp('one-too-many@example.com', PASSWORD);
    expect(over.status).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.text).toMatch(/opened 5 accounts today/);
    expect(valueOf(over.text, 'email')).toBe('one-too-many@example.com');
    // another address is not held back by this one
    expect((await fresh().signUp('elsewhere@example.com', PASSWORD)).status).toBe(201);
  });
});

describe('sign-in and sign-out', () => {
  it('signs out, refuses a wrong password with one message, signs in and returns to the page asked for', async () => {
    const { c } = await account('inout@example.com');
    const before = c.cookie;
    const out = await c.post('/app/logout');
    expect(out.status).toBe(303);
    expect(c.cookie).toBe('');
    // the old session id is dead on the server, not only forgotten by the browser
    c.cookie = before;
    const dead = await c.get('/app/keys');
    expect(dead.status).toBe(303);
    expect(dead.location).toBe('/app/login?next=%2Fapp%2Fkeys');
    c.cookie = '';

    const wrong = await c.signIn('inout@example.com', 'not the password', '/app/billing');
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('do not match an account');
    expect(valueOf(wrong.text, 'email')).toBe('inout@example.com');
    const unknown = await c.signIn('nobody@example.com', PASSWORD);
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('do not match an account');

    const ok = await c.signIn('INOUT@example.com', PASSWORD, '/app/billing');
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/app/billing');
    expect((await c.get('/app/billing')).status).toBe(200);
    // a place to return to off the dashboard is not followed
    c.cookie = '';
    expect((await c.signIn('inout@example.com', PASSWORD, 'https://evil.example/')).location).toBe('/app');
  });

  it('throttles failed sign-ins per address: past the limit even the right password gets 429', async () => {
    await account('throttled@example.com');
    const c = fresh();
    await startOfMinute(sb.get().baseUrl, ADMIN_TOKEN);
    for (let i = 0; i < POLICY.signInFailuresPerMinute; i++)
      expect((await c.signIn('throttled@example.com', 'wrong password')).status).toBe(401);
    const held = await c.signIn('throttled@example.com', PASSWORD);
    expect(held.status).toBe(429);
    expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);
    expect(c.cookie).toBe('');
    expect((await fresh().signIn('throttled@example.com', PASSWORD)).status).toBe(303);
  });

  it('throttles sign-up attempts per address', async () => {
    const c = fresh();
    await startOfMinute(sb.get().baseUrl, ADMIN_TOKEN);
    for (let i = 0; i < POLICY.signUpAttemptsPerMinute; i++)
      expect((await c.signUp(`x${i}@example.com`, 'short')).status).toBe(400);
    expect((await c.signUp('late@example.com', PASSWORD)).status).toBe(429);
  });

  it('refuses a form post without the session token, or from another site', async () => {
    const { c } = await account('csrf@example.com');
    const keys = async () => (await c.get('/app/keys')).text.match(/data-key-id=/g)?.length ?? 0;
    const n = await keys();
    expect((await c.send('POST', '/app/keys', { _csrf: 'forged' })).status).toBe(403);
    expect((await c.send('POST', '/app/keys', {})).status).toBe(403);
    const csrf = csrfOf((await c.get('/app')).text);
    expect((await c.send('POST', '/app/keys', { _csrf: csrf }, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await keys()).toBe(n);
    expect((await c.send('POST', '/app/keys', { _csrf: csrf })).status).toBe(201);
    expect(await keys()).toBe(n + 1);
  });

  it('sends a signed-out visitor to sign in', async () => {
    const res = await fresh().get('/app/billing?currency=IDR');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/app/login?next=%2Fapp%2Fbilling%3Fcurrency%3DIDR');
  });
});

describe('keys', () => {
  it('creates a key shown once, lists keys by hint, and a revoked key answers 401 at once', async () => {
    const { c, apiKey: first } = await account('keys@example.com');
    const made = await c.post('/app/keys');
    expect(made.status).toBe(201);
    const second = revealedKey(made.text)!;
    expect(second).toMatch(/^rjk_live_/);
    expect(second).not.toBe(first);
    expect((await usage(second)).status).toBe(200);

    const list = (await c.get('/app/keys')).text;
    expect(revealedKey(list)).toBeNull();
    expect(list).not.toContain(second);
    expect(list).toContain(`${second.slice(0, 13)}…`);
    expect(list).toContain(`${first.slice(0, 13)}…`);
    const ids = [...list.matchAll(/data-key-id="([^"]+)"/g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);

    const secondId = ids[1];
    const revoked = await c.post(`/app/keys/${secondId}/revoke`);
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe('/app/keys?done=revoked');
    const res = await usage(second);
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('unauthorized');
    // over MCP too
    const mcp = await fetch(`${sb.get().baseUrl}/api/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${second}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    expect((await usage(first)).status).toBe(200);
    expect((await c.get('/app/keys')).text).not.toContain(`data-key-id="${secondId}"`);
    expect((await c.post(`/app/keys/${secondId}/revoke`)).status).toBe(404);
  });

  it("never shows or revokes another account's keys", async () => {
    const a = await account('owner@example.com');
    const b = await account('intruder@example.com');
    const aKeys = (await a.c.get('/app/keys')).text;
    const aId = /data-key-id="([^"]+)"/.exec(aKeys)![1];
    const bKeys = (await b.c.get('/app/keys')).text;
    expect(bKeys).not.toContain(aId);
    expect(bKeys).not.toContain(a.apiKey.slice(0, 13));
    const tried = await b.c.post(`/app/keys/${aId}/revoke`);
    expect(tried.status).toBe(404);
    expect((await usage(a.apiKey)).status).toBe(200);
    expect((await a.c.get('/app/keys')).text).toContain(`data-key-id="${aId}"`);
    // B's session cookie shows B's tenant, never A's
    expect((await b.c.get('/app')).text).toContain('intruder@example.com');
    expect((await b.c.get('/app')).text).not.toContain('owner@example.com');
  });
});

describe('billing', () => {
  const pay = (c: DashboardClient, card: string, extra: Record<string, string> = {}) =>
    c.post(
      '/app/billing',
      { planTier: 'starter', currency: 'IDR', cardNumber: card, expiry: '12/39', cvc: '123', ...extra },
      '/app/billing',
    );

  it("follows a free tenant's 402 to this billing page; the declined card changes nothing; the test card changes tier and credits", async () => {
    const { c, apiKey } = await account('payer@example.com');
    const screen = (n: number) =>
      client(sb.get().baseUrl, apiKey)('POST', '/api/screening/v1/screen', {
        idempotencyKey: `pay-${n}`,
        candidate,
        jobSpec,
      });
    const cap = limits.policy.screening.free.creditsCap;
    for (let i = 0; i < cap; i++) expect((await screen(i)).status).toBe(201);
    const refused = await screen(cap);
    expect(refused.status).toBe(402);
    const upgradeUrl = refused.json.error.upsell.upgradeUrl as string;
    expect(upgradeUrl).toBe(`${sb.get().baseUrl}/app/billing`);
    const page = await c.get(new URL(upgradeUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('data-field="plan-tier">free<');

    const declined = await pay(c, '4000 0000 0000 0002');
    expect(declined.status).toBe(402);
    expect(fieldError(declined.text, 'cardNumber')).toMatch(/declined/);
    expect(valueOf(declined.text, 'cardNumber')).toBe('4000 0000 0000 0002');
    expect(valueOf(declined.text, 'cvc')).toBe('');
    expect(declined.text).toContain('data-field="plan-tier">free<');
    expect((await screen(cap + 1)).status).toBe(402);

    const paid = await pay(c, '4242 4242 4242 4242');
    expect(paid.status).toBe(303);
    expect(paid.location).toBe('/app/billing?done=paid&currency=IDR');
    const after = (await c.get(paid.location!)).text;
    expect(after).toContain('data-field="plan-tier">starter<');
    const starter = limits.policy.screening.starter.creditsCap;
    expect(after).toContain(`data-field="screening-credits">${starter} of ${starter}<`);
    const applies = jobsLimitsOf('starter').applyCreditsPerMonth;
    expect(after).toContain(`data-field="apply-credits">${applies} of ${applies}<`);
    expect(after).toContain(`IDR ${(19 * POLICY.idrPerUsd).toLocaleString('en-US')}`);
    expect(after).toContain('•••• 4242');
    expect((await screen(cap + 2)).status).toBe(201);
    const u = await usage(apiKey);
    expect(u.json).toMatchObject({ planTier: 'starter' });
  });

  it('names each bad checkout field beside it and keeps what was typed', async () => {
    const { c } = await account('checkout@example.com');
    const cases: Array<[Record<string, string>, string, RegExp, number]> = [
      [{ cardNumber: '4242 4242 4242 4241' }, 'cardNumber', /valid card number/, 400],
      [{ cardNumber: '5555 5555 5555 4444' }, 'cardNumber', /test cards only/, 400],
      [{ cardNumber: '4242424242424242', expiry: '13/30' }, 'expiry', /MM\/YY/, 400],
      [{ cardNumber: '4242424242424242', expiry: '01/20' }, 'expiry', /expired/, 400],
      [{ cardNumber: '4242424242424242', cvc: '12' }, 'cvc', /3 or 4 digits/, 400],
      [{ cardNumber: '4242424242424242', planTier: 'platinum' }, 'planTier', /Choose one of the plans/, 400],
      [{ cardNumber: '4242424242424242', planTier: 'free' }, 'planTier', /free plan already/, 400],
      [{ cardNumber: '4242424242424242', currency: 'EUR' }, 'currency', /USD or IDR/, 400],
    ];
    for (const [fields, field, message, status] of cases) {
      const res = await pay(c, fields.cardNumber, fields);
      expect(res.status, JSON.stringify(fields)).toBe(status);
      expect(fieldError(res.text, field), JSON.stringify(fields)).toMatch(message);
      expect(valueOf(res.text, 'cardNumber')).toBe(fields.cardNumber);
      expect(res.text).toContain('data-field="plan-tier">free<');
    }
    // moving back to free needs no card
    expect((await pay(c, '4242 4242 4242 4242', { planTier: 'pro', currency: 'USD' })).status).toBe(303);
    expect((await c.post('/app/billing', { planTier: 'free', currency: 'USD' }, '/app/billing')).location).toBe(
      '/app/billing?done=downgraded&currency=USD',
    );
    expect((await c.get('/app/billing')).text).toContain('data-field="plan-tier">free<');
  });
});

describe('webhook settings', () => {
  it('sets and clears the URL (a bad one named beside the field), shows the secret and rotates it with an overlap', async () => {
    const { c } = await account('hooks@example.com');
    const tenantId = /data-field="tenant-id">([^<]+)</.exec((await c.get('/app')).text)![1];
    const admin = client(sb.get().baseUrl, ADMIN_TOKEN);
    const bad = await c.post('/app/webhooks', { webhookUrl: 'javascript:alert(1)' }, '/app/webhooks');
    expect(bad.status).toBe(400);
    expect(fieldError(bad.text, 'webhookUrl')).toMatch(/absolute http/);
    expect(valueOf(bad.text, 'webhookUrl')).toBe('javascript:alert(1)');
    expect((await admin('GET', `/sandbox/v1/tenants/${tenantId}`)).json.webhookUrl).toBeNull();

    const saved = await c.post('/app/webhooks', { webhookUrl: 'https://hooks.example/in' }, '/app/webhooks');
    expect(saved.location).toBe('/app/webhooks?done=webhook-saved');
    expect((await admin('GET', `/sandbox/v1/tenants/${tenantId}`)).json.webhookUrl).toBe('https://hooks.example/in');

    const page = (await c.get('/app/webhooks')).text;
    const secret = /data-field="webhook-secret">([^<]+)</.exec(page)![1];
    expect((await admin('GET', `/sandbox/v1/tenants/${tenantId}`)).json.webhookSecret).toBe(secret);
    expect((await c.post('/app/webhooks/rotate', {}, '/app/webhooks')).location).toBe('/app/webhooks?done=rotated');
    const t = (await admin('GET', `/sandbox/v1/tenants/${tenantId}`)).json;
    expect(t.webhookSecret).not.toBe(secret);
    expect(t.previousWebhookSecret).toBe(secret);
    const rotated = (await c.get('/app/webhooks')).text;
    expect(rotated).toContain(`data-field="webhook-secret">${t.webhookSecret}<`);
    expect(rotated).toContain('data-field="previous-secret"');

    expect((await c.post('/app/webhooks', { webhookUrl: '' }, '/app/webhooks')).location).toBe(
      '/app/webhooks?done=webhook-cleared',
    );
    expect((await admin('GET', `/sandbox/v1/tenants/${tenantId}`)).json.webhookUrl).toBeNull();
  });
});

describe("a tenant's own pages", () => {
  it('show its own requests, deliveries and calls, and nothing of another tenant', async () => {
    const admin = client(sb.get().baseUrl, ADMIN_TOKEN);
    const mine = await account('mine@example.com');
    const theirs = await account('theirs@example.com');
    const tenantOf = async (c: DashboardClient) =>
      /data-field="tenant-id">([^<]+)</.exec((await c.get('/app')).text)![1];
    const submit = async (apiKey: string, key: string) => {
      const res = await client(sb.get().baseUrl, apiKey)('POST', '/api/screening/v1/screen', {
        idempotencyKey: key,
        candidate,
        jobSpec,
      });
      expect(res.status).toBe(201);
      return res.json.requestId as string;
    };
    // a receiver nobody listens on: attempts fail and are recorded
    for (const c of [mine.c, theirs.c])
      expect((await c.post('/app/webhooks', { webhookUrl: 'http://127.0.0.1:9/hooks' }, '/app/webhooks')).status).toBe(
        303,
      );
    const myRequest = await submit(mine.apiKey, 'own-1');
    const theirRequest = await submit(theirs.apiKey, 'own-2');
    const myDelivery = (await admin('POST', '/sandbox/v1/webhooks/test', { tenantId: await tenantOf(mine.c) })).json
      .delivery?.id as string;
    const theirDelivery = (await admin('POST', '/sandbox/v1/webhooks/test', { tenantId: await tenantOf(theirs.c) }))
      .json.delivery?.id as string;
    expect(myDelivery).toBeTruthy();

    const requests = (await mine.c.get('/app/requests')).text;
    expect(requests).toContain(`data-request-id="${myRequest}"`);
    expect(requests).not.toContain(theirRequest);
    expect((await theirs.c.get('/app/requests')).text).toContain(`data-request-id="${theirRequest}"`);

    const deliveries = (await mine.c.get('/app/deliveries')).text;
    expect(deliveries).toContain(`data-delivery-id="${myDelivery}"`);
    expect(deliveries).not.toContain(theirDelivery);

    const logs = (await mine.c.get('/app/logs')).text;
    expect(logs).toContain('POST /api/screening/v1/screen');
    expect(logs).not.toContain(theirRequest);
    const myLogIds = [...logs.matchAll(/data-log-id="([^"]+)"/g)].map((m) => m[1]);
    const theirLogIds = [...(await theirs.c.get('/app/logs')).text.matchAll(/data-log-id="([^"]+)"/g)].map((m) => m[1]);
    expect(myLogIds.length).toBeGreaterThan(0);
    expect(myLogIds.filter((id) => theirLogIds.includes(id))).toEqual([]);
    // the tenant comes from the session: a tenantId in the query changes nothing
    expect((await mine.c.get(`/app/requests?tenantId=${await tenantOf(theirs.c)}`)).text).not.toContain(theirRequest);
  });
});
