// GET /api/v1/me and the market endpoints over real HTTP: the shapes, the numbers recomputed from the
// corpus, every tier, locale and limit bounds, and that none of them ever costs a credit.

import { beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../src/domain/jobs/index.js';
import { jobsTierOf, limits, type PlanTier } from '../src/domain/plans.js';
import { balances, readCorpus, tenantKey } from './support/jobs.js';
import { useSandbox } from './support/sandbox.js';

const sb = useSandbox();
let corpus: JobRecord[] = [];

beforeAll(async () => {
  corpus = await readCorpus(sb.get());
});

/** Percentile by linear interpolation between closest ranks. */
function pct(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * p;
  return sorted[Math.floor(h)] + (sorted[Math.ceil(h)] - sorted[Math.floor(h)]) * (h - Math.floor(h));
}

const TIERS: PlanTier[] = ['free', 'starter', 'pro', 'scale'];

describe('GET /me', () => {
  it.each(TIERS)('describes a %s key: jobs tier, scopes, credits and limits', async (planTier) => {
    const t = await tenantKey(sb.get(), planTier, ['jobs', 'market']);
    const res = await t.api('getMe', 'GET', '/api/v1/me');
    expect(res.status).toBe(200);
    const tier = jobsTierOf(planTier);
    const spec = limits.spec.jobs[tier];
    expect(res.json).toEqual({
      tier,
      scopes: ['jobs', 'market'],
      applyCredits: {
        remaining: spec.applyCreditsPerMonth,
        perMonth: spec.applyCreditsPerMonth,
        resetAt: spec.applyCreditsPerMonth > 0 ? expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00.000Z$/) : null,
      },
      limits: {
        rateLimitPerMinute: spec.rateLimitPerMinute,
        maxPages: spec.maxPages,
        applyEnabled: spec.applyEnabled,
        adFree: spec.adFree,
        talentSearchPerDay: limits.spec.talentSearchPerDay,
        draftApplicationPerMonth: limits.policy.draftApplicationPerMonth[tier],
      },
    });
  });

  it('refuses unknown parameters', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    const res = await t.api('getMe', 'GET', '/api/v1/me?verbose=true');
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain('verbose');
  });
});

