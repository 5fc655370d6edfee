// The console and docs end to end in headless Chromium, as a reviewer and as an integrator would use
// them: the review card (candidate and job side by side, age and expiry, pending count, a refused
// decision keeping its input, keyboard approval), the request page (plain-words state and failure
// reason, an edited score in the model's place, delivery health), deliveries (every attempt's headers,
// body and the receiver's answer, filters, success rate, redelivery, test events, secret rotation),
// the request log, the clock's timers, faults, and /docs. Every console page is checked at 1280 and
// 390 px for horizontal overflow and with axe for serious or critical violations. Screenshots go to
// reports/screenshots/.

import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, launchChromium, overflow } from './support/pageChecks.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';

const SHOTS = fileURLToPath(new URL('../reports/screenshots/', import.meta.url));
const SECRET = 'whsec_console_e2e_secret';

const sb = useSandbox();

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: Server;
let hookBase: string;
const received: Received[] = [];
const pageErrors: string[] = [];
// shared by the steps below, in order
const state = { apiKey: '', tenantId: '', edited: '', failed: '', flakyTenant: '' };

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url?.includes('flaky'))
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"receiver is down for maintenance"}');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  browser = await launchChromium();
  // bypassCSP: axe is injected as an inline script, which the console's CSP (rightly) refuses
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (e) => pageErrors.push(e.message));
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

const shot = (name: string, p: Page = page, fullPage = true) => p.screenshot({ path: `${SHOTS}${name}.png`, fullPage });
const base = () => sb.get().baseUrl;
const admin = () => client(base(), ADMIN_TOKEN);

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function submit(
  apiKey: string,
  key: string,
  candidate: object,
  jobSpec: object = {
    title: 'Senior Backend Engineer',
    mustHaves: ['TypeScript', 'PostgreSQL'],
    niceToHaves: ['Kubernetes'],
  },
) {
  const res = await client(base(), apiKey)('POST', '/api/screening/v1/screen', {
    idempotencyKey: key,
    candidate,
    jobSpec,
  });
  expect(res.status, res.text).toBe(201);
  return res.json.requestId as string;
}

const settledIn = (requestId: string, wanted: string) =>
  until(`${requestId} in ${wanted}`, async () => {
    const r = await admin()('GET', `/sandbox/v1/reviews/${requestId}`);
    return r.json?.state === wanted ? r.json : undefined;
  });

const AYU = {
  kind: 'structured',
  fullName: 'Ayu Lestari',
  email: 'ayu@example.test',
  summary: 'Backend engineer building payment APIs in TypeScript and PostgreSQL.',
  skills: ['TypeScript', 'PostgreSQL', 'Node.js', 'Kubernetes'],
  experienceYears: 6,
};

