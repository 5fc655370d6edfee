// POST /api/v1/jobs/{id}/apply over real HTTP: tiers, credits, the curation queue versus external
// apply URLs, the order of checks, and bad bodies that never cost a credit.

import { beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../src/domain/jobs/index.js';
import { limits } from '../src/domain/plans.js';
import { admin, applyBody, balances, message, readCorpus, tenantKey } from './support/jobs.js';
import { client, useSandbox } from './support/sandbox.js';

const sb = useSandbox();
let contactJob: JobRecord;
let atsJob: JobRecord;

beforeAll(async () => {
  const corpus = await readCorpus(sb.get());
  contactJob = corpus.find((j) => j.employerContact !== null)!;
  atsJob = corpus.find((j) => j.atsUrl !== null)!;
});

const applyPath = (id: string) => `/api/v1/jobs/${id}/apply`;

async function queue(tenantId: string) {
  const res = await admin(sb.get())('GET', `/sandbox/v1/applications?tenantId=${tenantId}`);
  expect(res.status).toBe(200);
  return res.json.applications as Array<Record<string, unknown>>;
}

describe('apply: tiers and credits', () => {
  it('refuses the free tier with 402 payment_required and an upsell, charging nothing', async () => {
    const t = await tenantKey(sb.get(), 'free');
    const res = await t.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody());
    expect(res.status).toBe(402);
    expect(res.json.error.code).toBe('payment_required');
    expect(res.json.error.message).toMatch(/paid tier/);
    expect(res.json.error.upsell).toEqual({ upgradeUrl: `${sb.get().baseUrl}/app/billing` });
    expect(await balances(sb.get(), t.tenantId)).toEqual({
      apply: 0,
      screening: limits.policy.screening.free.creditsCap,
    });
    expect(await queue(t.tenantId)).toEqual([]);
  });

  it('submits employer-contact jobs into the curation queue and spends exactly one credit', async () => {
    const t = await tenantKey(sb.get(), 'starter');
    const before = (await t.api('getMe', 'GET', '/api/v1/me')).json.applyCredits.remaining;
    expect(before).toBe(limits.spec.jobs.starter.applyCreditsPerMonth);
    const body = applyBody({ resume_url: 'https://files.example.com/dewi.pdf', locale: 'id' });
    const res = await t.api('applyToJob', 'POST', applyPath(contactJob.id), body);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'submitted',
      applicationId: expect.stringMatching(/^app_/),
      jobId: contactJob.id,
      creditsRemaining: before - 1,
    });
    expect((await t.api('getMe', 'GET', '/api/v1/me')).json.applyCredits.remaining).toBe(before - 1);
    const [queued, ...rest] = await queue(t.tenantId);
    expect(rest).toEqual([]);
    expect(queued).toMatchObject({
      applicationId: res.json.applicationId,
      tenantId: t.tenantId,
      jobId: contactJob.id,
      jobTitle: contactJob.title,
      company: contactJob.company,
      ...body,
      status: 'queued',
      channel: 'rest',
    });
    const one = await admin(sb.get())('GET', `/sandbox/v1/applications/${res.json.applicationId}`);
    expect(one.json).toEqual(queued);
  });

  it('returns the external apply URL for applicant-tracking jobs, also for one credit', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    const res = await t.api('applyToJob', 'POST', applyPath(atsJob.id), applyBody());
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'external',
      applyUrl: atsJob.applyUrl,
      jobId: atsJob.id,
      creditsRemaining: limits.spec.jobs.pro.applyCreditsPerMonth - 1,
    });
    expect(res.json.applyUrl).not.toContain('remote-jobs.example');
    expect(await queue(t.tenantId)).toEqual([]);
  });

  it('answers 402 once the wallet is empty, and spends the last credit first', async () => {
    const t = await tenantKey(sb.get(), 'starter');
    await admin(sb.get())('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { applyCredits: 1 });
    expect((await t.api('applyToJob', 'POST', applyPath(atsJob.id), applyBody())).json.creditsRemaining).toBe(0);
    const res = await t.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody());
    expect(res.status).toBe(402);
    expect(res.json.error.code).toBe('payment_required');
    expect(res.json.error.message).toMatch(/credits/);
    expect(res.json.error.upsell.upgradeUrl).toBe(`${sb.get().baseUrl}/app/billing`);
    expect((await balances(sb.get(), t.tenantId)).apply).toBe(0);
    expect(await queue(t.tenantId)).toEqual([]);
  });

  it('keeps the screening wallet apart from the apply wallet', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    const before = await balances(sb.get(), t.tenantId);
    await t.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody());
    expect(await balances(sb.get(), t.tenantId)).toEqual({ apply: before.apply - 1, screening: before.screening });
  });
});

