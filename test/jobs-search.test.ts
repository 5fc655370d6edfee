// GET /api/v1/jobs and /api/v1/jobs/{id} over real HTTP, compared with an independent model of the
// corpus: filters, free-text search, ordering, paging, page caps, promoted listings and bad input.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../src/domain/jobs/corpus.js';
import type { JobRecord } from '../src/domain/jobs/index.js';
import { tokenize } from '../src/domain/jobs/text.js';
import { vocabulary } from '../src/domain/jobs/vocab.js';
import { limits } from '../src/domain/plans.js';
import { byResultOrder, folded, jobsApi, readCorpus, tenantKey } from './support/jobs.js';
import { useSandbox } from './support/sandbox.js';

const SEED = 424242;
const sb = useSandbox({ seed: SEED });

interface Filters {
  q?: string;
  location?: string;
  remote_type?: string;
  job_type?: string;
  opportunity_type?: string;
}

let corpus: JobRecord[] = [];
const terms = new Map<string, Set<string>>();

function model(f: Filters): JobRecord[] {
  const wanted = f.q ? tokenize(f.q) : [];
  return corpus.filter(
    (j) =>
      wanted.every((t) => terms.get(j.id)!.has(t)) &&
      (f.location === undefined || folded(j.location).includes(folded(f.location))) &&
      (f.remote_type === undefined || j.remoteType === f.remote_type) &&
      (f.job_type === undefined || j.jobType === f.job_type) &&
      (f.opportunity_type === undefined || j.opportunityType === f.opportunity_type),
  );
}

const qs = (params: Record<string, string | number | undefined>) =>
  new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined) as [string, string][]).toString();

const filtersArb = (): fc.Arbitrary<Filters> => {
  const words = [...new Set(corpus.flatMap((j) => [...j.title.split(' '), ...j.skills, j.company.split(' ')[0]]))];
  return fc.record(
    {
      q: fc.oneof(
        fc.constantFrom(...words),
        fc.tuple(fc.constantFrom(...words), fc.constantFrom(...words)).map(([a, b]) => `${a} ${b}`),
        fc.constant('zzyzx'),
      ),
      location: fc.constantFrom('remote', 'JAKARTA', 'utc+7', 'Apac', 'indonesia', 'Bali', 'world', 'Mars'),
      remote_type: fc.constantFrom('worldwide', 'regional', 'timezone-based'),
      job_type: fc.constantFrom('full-time', 'part-time', 'contract', 'freelance'),
      opportunity_type: fc.constantFrom('regular', 'internship', 'fellowship', 'apprenticeship', 'volunteer'),
    },
    { requiredKeys: [] },
  );
};

beforeAll(async () => {
  corpus = await readCorpus(sb.get());
  for (const j of corpus)
    terms.set(j.id, new Set(tokenize([j.title, j.company, j.description, ...j.skills].join(' '))));
});

describe('search: the corpus read back over HTTP', () => {
  it('holds every active job once, newest first then by id', () => {
    expect(corpus).toHaveLength(sb.get().core.config.corpusSize);
    expect(new Set(corpus.map((j) => j.id)).size).toBe(corpus.length);
    expect(corpus.every((j) => j.active)).toBe(true);
    expect([...corpus].sort(byResultOrder).map((j) => j.id)).toEqual(corpus.map((j) => j.id));
  });

  it('is the same corpus for the same seed, independent of the running sandbox', () => {
    const again = generateCorpus(vocabulary(), SEED, corpus.length, 1 / limits.policy.sponsoredEvery);
    expect(again.active.map((j) => j.id)).toEqual(corpus.map((j) => j.id));
  });
});

