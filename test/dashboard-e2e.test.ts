// The account dashboard in headless Chromium, as an integrator meets it: sign up (a refused password
// named beside its field, the e-mail kept), create a key (shown once), screen candidates until the free
// tier's 402, follow its upgradeUrl to the billing page, pay with the declined test card (the message,
// nothing changed), then with the good one, and screen again: 201; its requests page lists its own
// requests and not another tenant's. Every dashboard page is checked at
// 1280 and 390 px for horizontal overflow and with axe. Screenshots go to reports/screenshots/dashboard-*.

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limits } from '../src/domain/plans.js';
import { axeViolations, launchChromium, overflow } from './support/pageChecks.js';
import { ADMIN_TOKEN, client, useSandbox } from './support/sandbox.js';

const SHOTS = fileURLToPath(new URL('../reports/screenshots/', import.meta.url));
const sb = useSandbox({ seedDemo: false, corpusSize: 50 });

let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  // bypassCSP: axe is injected as an inline script, which the dashboard's CSP (rightly) refuses
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

afterAll(async () => {
  await browser?.close();
});

const shot = (name: string) => page.screenshot({ path: `${SHOTS}dashboard-${name}.png`, fullPage: true });
const base = () => sb.get().baseUrl;
const screen = (apiKey: string, n: number) =>
  client(base(), apiKey)('POST', '/api/screening/v1/screen', {
    idempotencyKey: `e2e-${n}`,
    candidate: {
      kind: 'structured',
      fullName: 'Ayu Lestari',
      skills: ['TypeScript', 'PostgreSQL'],
      experienceYears: 6,
    },
    jobSpec: { title: 'Senior Backend Engineer', mustHaves: ['TypeScript'] },
  });

async function checked(name: string): Promise<void> {
  expect(await overflow(page), `${name} overflows at ${page.viewportSize()?.width} px`).toBeLessThanOrEqual(0);
  expect(await axeViolations(page), name).toEqual([]);
}

describe('the account dashboard in a browser', () => {
  it('signs up, creates a key, follows the 402 to billing, is declined, pays, and screens again', async () => {
    await page.goto(`${base()}/app/signup`);
    await checked('sign-up');
    await page.getByLabel('E-mail').fill('ayu@example.com');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect
      .poll(() => page.locator('[data-error-for="password"]').textContent())
      .toMatch(/at least 10 characters/);
    expect(await page.getByLabel('E-mail').inputValue()).toBe('ayu@example.com');
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    await shot('signup-refused');
    await checked('sign-up refused');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    const firstKey = (await page.locator('[data-field="new-key"]').textContent())!;
    expect(firstKey).toMatch(/^rjk_live_/);
    await shot('signup-key');

    await page.getByRole('button', { name: 'Create key' }).click();
    const apiKey = (await page.locator('[data-field="new-key"]').textContent())!;
    expect(apiKey).toMatch(/^rjk_live_/);
    expect(apiKey).not.toBe(firstKey);
    expect(await page.locator('tr[data-key-id]').count()).toBe(2);
    await shot('keys-created');
    await checked('keys');
    await page.getByRole('link', { name: 'API keys' }).click();
    expect(await page.locator('[data-field="new-key"]').count()).toBe(0);

    const cap = limits.policy.screening.free.creditsCap;
    for (let i = 0; i < cap; i++) expect((await screen(apiKey, i)).status).toBe(201);
    const refused = await screen(apiKey, cap);
    expect(refused.status).toBe(402);
    const upgradeUrl: string = refused.json.error.upsell.upgradeUrl;

    await page.goto(upgradeUrl);
    expect(page.url()).toBe(upgradeUrl);
    expect(await page.locator('[data-field="plan-tier"]').textContent()).toBe('free');
    await checked('billing');
    await page.getByLabel('Pay in').selectOption('IDR');
    await page.getByRole('radio', { name: /starter/ }).check();
    await page.getByLabel('Card number').fill('4000 0000 0000 0002');
    await page.getByLabel('Expiry (MM/YY)').fill('12/39');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: 'Pay and change plan' }).click();
    await expect.poll(() => page.locator('[data-error-for="cardNumber"]').textContent()).toMatch(/declined/);
    expect(await page.locator('[data-field="plan-tier"]').textContent()).toBe('free');
    expect(await page.getByLabel('Card number').inputValue()).toBe('4000 0000 0000 0002');
    expect(await page.getByLabel('Security code').inputValue()).toBe('');
    await shot('billing-declined');
    await checked('billing declined');
    expect((await screen(apiKey, cap + 1)).status).toBe(402);

    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Security code').fill('123');
    await page.getByRole('button', { name: 'Pay and change plan' }).click();
    await expect.poll(() => page.locator('[data-field="done"]').textContent()).toMatch(/Payment accepted/);
    expect(await page.locator('[data-field="plan-tier"]').textContent()).toBe('starter');
    const starter = limits.policy.screening.starter.creditsCap;
    expect(await page.locator('[data-field="screening-credits"]').textContent()).toBe(`${starter} of ${starter}`);
    await shot('billing-paid');
    expect((await screen(apiKey, cap + 2)).status).toBe(201);

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Webhook URL').fill('not a url');
    await page.getByRole('button', { name: 'Save URL' }).click();
    await expect.poll(() => page.locator('[data-error-for="webhookUrl"]').textContent()).toMatch(/absolute http/);
    expect(await page.getByLabel('Webhook URL').inputValue()).toBe('not a url');
    await checked('webhooks refused');
    await page.getByLabel('Webhook URL').fill('https://hooks.example/in');
    await page.getByRole('button', { name: 'Save URL' }).click();
    await expect.poll(() => page.locator('[data-field="done"]').textContent()).toMatch(/saved/);
    await shot('webhooks');

    // its own requests only: another tenant's submit does not show
    const other = await client(base(), ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { planTier: 'pro' });
    const theirs = (await screen(other.json.apiKey, 99)).json.requestId as string;
    await page.getByRole('link', { name: 'Screening requests' }).click();
    expect(await page.locator('tr[data-request-id]').count()).toBe(cap + 1);
    expect(await page.locator(`tr[data-request-id="${theirs}"]`).count()).toBe(0);
    await checked('requests');
    await shot('requests');
    expect(pageErrors).toEqual([]);
  }, 60_000);

  it('fits every page at 390 px without overflow or serious axe findings', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, name] of [
      ['/app', 'overview'],
      ['/app/keys', 'keys'],
      ['/app/billing?currency=IDR', 'billing'],
      ['/app/webhooks', 'webhooks'],
      ['/app/requests', 'requests'],
      ['/app/deliveries', 'deliveries'],
      ['/app/logs', 'logs'],
    ]) {
      await page.goto(`${base()}${path}`);
      await checked(`${name} at 390 px`);
      await shot(`${name}-390`);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/app\/login$/);
    await checked('sign-in at 390 px');
    await shot('signin-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base()}/app`);
    await page.waitForURL(/\/app\/login/);
    await shot('signin');
  }, 60_000);
});