describe('apply: bad input never costs a credit', () => {
  it('accepts messages of 80 and 3000 characters and rejects 79 and 3001, naming message', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    for (const n of [79, 3001]) {
      const res = await t.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody({ message: message(n) }));
      expect(res.status, String(n)).toBe(400);
      expect(res.json.error.code).toBe('invalid_request');
      expect(res.json.error.message).toContain('message');
    }
    expect((await balances(sb.get(), t.tenantId)).apply).toBe(limits.spec.jobs.pro.applyCreditsPerMonth);
    for (const n of [80, 3000]) {
      expect(
        (await t.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody({ message: message(n) }))).status,
        String(n),
      ).toBe(200);
    }
    expect((await balances(sb.get(), t.tenantId)).apply).toBe(limits.spec.jobs.pro.applyCreditsPerMonth - 2);
  });

  it('rejects bad bodies with a 400 naming the field', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    const { candidate_email: _e, ...noEmail } = applyBody();
    for (const [body, field] of [
      [noEmail, 'candidate_email'],
      [applyBody({ candidate_email: 'not-an-email' }), 'candidate_email'],
      [applyBody({ candidate_name: 42 }), 'candidate_name'],
      [applyBody({ salary: 1000 }), 'salary'],
      [applyBody({ resume_url: 'not a url' }), 'resume_url'],
      [applyBody({ locale: 'fr' }), 'locale'],
      [[applyBody()], 'body'],
    ] as const) {
      const res = await t.api('applyToJob', 'POST', applyPath(contactJob.id), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.message, JSON.stringify(body)).toContain(field);
    }
    const raw = client(sb.get().baseUrl, t.apiKey);
    const syntax = await raw('POST', applyPath(contactJob.id), '{"candidate_name":', {});
    expect(syntax.status).toBe(400);
    expect(syntax.json.error.message).toMatch(/JSON/);
    const type = await raw('POST', applyPath(contactJob.id), JSON.stringify(applyBody()), {
      'content-type': 'text/plain',
    });
    expect(type.status).toBe(400);
    expect(type.json.error.message).toMatch(/Content-Type/);
    expect((await balances(sb.get(), t.tenantId)).apply).toBe(limits.spec.jobs.pro.applyCreditsPerMonth);
    expect(await queue(t.tenantId)).toEqual([]);
  });

  it('checks auth, then body, then the job, then the tier, then credit', async () => {
    const free = await tenantKey(sb.get(), 'free');
    // body before job and tier
    expect((await free.api('applyToJob', 'POST', applyPath('job_nope'), applyBody({ message: 'short' }))).status).toBe(
      400,
    );
    // job before tier
    const missing = await free.api('applyToJob', 'POST', applyPath('job_nope'), applyBody());
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain('job_nope');
    // tier before credit
    await admin(sb.get())('PATCH', `/sandbox/v1/tenants/${free.tenantId}`, { applyCredits: 5 });
    expect((await free.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody())).status).toBe(402);
    expect((await balances(sb.get(), free.tenantId)).apply).toBe(5);
    // auth before everything
    const noScope = await tenantKey(sb.get(), 'pro', ['jobs', 'market']);
    const forbidden = await noScope.api('applyToJob', 'POST', applyPath('job_nope'), { bogus: true });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error.message).toContain('apply');
  });

  it('answers 404 for an unknown job without charging', async () => {
    const t = await tenantKey(sb.get(), 'starter');
    const res = await t.api('applyToJob', 'POST', applyPath('job_doesnotexist'), applyBody());
    expect(res.status).toBe(404);
    expect((await balances(sb.get(), t.tenantId)).apply).toBe(limits.spec.jobs.starter.applyCreditsPerMonth);
  });
});

describe('control API: applications', () => {
  it('lists the queue across tenants, filters by tenant and refuses unknown input', async () => {
    const a = await tenantKey(sb.get(), 'pro');
    const b = await tenantKey(sb.get(), 'pro');
    await a.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody());
    await b.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody({ candidate_name: 'Budi' }));
    const all = await admin(sb.get())('GET', '/sandbox/v1/applications');
    const tenants = new Set(all.json.applications.map((x: { tenantId: string }) => x.tenantId));
    expect(tenants.has(a.tenantId) && tenants.has(b.tenantId)).toBe(true);
    expect((await queue(b.tenantId)).map((x) => x.candidate_name)).toEqual(['Budi']);
    expect((await admin(sb.get())('GET', '/sandbox/v1/applications?tenant=x')).status).toBe(400);
    expect((await admin(sb.get())('GET', '/sandbox/v1/applications?tenantId=ten_nope')).status).toBe(404);
    expect((await admin(sb.get())('GET', '/sandbox/v1/applications/app_nope')).status).toBe(404);
    expect((await client(sb.get().baseUrl)('GET', '/sandbox/v1/applications')).status).toBe(401);
  });

  it('is emptied by a sandbox reset', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    await t.api('applyToJob', 'POST', applyPath(contactJob.id), applyBody());
    expect((await admin(sb.get())('POST', '/sandbox/v1/reset')).status).toBeLessThan(300);
    expect((await admin(sb.get())('GET', '/sandbox/v1/applications')).json.applications).toEqual([]);
  });
});