describe('search: filters and free text', () => {
  it('returns exactly the matching jobs, in order, for random filter combinations and pages', async () => {
    const { api } = await tenantKey(sb.get(), 'pro');
    await fc.assert(
      fc.asyncProperty(
        filtersArb(),
        fc.integer({ min: 1, max: 50 }),
        fc.nat({ max: 400 }),
        async (f, limit, rawOffset) => {
          const expected = model(f);
          const offset = Math.min(rawOffset, limit * 49);
          const res = await api('searchJobs', 'GET', `/api/v1/jobs?${qs({ ...f, limit, offset })}`);
          expect(res.status).toBe(200);
          expect(res.json.tier).toBe('pro');
          expect(res.json.page).toBe(Math.floor(offset / limit));
          expect(res.json.jobs.map((j: { id: string }) => j.id)).toEqual(
            expected.slice(offset, offset + limit).map((j) => j.id),
          );
          expect(res.json.hasMore).toBe(offset + limit < expected.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('never repeats a job across the pages of one query', async () => {
    const { api } = await tenantKey(sb.get(), 'starter');
    await fc.assert(
      fc.asyncProperty(filtersArb(), fc.integer({ min: 1, max: 12 }), async (f, limit) => {
        const seen: string[] = [];
        for (let page = 0; page < 4; page++) {
          const res = await api('searchJobs', 'GET', `/api/v1/jobs?${qs({ ...f, limit, offset: page * limit })}`);
          seen.push(...res.json.jobs.map((j: { id: string }) => j.id));
          if (!res.json.hasMore) break;
        }
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual(
          model(f)
            .slice(0, seen.length)
            .map((j) => j.id),
        );
      }),
      { numRuns: 20 },
    );
  });

  it('matches q against title, company, description and skills, all terms required', async () => {
    const { api } = await tenantKey(sb.get(), 'pro');
    const ids = async (q: string) =>
      (await api('searchJobs', 'GET', `/api/v1/jobs?${qs({ q, limit: 50 })}`)).json.jobs.map(
        (j: { id: string }) => j.id,
      );
    // a skill that appears nowhere else in its job (past the four the description names)
    const skillOnly = corpus.find((j) =>
      j.skills.slice(4).some((s) => !j.description.includes(s) && !j.title.includes(s)),
    )!;
    const skill = skillOnly.skills
      .slice(4)
      .find((s) => !skillOnly.description.includes(s) && !skillOnly.title.includes(s))!;
    for (const [q, mustFind] of [
      [corpus[0].title, corpus[0]],
      [corpus[0].company, corpus[0]],
      [skill, skillOnly],
      ['asynchronously', corpus.find((j) => j.description.includes('asynchronously'))!],
    ] as const) {
      const expected = model({ q });
      expect(expected.length, q).toBeGreaterThan(0);
      const pos = expected.findIndex((j) => j.id === mustFind.id);
      const res = await api(
        'searchJobs',
        'GET',
        `/api/v1/jobs?${qs({ q, limit: 50, offset: Math.floor(pos / 50) * 50 })}`,
      );
      expect(
        res.json.jobs.map((j: { id: string }) => j.id),
        q,
      ).toContain(mustFind.id);
    }
    const company = model({ q: corpus[0].company });
    expect(corpus.filter((j) => j.company === corpus[0].company).every((j) => company.includes(j))).toBe(true);
    expect(await ids('zzyzx')).toEqual([]);
    expect(await ids('JAKARTA')).toEqual(await ids('jakarta'));
    expect(await ids('Jakártá')).toEqual(await ids('jakarta'));
    expect(await ids('developers')).toEqual(await ids('developer'));
    expect(await ids('')).toEqual(corpus.slice(0, 50).map((j) => j.id));
  });

  it('treats locale as valid but localizes no Job field', async () => {
    const { api } = await tenantKey(sb.get(), 'pro');
    const en = await api('searchJobs', 'GET', '/api/v1/jobs?locale=en&q=engineer');
    const id = await api('searchJobs', 'GET', '/api/v1/jobs?locale=id&q=engineer');
    expect(id.json).toEqual(en.json);
  });
});

describe('search: bounds, tiers and promoted listings', () => {
  it('honours limit 1..50 with default 20 and rejects everything else naming the parameter', async () => {
    const { api } = await tenantKey(sb.get(), 'pro');
    expect((await api('searchJobs', 'GET', '/api/v1/jobs')).json.jobs).toHaveLength(20);
    expect((await api('searchJobs', 'GET', '/api/v1/jobs?limit=1')).json.jobs).toHaveLength(1);
    expect((await api('searchJobs', 'GET', '/api/v1/jobs?limit=50')).json.jobs).toHaveLength(50);
    for (const [query, param] of [
      ['limit=0', 'limit'],
      ['limit=51', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
      ['remote_type=remote', 'remote_type'],
      ['job_type=full_time', 'job_type'],
      ['opportunity_type=job', 'opportunity_type'],
      ['locale=fr', 'locale'],
      ['sort=new', 'sort'],
    ]) {
      const res = await api('searchJobs', 'GET', `/api/v1/jobs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.error.code).toBe('invalid_request');
      expect(res.json.error.message, query).toContain(param);
    }
  });

  it('answers past the end with an empty page, not an error', async () => {
    const { api } = await tenantKey(sb.get(), 'pro');
    const res = await api('searchJobs', 'GET', `/api/v1/jobs?q=zzyzx&offset=40`);
    expect(res.json).toMatchObject({ jobs: [], hasMore: false, page: 2 });
  });

  it.each([
    ['free', 5],
    ['starter', 20],
    ['pro', 50],
  ])('caps the %s tier at %i pages with 402 payment_required naming the cap', async (tier, cap) => {
    const { api } = await tenantKey(sb.get(), tier);
    const last = await api('searchJobs', 'GET', `/api/v1/jobs?limit=1&offset=${cap - 1}`);
    expect(last.status).toBe(200);
    expect(last.json.page).toBe(cap - 1);
    for (const query of [`limit=1&offset=${cap}`, `limit=20&offset=${cap * 20 + 7}`]) {
      const res = await api('searchJobs', 'GET', `/api/v1/jobs?${query}`);
      expect(res.status).toBe(402);
      expect(res.json.error.code).toBe('payment_required');
      expect(res.json.error.message).toContain(`${cap} pages`);
      expect(res.json.error.upsell.upgradeUrl).toBe(`${sb.get().baseUrl}/app/billing`);
    }
  });

  it('marks about one free result in ten sponsored, never repeating a job across pages', async () => {
    const { api } = await tenantKey(sb.get(), 'free');
    const seen: Array<{ id: string; sponsored: boolean }> = [];
    for (let page = 0; page < 5; page++) {
      const res = await api('searchJobs', 'GET', `/api/v1/jobs?offset=${page * 20}`);
      expect(res.json.tier).toBe('free');
      seen.push(...res.json.jobs);
    }
    expect(new Set(seen.map((j) => j.id)).size).toBe(100);
    const sponsored = seen.filter((j) => j.sponsored);
    expect(sponsored.length).toBeGreaterThanOrEqual(8);
    expect(sponsored.length).toBeLessThanOrEqual(12);
    // organic results keep the search order; promoted ones keep theirs among themselves
    const organic = seen.filter((j) => !j.sponsored).map((j) => j.id);
    const rank = new Map(corpus.map((j, i) => [j.id, i]));
    const sorted = (ids: string[]) => [...ids].sort((a, b) => rank.get(a)! - rank.get(b)!);
    expect(organic).toEqual(sorted(organic));
    expect(sponsored.map((j) => j.id)).toEqual(sorted(sponsored.map((j) => j.id)));
  });

  it('keeps promoted listings within the filters on the free tier', async () => {
    const { api } = await tenantKey(sb.get(), 'free');
    await fc.assert(
      fc.asyncProperty(filtersArb(), async (f) => {
        const res = await api('searchJobs', 'GET', `/api/v1/jobs?${qs({ ...f, limit: 50 })}`);
        const allowed = new Set(model(f).map((j) => j.id));
        expect(res.json.jobs.every((j: { id: string }) => allowed.has(j.id))).toBe(true);
        expect(res.json.jobs.length).toBe(Math.min(50, allowed.size));
      }),
      { numRuns: 25 },
    );
  });

  it.each(['starter', 'pro', 'scale'])('never marks a %s result sponsored', async (tier) => {
    const { api } = await tenantKey(sb.get(), tier);
    for (let page = 0; page < 3; page++) {
      const res = await api('searchJobs', 'GET', `/api/v1/jobs?limit=50&offset=${page * 50}`);
      expect(res.json.tier).toBe(tier === 'scale' ? 'pro' : tier);
      expect(res.json.jobs.filter((j: { sponsored: boolean }) => j.sponsored)).toEqual([]);
    }
  });
});

describe('get job and access', () => {
  it('returns an active job with exactly the fields of a search result, never sponsored', async () => {
    const { api } = await tenantKey(sb.get(), 'free');
    const listed = (await api('searchJobs', 'GET', '/api/v1/jobs?limit=10')).json.jobs;
    for (const job of listed) {
      const res = await api('getJob', 'GET', `/api/v1/jobs/${job.id}`);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ ...job, sponsored: false });
      expect(Object.keys(res.json).sort()).toEqual(
        [
          'id',
          'title',
          'company',
          'location',
          'payMin',
          'payMax',
          'payCurrency',
          'payPeriod',
          'remoteType',
          'jobType',
          'postedAt',
          'url',
          'applyUrl',
          'sponsored',
        ].sort(),
      );
    }
  });

  it('answers 404 for unknown and inactive jobs', async () => {
    const { api } = await tenantKey(sb.get(), 'pro');
    const inactive = generateCorpus(vocabulary(), SEED, corpus.length, 1 / limits.policy.sponsoredEvery).all.find(
      (j) => !j.active,
    )!;
    for (const id of ['job_doesnotexist', inactive.id]) {
      const res = await api('getJob', 'GET', `/api/v1/jobs/${id}`);
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe('not_found');
      expect(res.json.error.message).toContain(id);
    }
    const q = await api('getJob', 'GET', `/api/v1/jobs/${corpus[0].id}?verbose=1`);
    expect(q.status).toBe(400);
    expect(q.json.error.message).toContain('verbose');
  });

  it('refuses missing keys, keys in the query string and keys without the jobs scope', async () => {
    const { apiKey } = await tenantKey(sb.get(), 'pro');
    const anonymous = jobsApi(sb.get());
    expect((await anonymous('searchJobs', 'GET', '/api/v1/jobs')).status).toBe(401);
    const inQuery = await anonymous('searchJobs', 'GET', `/api/v1/jobs?api_key=${apiKey}`);
    expect(inQuery.status).toBe(401);
    expect(inQuery.json.error.message).toMatch(/query string/);
    const withHeaderToo = await jobsApi(sb.get(), apiKey)('searchJobs', 'GET', `/api/v1/jobs?q=${apiKey}`);
    expect(withHeaderToo.status).toBe(401);
    const { api: marketOnly } = await tenantKey(sb.get(), 'pro', ['market']);
    const res = await marketOnly('searchJobs', 'GET', '/api/v1/jobs');
    expect(res.status).toBe(403);
    expect(res.json.error.message).toContain('jobs');
  });
});