describe('console in a browser', () => {
  it('a reviewer judges a candidate beside the job, keeps input on a refused decision, and edits the score', async () => {
    await page.goto(`${base()}/console`);
    await expect.poll(() => page.url()).toContain('/console/login');
    await shot('login');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tenants & keys' }).waitFor();

    // a tenant with the receiver as its webhook; its key is shown once
    await page.getByLabel('Name', { exact: true }).fill('E2E Hiring Co');
    await page.getByLabel('Plan tier').selectOption('pro');
    await page.getByLabel('Webhook URL').fill(`${hookBase}/ok`);
    await page.getByLabel('Webhook secret').fill(SECRET);
    await page.getByRole('button', { name: 'Create tenant' }).click();
    state.apiKey = (await page.locator('#new-api-key').textContent())!.trim();
    expect(state.apiKey).toMatch(/^rjk_live_[0-9a-z]{32}$/);
    state.tenantId = page.url().split('/').at(-1)!;
    await page.getByRole('link', { name: 'Tenants & keys' }).click();
    await page.getByRole('link', { name: 'E2E Hiring Co' }).waitFor();
    await shot('tenants');

    const first = await submit(state.apiKey, 'e2e-approve', AYU);
    const second = await submit(state.apiKey, 'e2e-edit', {
      ...AYU,
      fullName: 'Budi Santoso',
      skills: ['TypeScript'],
      experienceYears: 2,
    });
    const scored = await settledIn(first, 'pending_review');
    await settledIn(second, 'pending_review');
    await admin()('POST', '/sandbox/v1/clock/advance', { seconds: 3 * 3600 });

    // the queue: oldest first, pending count in the navigation, age and time to expiry
    await page.getByRole('link', { name: /Review queue/ }).click();
    const cards = page.locator('article.review');
    await expect
      .poll(() => cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-request-id'))))
      .toEqual([first, second]);
    expect((await page.locator('[data-field="pending-count"]').textContent())!.replace(/\D/g, '')).toBe('2');
    const card = page.locator(`article[data-request-id="${first}"]`);
    expect(await card.locator('[data-field="age"]').textContent()).toMatch(/waiting 3 h/);
    expect(await card.locator('[data-field="expires"]').textContent()).toMatch(/expires in (68|69) h/);
    // candidate and job spec side by side with the score and its evidence
    const [cand, job] = await Promise.all([
      card.getByRole('region', { name: 'Candidate' }).boundingBox(),
      card.getByRole('region', { name: 'Job spec' }).boundingBox(),
    ]);
    expect(cand!.y).toBe(job!.y);
    expect(cand!.x + cand!.width).toBeLessThanOrEqual(job!.x);
    expect(await card.getByRole('region', { name: 'Candidate' }).textContent()).toContain(
      'Backend engineer building payment APIs',
    );
    expect(await card.getByRole('region', { name: 'Job spec' }).locator('li').allTextContents()).toEqual([
      'TypeScript',
      'PostgreSQL',
      'Kubernetes',
    ]);
    expect(await card.locator('.score-value span').textContent()).toBe(String(scored.score.score));
    expect(await card.locator('td.evidence').allTextContents()).toEqual(
      scored.score.dimensions.map((d: { evidence: string }) => d.evidence),
    );
    await shot('review');

    // a refused edit keeps the reviewer's note and id, and says what is wrong beside the field
    const other = page.locator(`article[data-request-id="${second}"]`);
    await other.getByLabel('Reviewer id').fill('dewi');
    await other.getByLabel(/Note/).fill('Only two years; strong TypeScript though.');
    await other.getByLabel('Edited score (0–100)').fill('abc');
    await other.getByRole('button', { name: 'Save as edited' }).click();
    const refused = page.locator(`article[data-request-id="${second}"]`);
    await refused.locator('.field-error').waitFor();
    expect(await refused.getByLabel('Reviewer id').inputValue()).toBe('dewi');
    expect(await refused.getByLabel(/Note/).inputValue()).toBe('Only two years; strong TypeScript though.');
    const scoreInput = refused.getByLabel('Edited score (0–100)');
    expect(await scoreInput.inputValue()).toBe('abc');
    expect(await scoreInput.getAttribute('aria-invalid')).toBe('true');
    const message = await page.locator(`#${(await scoreInput.getAttribute('aria-describedby'))!}`).textContent();
    expect(message).toMatch(/editedScore must be a number from 0 to 100/);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('editedScore');
    expect((await admin()('GET', `/sandbox/v1/reviews/${second}`)).json.state).toBe('pending_review');
    await shot('review-refused');
    await scoreInput.fill('40');
    await refused.getByLabel('Edited rationale').fill('Two years is short of the senior bar; TypeScript is strong.');
    await refused.getByRole('button', { name: 'Save as edited' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Edited ${second}` })
      .waitFor();
    state.edited = second;

    // Enter in a text field decides nothing; Tab to Approve and Enter approves
    await card.getByLabel('Reviewer id').focus();
    await page.keyboard.press('Enter');
    await new Promise((r) => setTimeout(r, 300));
    expect((await admin()('GET', `/sandbox/v1/reviews/${first}`)).json.state).toBe('pending_review');
    await card.getByLabel('Reviewer id').focus();
    let onApprove = false;
    for (let i = 0; i < 8 && !onApprove; i++) {
      await page.keyboard.press('Tab');
      onApprove = await page.evaluate(() => (document.activeElement as HTMLButtonElement | null)?.value === 'approved');
    }
    expect(onApprove).toBe(true);
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: `Approved ${first}` })
      .waitFor();
    await settledIn(first, 'delivered');

    // the edited request shows the reviewer's score and rationale where the model's were
    await settledIn(second, 'delivered');
    await page.goto(`${base()}/console/requests/${second}`);
    const score = page.locator('section[aria-labelledby="score-h"]');
    expect(await score.locator('.score-value span').textContent()).toBe('40');
    expect(await score.locator('[data-field="edited-score"]').textContent()).toMatch(/model scored \d+/);
    expect(await score.locator('.rationale').textContent()).toBe(
      'Two years is short of the senior bar; TypeScript is strong.',
    );
    expect(await page.locator('section[aria-labelledby="decision-h"]').textContent()).toContain('editedScore');
    expect((await page.locator('[data-field="state"]').textContent())!.trim()).toBe('delivered');
    expect(await page.locator('[data-health]').getAttribute('data-health')).toBe('ok');
    await shot('request-edited');

    // the approved one: signed review_decided delivery, signature = HMAC of the shown body
    await page.goto(`${base()}/console/deliveries?requestId=${first}`);
    const delivery = page.locator('article[data-event="screening.review_decided"]');
    const body = (await delivery.locator('[data-field="body"]').textContent())!;
    const signature = (await delivery.locator('[data-field="signature"]').textContent())!.replace(
      /^X-Screening-Signature:\s*/,
      '',
    );
    expect(signature).toBe(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`);
    const sent = received.find((r) => r.body.includes('screening.review_decided') && r.body.includes(first))!;
    expect(sent.body).toBe(body);
    expect(sent.headers['x-screening-signature']).toBe(signature);
  });

  it('an integrator sees why a request failed, debugs a failing endpoint, rotates its secret and reads the request log', async () => {
    // a failed request reads as such, with its reason
    state.failed = await submit(state.apiKey, 'e2e-fail', { kind: 'structured', fullName: 'Sandbox Fail' });
    await settledIn(state.failed, 'failed');
    await page.goto(`${base()}/console/requests/${state.failed}`);
    expect(await page.locator('[data-field="state-words"]').textContent()).toMatch(/^Failed\. Reason: .+/);
    expect(await page.locator('section[aria-labelledby="score-h"]').textContent()).toContain(
      'ended before it was scored',
    );
    await shot('request-failed');

    // a tenant whose endpoint answers 500: the badge says so, the attempts show what came back
    const flaky = await admin()('POST', '/sandbox/v1/tenants', {
      planTier: 'pro',
      name: 'Flaky Receiver Ltd',
      webhookUrl: `${hookBase}/flaky`,
      webhookSecret: SECRET,
    });
    state.flakyTenant = flaky.json.tenantId;
    const failing = await submit(flaky.json.apiKey, 'e2e-flaky', AYU);
    await until('a failed attempt', async () => {
      const d = (await admin()('GET', `/sandbox/v1/webhooks/deliveries?requestId=${failing}`)).json.deliveries[0];
      return d?.status === 'retrying' ? d : undefined;
    });
    await page.goto(`${base()}/console/requests/${failing}`);
    expect(await page.locator('[data-health]').getAttribute('data-health')).toBe('failing');
    // the request log, linked from the request page, holds the submit with both bodies
    await page.getByRole('link', { name: /request log/ }).click();
    const entry = page.locator('li.log-entry').first();
    await entry.locator('summary').click();
    expect(await entry.textContent()).toContain('POST /api/screening/v1/screen');
    expect(await entry.locator('pre').first().textContent()).toContain('e2e-flaky');
    expect(await entry.locator('pre').nth(1).textContent()).toContain(failing);
    await page.getByLabel('Contains').fill('no-such-text-anywhere');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.empty').waitFor();
    await page.getByLabel('Contains').fill('e2e-flaky');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('li.log-entry').count()).toBe(1);
    await page.locator('li.log-entry summary').click();
    await shot('request-log');

    // deliveries: filter to retrying, open the attempt, redeliver; the schedule stays
    await page.goto(`${base()}/console/deliveries?tenantId=${state.flakyTenant}`);
    await page.getByLabel('Status').selectOption('retrying');
    await page.getByRole('button', { name: 'Filter' }).click();
    const card = page.locator('article.delivery').first();
    await card.waitFor();
    expect(
      await page
        .locator('article.delivery')
        .evaluateAll((els) => els.every((e) => e.querySelector('.review-head .badge')?.textContent === 'retrying')),
    ).toBe(true);
    const nextBefore = await card.locator('dt:text("Next automatic attempt") + dd time').getAttribute('datetime');
    await card.getByRole('button', { name: 'Redeliver' }).click();
    await page.getByRole('status').filter({ hasText: 'Redelivery of' }).waitFor();
    await until('the redelivery', async () => {
      const d = (await admin()('GET', `/sandbox/v1/webhooks/deliveries?tenantId=${state.flakyTenant}&status=retrying`))
        .json.deliveries[0];
      return d?.attempts.length === 2 ? d : undefined;
    });
    await page.reload();
    const again = page.locator('article.delivery').first();
    expect(await again.locator('dt:text("Next automatic attempt") + dd time').getAttribute('datetime')).toBe(
      nextBefore,
    );
    const latest = again.locator('ol.attempts > li').first();
    expect(await latest.textContent()).toContain('redelivery');
    await latest.locator('summary').click();
    expect(await latest.locator('[data-field="request-headers"]').textContent()).toMatch(
      /X-Screening-Signature: sha256=[0-9a-f]{64}/,
    );
    expect(await latest.locator('[data-field="response-body"]').textContent()).toBe(
      '{"error":"receiver is down for maintenance"}',
    );
    expect(await page.locator('[data-field="success-rate"]').first().textContent()).toBe('0%');
    await shot('deliveries');

    // the tenant page: rotate the secret, then send a test event signed with both secrets
    await page.goto(`${base()}/console/tenants/${state.tenantId}`);
    await page.getByLabel('Keep the old secret valid for (hours)').fill('2');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.locator('[data-field="rotation"]').waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('status').filter({ hasText: 'Test event' }).waitFor();
    await shot('tenant-webhook');
    const test = await until('the test event', async () =>
      received.find((r) => r.headers['x-screening-test'] === 'true'),
    );
    const tenant = (await admin()('GET', `/sandbox/v1/tenants/${state.tenantId}`)).json;
    const hmac = (secret: string) => `sha256=${createHmac('sha256', secret).update(test.body).digest('hex')}`;
    expect(test.headers['x-screening-signature']).toBe(hmac(tenant.webhookSecret));
    expect(test.headers['x-screening-signature-previous']).toBe(hmac(SECRET));
    await page.getByRole('link', { name: 'See the delivery' }).click();
    await page.locator('article.delivery .badge:text("test")').first().waitFor();

    // the clock: pending timers, and what an advance fired
    await page.getByRole('link', { name: 'Sandbox clock' }).click();
    expect(await page.locator('[data-field="pending"]').textContent()).toMatch(/webhook retry/);
    expect(await page.locator('ol.timers').first().textContent()).toContain('review expiry');
    await page.getByRole('button', { name: '+1 hour' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Advanced by 1 hour.*fired \d+ webhook retr/ })
      .waitFor();
    const fired = page.locator('ol.advances > li').first();
    expect(Number(await fired.getAttribute('data-fired'))).toBeGreaterThan(0);
    await fired.locator('summary').click();
    await shot('clock');

    // the tenant's own clock: advancing it moves this tenant only (D-120)
    await page.goto(`${base()}/console/tenants/${state.tenantId}`);
    const sandboxBefore = Date.parse((await admin()('GET', '/sandbox/v1/clock')).json.now);
    await page.getByLabel("Advance this tenant's clock by (seconds)").fill('7200');
    await page.getByRole('button', { name: 'Advance tenant clock' }).click();
    await page.getByRole('status').filter({ hasText: "Advanced this tenant's clock by 7200 s" }).waitFor();
    expect(await page.locator('[data-field="tenant-now"]').textContent()).toMatch(/7200 s ahead of the sandbox clock/);
    expect(Date.parse((await admin()('GET', '/sandbox/v1/clock')).json.now) - sandboxBefore).toBeLessThan(60_000);
    await shot('tenant-clock');

    await page.getByRole('link', { name: 'Faults' }).click();
    await page.getByLabel('Effect').selectOption('status:503');
    await page.getByLabel('Endpoint path prefix').fill('/api/screening/v1/usage');
    await page.getByLabel('Method').selectOption('GET');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.locator('.fault-banner').filter({ hasText: '1 fault active' }).waitFor();
    expect((await client(base(), state.apiKey)('GET', '/api/screening/v1/usage')).status).toBe(503);
    await shot('faults');
    await page.getByRole('button', { name: 'Clear all faults' }).click();
    await page.getByRole('status').filter({ hasText: 'Cleared every fault' }).waitFor();
    expect(await page.locator('.fault-banner').count()).toBe(0);

    // a fault scoped to one tenant fails that tenant's calls only (D-121)
    const other = await createTenant(base(), { planTier: 'pro' });
    await page.getByLabel('Effect').selectOption('status:503');
    await page.getByLabel('Endpoint path prefix').fill('/api/screening/v1/usage');
    await page.getByLabel('Tenant id').fill(state.tenantId);
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.locator('[data-field="rule-tenant"]').filter({ hasText: state.tenantId }).waitFor();
    expect((await client(base(), other.apiKey)('GET', '/api/screening/v1/usage')).status).toBe(200);
    expect((await client(base(), state.apiKey)('GET', '/api/screening/v1/usage')).status).toBe(503);
    await page.getByRole('button', { name: 'Clear all faults' }).click();
    await page.getByRole('status').filter({ hasText: 'Cleared every fault' }).waitFor();
  });

  it('fits 1280 and 390 px without horizontal overflow, and axe finds nothing serious on any page', async () => {
    const pages = [
      '/console/tenants',
      `/console/tenants/${state.tenantId}`,
      '/console/reviews',
      '/console/reviews?state=all',
      '/console/requests',
      `/console/requests/${state.edited}`,
      `/console/requests/${state.failed}`,
      `/console/deliveries?tenantId=${state.flakyTenant}`,
      '/console/logs',
      '/console/applications',
      '/console/outbox',
      '/console/clock',
      '/console/faults',
      '/console/demo',
    ];
    const problems: string[] = [];
    for (const path of pages) {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${base()}${path}`);
      // open every disclosure, so what it hides is measured and checked too
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
      if ((await overflow(page)) > 0) problems.push(`${path} overflows at 1280 px by ${await overflow(page)} px`);
      for (const v of await axeViolations(page)) problems.push(`${path}: ${v}`);
      await page.setViewportSize({ width: 390, height: 844 });
      if ((await overflow(page)) > 0) problems.push(`${path} overflows at 390 px by ${await overflow(page)} px`);
    }
    // phone-sized shots show the first screen, as a phone would
    await page.goto(`${base()}/console/reviews?state=all`);
    await shot('review-390', page, false);
    await page.locator('article.review .score').first().scrollIntoViewIfNeeded();
    await shot('review-390-score', page, false);
    await page.goto(`${base()}/console/deliveries?tenantId=${state.flakyTenant}`);
    await shot('deliveries-390', page, false);
    await page.goto(`${base()}/console/requests/${state.edited}`);
    await shot('request-390', page, false);
    // the sign-in page, signed out, at both widths
    const fresh = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    const login = await fresh.newPage();
    await login.goto(`${base()}/console/login`);
    if ((await overflow(login)) > 0) problems.push(`login overflows at 390 px by ${await overflow(login)} px`);
    for (const v of await axeViolations(login)) problems.push(`login: ${v}`);
    await shot('login-390', login, false);
    await login.setViewportSize({ width: 1280, height: 900 });
    if ((await overflow(login)) > 0) problems.push(`login overflows at 1280 px by ${await overflow(login)} px`);
    await fresh.close();
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('documents the APIs and the control API in /docs, with an example per status and a fresh idempotency key per Execute', async () => {
    const docs = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const p = await docs.newPage();
    p.setDefaultTimeout(15_000);
    const offsite: string[] = [];
    p.on('request', (r) => {
      if (!r.url().startsWith(base()) && !r.url().startsWith('data:')) offsite.push(r.url());
    });
    const screening = await (await fetch(`${base()}/docs/screening.json`)).json();
    // each error status of submit shows its own code, taken from the contract
    const responses = screening.paths['/api/screening/v1/screen'].post.responses;
    for (const [status, code] of [
      ['400', 'invalid_request'],
      ['401', 'unauthorized'],
      ['403', 'forbidden'],
      ['402', 'payment_required'],
    ]) {
      expect(responses[status].content['application/json'].example.error.code, status).toBe(code);
    }
    await p.goto(`${base()}/docs`);
    const title = p.locator('.swagger-ui .information-container .title');
    await expect.poll(() => title.textContent()).toContain(screening.info.title);
    expect(await p.locator('.swagger-ui .errors-wrapper').count()).toBe(0);
    expect(await p.locator('.topbar select option').allTextContents()).toEqual(
      [screening.info.title, 'Jobs, Market Data and MCP API', 'Sandbox Control API'].map((t, i) =>
        i === 1 ? expect.any(String) : t,
      ),
    );

    // Try it out: authorize with the key, Execute submit twice; both create a request (no silent replay)
    await p.locator('.btn.authorize').click();
    await p.locator('.modal-ux input[type="text"]').fill(state.apiKey);
    await p.locator('.modal-ux .btn.authorize').click();
    await p.locator('.modal-ux .btn-done').click();
    const op = p.locator('#operations-screening-submitScreen');
    await op.locator('.opblock-summary').click();
    await op.locator('.try-out__btn').click();
    const statuses: string[] = [];
    for (let i = 0; i < 2; i++) {
      await op.locator('.execute').click();
      const status = op.locator('.live-responses-table tbody .response-col_status');
      await status.waitFor();
      statuses.push((await status.textContent())!.trim());
      await op.locator('.btn-clear').click();
    }
    expect(statuses).toEqual(['201', '201']);
    await shot('docs', p);
    await p.locator('.topbar select').selectOption({ label: 'Sandbox Control API' });
    await expect.poll(() => title.textContent()).toContain('Sandbox Control API');
    await expect.poll(() => p.locator('.opblock-summary-path').allTextContents()).toContain('/sandbox/v1/reviews');
    await shot('docs-control', p);
    expect(offsite).toEqual([]);
    await docs.close();
  });
});