describe('market data', () => {
  it('computes the salary grid from the active jobs with pay, by role family and seniority', async () => {
    const t = await tenantKey(sb.get(), 'free');
    const res = await t.api('getSalaryBenchmarks', 'GET', '/api/v1/market/salary');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ currency: 'IDR', period: 'month' });
    const paid = corpus.filter((j) => j.payIdrMonthly !== null);
    expect(res.json.sampleSize).toBe(paid.length);
    expect(res.json.rows.length).toBeGreaterThan(30);
    for (const row of res.json.rows) {
      const values = paid
        .filter((j) => j.roleFamily === row.roleFamily && j.seniority === row.seniority)
        .map((j) => j.payIdrMonthly!)
        .sort((a, b) => a - b);
      expect(row.sampleSize).toBe(values.length);
      expect(row.median).toBe(Math.round(pct(values, 0.5)));
      expect(row.p25).toBe(Math.round(pct(values, 0.25)));
      expect(row.p75).toBe(Math.round(pct(values, 0.75)));
      expect(row.iqr).toBe(row.p75 - row.p25);
    }
    // seniority orders pay within a family
    const backend = Object.fromEntries(
      res.json.rows.filter((r: any) => r.roleFamily === 'backend-engineering').map((r: any) => [r.seniority, r.median]),
    );
    expect(backend.junior).toBeLessThan(backend.senior);
  });

  it('lists role families in English by default and in Indonesian on request', async () => {
    const t = await tenantKey(sb.get(), 'starter');
    const en = await t.api('listRoles', 'GET', '/api/v1/market/roles');
    const id = await t.api('listRoles', 'GET', '/api/v1/market/roles?locale=id');
    expect(en.json.locale).toBe('en');
    expect(id.json.locale).toBe('id');
    expect(id.json.roles.map((r: any) => r.slug)).toEqual(en.json.roles.map((r: any) => r.slug));
    const backendEn = en.json.roles.find((r: any) => r.slug === 'backend-engineering');
    const backendId = id.json.roles.find((r: any) => r.slug === 'backend-engineering');
    expect(backendEn.name).toBe('Backend Engineering');
    expect(backendId.name).toBe('Rekayasa Backend');
    for (const r of en.json.roles) expect(r.jobCount).toBe(corpus.filter((j) => j.roleFamily === r.slug).length);
    expect(en.json.roles.reduce((n: number, r: any) => n + r.jobCount, 0)).toBe(corpus.length);
  });

  it('reports every listed role, localized, with numbers that match the corpus', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    const roles = (await t.api('listRoles', 'GET', '/api/v1/market/roles')).json.roles;
    for (const { slug, name } of roles) {
      const res = await t.api('getRoleReport', 'GET', `/api/v1/market/roles/${slug}`);
      expect(res.status).toBe(200);
      const jobs = corpus.filter((j) => j.roleFamily === slug);
      expect(res.json).toMatchObject({ locale: 'en', slug, name, jobCount: jobs.length });
      expect(res.json.seniorityMix.reduce((n: number, m: any) => n + m.jobs, 0)).toBe(jobs.length);
      expect(res.json.remoteTypeMix).toEqual(
        ['worldwide', 'regional', 'timezone-based'].map((remoteType) => ({
          remoteType,
          jobs: jobs.filter((j) => j.remoteType === remoteType).length,
        })),
      );
      const top = res.json.topSkills[0];
      expect(top.mentions).toBe(jobs.filter((j) => j.skills.includes(top.skill)).length);
      const pay = jobs
        .map((j) => j.payIdrMonthly)
        .filter((v): v is number => v !== null)
        .sort((a, b) => a - b);
      expect(res.json.pay).toEqual({
        currency: 'IDR',
        period: 'month',
        median: Math.round(pct(pay, 0.5)),
        p25: Math.round(pct(pay, 0.25)),
        p75: Math.round(pct(pay, 0.75)),
      });
    }
    const id = await t.api('getRoleReport', 'GET', '/api/v1/market/roles/customer-support?locale=id');
    expect(id.json.locale).toBe('id');
    expect(id.json.summary).toMatch(/Bahasa/);
  });

  it('answers 404 naming an unknown role and 400 for a malformed one or a bad locale', async () => {
    const t = await tenantKey(sb.get(), 'pro');
    const missing = await t.api('getRoleReport', 'GET', '/api/v1/market/roles/astronaut');
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain('astronaut');
    for (const path of [
      '/api/v1/market/roles/Backend_Engineering',
      '/api/v1/market/roles/backend-engineering?locale=fr',
      '/api/v1/market/roles?locale=de',
    ]) {
      const res = await t.api(path.includes('?locale=de') ? 'listRoles' : 'getRoleReport', 'GET', path);
      expect(res.status, path).toBe(400);
      expect(res.json.error.message, path).toMatch(/role|locale/);
    }
  });

  it('ranks skills by mentions with limit 1..100, default 25', async () => {
    const t = await tenantKey(sb.get(), 'free');
    const res = await t.api('listSkills', 'GET', '/api/v1/market/skills');
    expect(res.json.skills).toHaveLength(25);
    expect(res.json.totalJobs).toBe(corpus.length);
    const counts = new Map<string, number>();
    for (const j of corpus) for (const s of j.skills) counts.set(s, (counts.get(s) ?? 0) + 1);
    for (const { skill, mentions } of res.json.skills) expect(mentions).toBe(counts.get(skill));
    const m = res.json.skills.map((s: any) => s.mentions);
    expect(m).toEqual([...m].sort((a, b) => b - a));
    expect(m[0]).toBe(Math.max(...counts.values()));
    expect((await t.api('listSkills', 'GET', '/api/v1/market/skills?limit=1')).json.skills).toHaveLength(1);
    expect((await t.api('listSkills', 'GET', '/api/v1/market/skills?limit=100')).json.skills).toHaveLength(
      Math.min(100, counts.size),
    );
    for (const bad of ['0', '101', 'ten', '-5', '2.5']) {
      const r = await t.api('listSkills', 'GET', `/api/v1/market/skills?limit=${bad}`);
      expect(r.status, bad).toBe(400);
      expect(r.json.error.message).toContain('limit');
    }
    expect((await t.api('listSkills', 'GET', '/api/v1/market/skills?top=5')).status).toBe(400);
  });

  it.each(TIERS)('is open to %s keys and never changes a credit balance', async (planTier) => {
    const t = await tenantKey(sb.get(), planTier);
    const before = await balances(sb.get(), t.tenantId);
    for (const [op, path] of [
      ['getSalaryBenchmarks', '/api/v1/market/salary'],
      ['listRoles', '/api/v1/market/roles?locale=id'],
      ['getRoleReport', '/api/v1/market/roles/data-engineering'],
      ['listSkills', '/api/v1/market/skills?limit=5'],
    ]) {
      expect((await t.api(op, 'GET', path)).status, path).toBe(200);
    }
    expect(await balances(sb.get(), t.tenantId)).toEqual(before);
  });

  it('needs the market scope', async () => {
    const t = await tenantKey(sb.get(), 'pro', ['jobs']);
    const res = await t.api('listSkills', 'GET', '/api/v1/market/skills');
    expect(res.status).toBe(403);
    expect(res.json.error.message).toContain('market');
  });
});
