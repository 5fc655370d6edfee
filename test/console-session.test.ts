// The console without a browser: sign-in, the session cookie, CSRF and same-origin checks, escaping
// of data in pages, the new key shown once, control API errors shown on the page, and /docs.

import { describe, expect, it, vi } from 'vitest';
import { MemorySignOuts, SessionStore } from '../src/sandbox/console/session.js';
import { browser } from './support/console.js';
import { ADMIN_TOKEN, client, useSandbox } from './support/sandbox.js';

const sb = useSandbox();

async function tenantCount(baseUrl: string) {
  const res = await client(baseUrl, ADMIN_TOKEN)('GET', '/sandbox/v1/tenants');
  return (res.json.tenants as unknown[]).length;
}

describe('console sign-in and session', () => {
  it('sends signed-out visitors to the sign-in form, keeping where they were going', async () => {
    const b = browser(sb.get().baseUrl);
    const res = await b.request('GET', '/console/faults');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/login?next=%2Fconsole%2Ffaults');
    const login = await b.request('GET', '/console/login?next=%2Fconsole%2Ffaults');
    expect(login.status).toBe(200);
    expect(login.text).toContain('<label for="token">Admin token</label>');
  });

  it('refuses a wrong token without creating a session', async () => {
    const b = browser(sb.get().baseUrl);
    const res = await b.request('POST', '/console/login', { token: 'sat_not_it', next: '/console/tenants' });
    expect(res.status).toBe(401);
    expect(res.setCookie).toBeNull();
    expect(res.text).toContain('not the admin token');
  });

  it('sets an HttpOnly, SameSite=Strict, browser-session cookie holding an opaque id, never the token', async () => {
    const b = browser(sb.get().baseUrl);
    const res = await b.request('POST', '/console/login', { token: ADMIN_TOKEN, next: '/console/clock' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/console/clock');
    const attrs = res.setCookie!.split(';').map((s) => s.trim());
    expect(attrs).toContain('HttpOnly');
    expect(attrs).toContain('SameSite=Strict');
    expect(attrs).toContain('Path=/console');
    expect(res.setCookie).not.toMatch(/max-age|expires/i);
    expect(res.setCookie).not.toContain(ADMIN_TOKEN);
    // a random id, when it was last used, and the signature (D-141): nothing else
    expect(b.cookie).toMatch(/^rjs_console=[A-Za-z0-9_-]{43}\.\d+\.[A-Za-z0-9_-]{43}$/);
    const page = await b.request('GET', '/console/clock');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Sandbox clock</h1>');
  });

  it('only returns to console paths after sign-in', async () => {
    const b = browser(sb.get().baseUrl);
    for (const next of [
      'https://evil.example/',
      '//evil.example/console',
      '/console/../sandbox/v1/reset',
      '/\\evil.example',
      'javascript:alert(1)',
    ]) {
      const res = await b.request('POST', '/console/login', { token: ADMIN_TOKEN, next });
      expect(res.headers.get('location'), next).toBe('/console/tenants');
    }
  });

  it('ends the session on sign-out; the old cookie no longer works', async () => {
    const b = browser(sb.get().baseUrl);
    await b.login();
    const old = b.cookie;
    const csrf = await b.csrf();
    const out = await b.request('POST', '/console/logout', { _csrf: csrf });
    expect(out.status).toBe(303);
    expect(out.setCookie).toMatch(/Max-Age=0/);
    b.cookie = old;
    const again = await b.request('GET', '/console/tenants');
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toMatch(/^\/console\/login/);
  });

  it('ends a session idle for more than 12 hours of real time, and renews one in use', async () => {
    const base = sb.get().baseUrl;
    // cookies signed with the sandbox's own key (derived from its admin token), last used 12 h 1 min and 11 h ago
    const sessions = new SessionStore(ADMIN_TOKEN, new MemorySignOuts());
    const mintedAgo = (ms: number) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() - ms);
        return sessions.cookieOf(sessions.create(), true)!;
      } finally {
        vi.useRealTimers();
      }
    };
    const b = browser(base);
    b.cookie = `rjs_console=${mintedAgo((12 * 60 + 1) * 60_000)}`;
    const idle = await b.request('GET', '/console/clock');
    expect(idle.status).toBe(303);
    expect(idle.headers.get('location')).toMatch(/^\/console\/login/);
    const recent = mintedAgo(11 * 60 * 60_000);
    b.cookie = `rjs_console=${recent}`;
    const used = await b.request('GET', '/console/clock');
    expect(used.status).toBe(200);
    // re-issued with the time of this use: its idle time starts again
    expect(used.setCookie).toMatch(/^rjs_console=/);
    expect(b.cookie).not.toContain(recent);
    expect(Number(b.cookie.split('.')[1])).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses posts without the session CSRF token, with another session’s token, or from another origin', async () => {
    const base = sb.get().baseUrl;
    const a = browser(base);
    const other = browser(base);
    await a.login();
    await other.login();
    const before = await tenantCount(base);
    const form = { planTier: 'pro', name: 'csrf victim' };
    expect((await a.request('POST', '/console/tenants', form)).status).toBe(403);
    expect((await a.request('POST', '/console/tenants', { ...form, _csrf: await other.csrf() })).status).toBe(403);
    const csrf = await a.csrf();
    const cross = await a.request(
      'POST',
      '/console/tenants',
      { ...form, _csrf: csrf },
      { origin: 'https://evil.example' },
    );
    expect(cross.status).toBe(403);
    expect(await tenantCount(base)).toBe(before);
    const ok = await a.request('POST', '/console/tenants', { ...form, _csrf: csrf });
    expect(ok.status).toBe(303);
    expect(await tenantCount(base)).toBe(before + 1);
  });

  it('refuses a post without any session', async () => {
    const base = sb.get().baseUrl;
    const before = await tenantCount(base);
    const res = await browser(base).request('POST', '/console/tenants', { planTier: 'pro', _csrf: 'x' });
    expect(res.status).toBe(401);
    expect(await tenantCount(base)).toBe(before);
  });

  it('sends a restrictive content security policy and no-store on pages', async () => {
    const b = browser(sb.get().baseUrl);
    await b.login();
    const page = await b.request('GET', '/console/tenants');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('console pages', () => {
  it('escapes data: a tenant named with markup is shown as text, never as markup', async () => {
    const b = browser(sb.get().baseUrl);
    await b.login();
    const name = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const res = await b.request('POST', '/console/tenants', {
      _csrf: await b.csrf(),
      planTier: 'starter',
      name,
      scopes: ['jobs', 'market'],
    });
    expect(res.status).toBe(303);
    const detail = await b.request('GET', res.headers.get('location')!);
    const list = await b.request('GET', '/console/tenants');
    for (const page of [detail.text, list.text]) {
      expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
      expect(page).not.toContain('<script>alert');
      expect(page).not.toContain('<img src=x');
    }
  });

  it('escapes data in attributes and tables (a fault rule path with quotes and markup)', async () => {
    const base = sb.get().baseUrl;
    const admin = client(base, ADMIN_TOKEN);
    const made = await admin('POST', '/sandbox/v1/faults', {
      path: '/api/"><svg onload=alert(1)>',
      mode: 'latency',
      latencyMs: 1,
    });
    expect(made.status).toBe(201);
    try {
      const b = browser(base);
      await b.login();
      const page = await b.request('GET', '/console/faults');
      expect(page.text).toContain('/api/&quot;&gt;&lt;svg onload=alert(1)&gt;');
      expect(page.text).not.toContain('<svg');
      expect(page.text).toMatch(/1 fault active/);
    } finally {
      await admin('DELETE', '/sandbox/v1/faults');
    }
  });

  it('shows a new API key once, and the key works', async () => {
    const base = sb.get().baseUrl;
    const b = browser(base);
    await b.login();
    const res = await b.request('POST', '/console/tenants', {
      _csrf: await b.csrf(),
      planTier: 'pro',
      name: 'Key Once',
      scopes: ['screening', 'jobs'],
    });
    const first = await b.request('GET', res.headers.get('location')!);
    const key = /id="new-api-key" class="secret">(rjk_live_[0-9a-z]{32})</.exec(first.text)?.[1];
    expect(key).toBeDefined();
    const second = await b.request('GET', res.headers.get('location')!);
    expect(second.text).not.toContain(key!);
    expect(second.text).toContain(key!.slice(0, 13));
    const usage = await client(base, key)('GET', '/api/screening/v1/usage');
    expect(usage.status).toBe(200);
  });

  it('shows the control API’s error message on the page and changes nothing', async () => {
    const base = sb.get().baseUrl;
    const b = browser(base);
    await b.login();
    const before = await tenantCount(base);
    const res = await b.request('POST', '/console/tenants', {
      _csrf: await b.csrf(),
      planTier: 'pro',
      webhookSecret: 'short',
    });
    expect(res.headers.get('location')).toBe('/console/tenants');
    const page = await b.request('GET', '/console/tenants');
    expect(page.text).toContain('400 invalid_request: webhookSecret must be at least 8 characters');
    expect(await tenantCount(base)).toBe(before);
    const clock = await b.request('POST', '/console/clock/advance', { _csrf: await b.csrf(), seconds: 'soon' });
    expect(clock.status).toBe(303);
    expect((await b.request('GET', '/console/clock')).text).toMatch(/400 invalid_request: seconds must be/);
  });

  it('changes tier and credits through the control API', async () => {
    const base = sb.get().baseUrl;
    const b = browser(base);
    await b.login();
    const made = await b.request('POST', '/console/tenants', {
      _csrf: await b.csrf(),
      planTier: 'free',
      name: 'Upgrader',
    });
    const path = made.headers.get('location')!;
    const tenantId = path.split('/').pop()!;
    const csrf = await b.csrf(path);
    expect((await b.request('POST', path, { _csrf: csrf, action: 'tier', planTier: 'scale' })).status).toBe(303);
    expect(
      (await b.request('POST', path, { _csrf: csrf, action: 'credits', screeningCredits: '3', applyCredits: '9' }))
        .status,
    ).toBe(303);
    expect((await b.request('POST', path, { _csrf: csrf, action: 'status', disabled: 'true' })).status).toBe(303);
    const t = (await client(base, ADMIN_TOKEN)('GET', `/sandbox/v1/tenants/${tenantId}`)).json;
    expect(t.planTier).toBe('scale');
    expect(t.screeningCredits.remaining).toBe(3);
    expect(t.applyCredits.remaining).toBe(9);
    expect(t.disabled).toBe(true);
  });

  it('resets only with the confirmation ticked', async () => {
    const base = sb.get().baseUrl;
    const b = browser(base);
    await b.login();
    await client(base, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { planTier: 'pro', name: 'Survivor?' });
    const before = await tenantCount(base);
    await b.request('POST', '/console/demo/reset', { _csrf: await b.csrf() });
    expect(await tenantCount(base)).toBe(before);
    const res = await b.request('POST', '/console/demo/reset', { _csrf: await b.csrf(), confirm: 'yes' });
    expect(res.status).toBe(303);
    const demo = (await client(base, ADMIN_TOKEN)('GET', '/sandbox/v1/demo')).json;
    expect(await tenantCount(base)).toBe(demo.tenants.length);
    // the console session survives the reset
    expect((await b.request('GET', '/console/demo')).status).toBe(200);
  });
});

describe('API reference at /docs', () => {
  it('serves both contracts with servers set to this sandbox, and Swagger UI from the sandbox itself', async () => {
    const base = sb.get().baseUrl;
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/docs/assets/swagger-ui-bundle.js');
    for (const api of ['screening', 'jobs']) {
      const res = await fetch(`${base}/docs/${api}.json`);
      expect(res.status).toBe(200);
      const doc = await res.json();
      expect(doc.openapi).toMatch(/^3\.1/);
      expect(doc.servers[0].url.startsWith(base)).toBe(true);
      expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
    }
    // the page's script reads the documents to list from the page's JSON block
    const html = await (await fetch(`${base}/docs`)).text();
    const config = JSON.parse(/<script id="docs-config" type="application\/json">([^<]*)<\/script>/.exec(html)![1]);
    expect(config.urls.map((u: { url: string }) => u.url)).toEqual([
      '/docs/screening.json',
      '/docs/jobs.json',
      '/docs/control.json',
    ]);
    expect((await (await fetch(`${base}/docs/init.js`)).text()).includes("getElementById('docs-config')")).toBe(true);
    const bundle = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    expect((await fetch(`${base}/docs/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
