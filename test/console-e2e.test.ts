// The console end to end in headless Chromium: sign in, create a tenant with a webhook, submit a
// candidate through the API, approve it in the review queue (by keyboard), follow the request to
// `delivered`, verify the signed delivery, inject and clear a fault, advance the clock, and check
// the API reference. Screenshots of the main pages go to reports/screenshots/.

import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client, useSandbox } from './support/sandbox.js';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../reports/screenshots/', import.meta.url));
const SECRET = 'whsec_console_e2e_secret';

const sb = useSandbox();

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let browser: Browser;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  mkdirSync(SHOTS, { recursive: true });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/screening`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('console in a browser', () => {
  it('takes a candidate from submission through human review to a verified, signed delivery', async () => {
    const base = sb.get().baseUrl;
    const admin = client(base, ADMIN_TOKEN);
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));

    // sign in
    await page.goto(`${base}/console`);
    await expect.poll(() => page.url()).toContain('/console/login');
    await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tenants & keys' }).waitFor();

    // create a tenant with the receiver as its webhook, and read the key shown once
    await page.getByLabel('Name', { exact: true }).fill('E2E Hiring Co');
    await page.getByLabel('Plan tier').selectOption('pro');
    await page.getByLabel('Webhook URL').fill(receiverUrl);
    await page.getByLabel('Webhook secret').fill(SECRET);
    await page.getByRole('button', { name: 'Create tenant' }).click();
    const apiKey = (await page.locator('#new-api-key').textContent())!.trim();
    expect(apiKey).toMatch(/^rjk_live_[0-9a-z]{32}$/);
    await page.getByRole('link', { name: 'Tenants & keys' }).click();
    await page.getByRole('link', { name: 'E2E Hiring Co' }).waitFor();
    await shot(page, 'tenants');

    // submit a candidate through the API with the new key
    const api = client(base, apiKey);
    const submit = await api('POST', '/api/screening/v1/screen', {
      idempotencyKey: 'console-e2e-1',
      candidate: {
        kind: 'structured',
        fullName: 'Ayu Lestari',
        email: 'ayu@example.test',
        summary: 'Backend engineer building payment APIs in TypeScript and PostgreSQL.',
        skills: ['TypeScript', 'PostgreSQL', 'Node.js', 'Kubernetes'],
        experienceYears: 6,
      },
      jobSpec: { title: 'Senior Backend Engineer', mustHaves: ['TypeScript', 'PostgreSQL'], niceToHaves: ['Kubernetes'] },
    });
    expect(submit.status, submit.text).toBe(201);
    const requestId: string = submit.json.requestId;
    const scored = await until('the request to wait for review', async () => {
      const r = await admin('GET', `/sandbox/v1/reviews/${requestId}`);
      return r.json?.state === 'pending_review' ? r.json : undefined;
    });

    // the review queue shows the score, the rationale and each dimension's evidence
    await page.getByRole('link', { name: 'Review queue' }).click();
    const card = page.locator(`article[data-request-id="${requestId}"]`);
    await card.waitFor();
    await expect.poll(() => card.locator('.score-value span').textContent()).toBe(String(scored.score.score));
    expect(await card.locator('.rationale').textContent()).toBe(scored.score.rationale);
    const evidence = await card.locator('td.evidence').allTextContents();
    expect(evidence).toEqual(scored.score.dimensions.map((d: { evidence: string }) => d.evidence));
    await shot(page, 'review');

    // Enter in a text field must not decide anything (the form has no enabled default button)
    await card.getByLabel('Reviewer id').focus();
    await page.keyboard.press('Enter');
    await new Promise((r) => setTimeout(r, 300));
    expect((await admin('GET', `/sandbox/v1/reviews/${requestId}`)).json.state).toBe('pending_review');

    // approve by keyboard: from the reviewer id field, Tab to Approve and press Enter
    await card.getByLabel('Reviewer id').focus();
    let onApprove = false;
    for (let i = 0; i < 8 && !onApprove; i++) {
      await page.keyboard.press('Tab');
      onApprove = await page.evaluate(() => {
        const el = document.activeElement as HTMLButtonElement | null;
        return el?.tagName === 'BUTTON' && el.value === 'approved';
      });
    }
    expect(onApprove).toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: `Approved ${requestId}` }).waitFor();

    // the timeline reaches `delivered` once the receiver acknowledges the decision
    await until('the decision delivery', async () => (received.some((r) => r.body.includes('screening.review_decided')) ? true : undefined));
    await until('the delivered state', async () => ((await admin('GET', `/sandbox/v1/reviews/${requestId}`)).json?.state === 'delivered' ? true : undefined));
    await page.goto(`${base}/console/requests/${requestId}`);
    expect((await page.locator('[data-field="state"]').textContent())!.trim()).toBe('delivered');
    const ledger = await page.locator('ol.timeline > li .what').allTextContents();
    const toStates = ledger.map((t) => t.replace(/\s+/g, ' ').trim());
    expect(toStates[0]).toMatch(/^received/);
    expect(toStates.at(-1)).toMatch(/approved → delivered/);
    expect(toStates.some((t) => /by reviewer:console/.test(t))).toBe(true);
    await shot(page, 'timeline');

    // the signed review_decided delivery: the shown signature is HMAC-SHA256 of the shown body
    await page.goto(`${base}/console/deliveries?requestId=${requestId}`);
    const delivery = page.locator('article[data-event="screening.review_decided"]');
    await delivery.waitFor();
    expect((await delivery.locator('.badge').first().textContent())!.trim()).toBe('delivered');
    const body = (await delivery.locator('[data-field="body"]').textContent())!;
    const signature = (await delivery.locator('[data-field="signature"]').textContent())!.replace(/^X-Screening-Signature:\s*/, '');
    expect(signature).toBe(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`);
    const sent = received.find((r) => r.body.includes('screening.review_decided'))!;
    expect(sent.body).toBe(body);
    expect(sent.headers['x-screening-signature']).toBe(signature);
    expect(JSON.parse(body)).toMatchObject({ requestId, event: 'screening.review_decided', result: { decision: 'approved', reviewerId: 'console' } });
    await shot(page, 'deliveries');

    // a fault added in the console makes the API answer 503 and is announced on every page
    await page.getByRole('link', { name: 'Faults' }).click();
    await page.getByLabel('Effect').selectOption('status:503');
    await page.getByLabel('Endpoint path prefix').fill('/api/screening/v1/usage');
    await page.getByLabel('Method').selectOption('GET');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.locator('.fault-banner').filter({ hasText: '1 fault active' }).waitFor();
    const failing = await api('GET', '/api/screening/v1/usage');
    expect(failing.status).toBe(503);
    expect(failing.json.error.code).toBe('service_disabled');
    await page.getByRole('link', { name: 'Sandbox clock' }).click();
    await page.locator('.fault-banner').waitFor();
    await page.getByRole('link', { name: 'Faults' }).first().click();
    await shot(page, 'faults');
    await page.getByRole('button', { name: 'Clear all faults' }).click();
    await page.getByRole('status').filter({ hasText: 'Cleared every fault' }).waitFor();
    expect(await page.locator('.fault-banner').count()).toBe(0);
    expect((await api('GET', '/api/screening/v1/usage')).status).toBe(200);

    // advance the sandbox clock by an hour
    await page.getByRole('link', { name: 'Sandbox clock' }).click();
    const before = Date.parse((await page.locator('[data-field="now"] time').getAttribute('datetime'))!);
    await page.getByRole('button', { name: '+1 hour' }).click();
    await page.getByRole('status').filter({ hasText: 'Advanced by 1 hour' }).waitFor();
    const after = Date.parse((await page.locator('[data-field="now"] time').getAttribute('datetime'))!);
    expect(after - before).toBeGreaterThanOrEqual(3600_000);
    expect(after - before).toBeLessThan(3600_000 + 60_000);
    await shot(page, 'clock');

    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('renders the API reference with both contracts in Swagger UI, served offline', async () => {
    const base = sb.get().baseUrl;
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const offsite: string[] = [];
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) offsite.push(r.url());
    });
    const screening = await (await fetch(`${base}/docs/screening.json`)).json();
    const jobs = await (await fetch(`${base}/docs/jobs.json`)).json();

    await page.goto(`${base}/docs`);
    const title = page.locator('.swagger-ui .information-container .title');
    await expect.poll(() => title.textContent()).toContain(screening.info.title);
    await page.locator('.opblock').first().waitFor();
    // the contract is rendered without Swagger UI's own schema warnings
    expect(await page.locator('.swagger-ui .errors-wrapper').count()).toBe(0);
    const selector = page.locator('.topbar select');
    const options = await selector.locator('option').allTextContents();
    expect(options).toEqual([screening.info.title, jobs.info.title]);
    await shot(page, 'docs');
    await selector.selectOption({ label: jobs.info.title });
    await expect.poll(() => title.textContent()).toContain(jobs.info.title);
    await expect.poll(() => page.locator('.opblock-summary-path').allTextContents()).toContain('/api/v1/jobs');
    expect(offsite).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
