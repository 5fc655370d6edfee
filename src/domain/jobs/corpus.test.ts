import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CORPUS_EPOCH_MS,
  generateCorpus,
  INACTIVE_SHARE,
  isoSeconds,
  LISTING_HOST,
  POSTED_WINDOW_DAYS,
} from './corpus.js';
import { Describer, withArticle } from './description.js';
import { midpointIdrMonthly } from './pay.js';
import { tokenize } from './text.js';
import { JOB_TYPES, OPPORTUNITY_TYPES, PAY_PERIODS, REMOTE_TYPES, SENIORITIES } from './types.js';
import { vocabulary } from './vocab.js';

const vocab = vocabulary();
const corpus = generateCorpus(vocab, 7, 2000, 0.1);

describe('corpus generator', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    expect(generateCorpus(vocab, 7, 2000, 0.1)).toEqual(corpus);
    expect(generateCorpus(vocab, 8, 2000, 0.1).all[0].id).not.toBe(corpus.all[0].id);
  });

  it('holds the requested active jobs plus about 5% inactive ones, with unique ids', () => {
    expect(corpus.active).toHaveLength(2000);
    expect(corpus.all.length - corpus.active.length).toBe(Math.round(2000 * INACTIVE_SHARE));
    expect(corpus.byId.size).toBe(corpus.all.length);
    expect(generateCorpus(vocab, 1, 0, 0.1).all).toEqual([]);
  });

  it('orders jobs newest first, then by id, within the posting window', () => {
    for (let i = 1; i < corpus.all.length; i++) {
      const [a, b] = [corpus.all[i - 1], corpus.all[i]];
      expect(a.postedAtMs > b.postedAtMs || (a.postedAtMs === b.postedAtMs && a.id < b.id)).toBe(true);
    }
    for (const j of corpus.active) {
      expect(j.postedAtMs).toBeLessThanOrEqual(CORPUS_EPOCH_MS);
      expect(j.postedAtMs).toBeGreaterThan(CORPUS_EPOCH_MS - POSTED_WINDOW_DAYS * 86_400_000);
      expect(new Date(j.postedAt).getTime()).toBe(j.postedAtMs);
    }
  });

  it('formats dates exactly as Date#toISOString does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (secs) => {
        expect(isoSeconds(secs * 1000)).toBe(new Date(secs * 1000).toISOString());
      }),
      { numRuns: 2000 },
    );
    for (const s of [0, 951_782_400, 4_107_542_400, 1_709_164_800])
      expect(isoSeconds(s * 1000)).toBe(new Date(s * 1000).toISOString());
  });

  it('covers every enumerated value, both currencies, every pay period and listings without pay', () => {
    const seen = (f: (j: (typeof corpus.active)[number]) => unknown) => new Set(corpus.active.map(f));
    expect(seen((j) => j.remoteType)).toEqual(new Set(REMOTE_TYPES));
    expect(seen((j) => j.jobType)).toEqual(new Set(JOB_TYPES));
    expect(seen((j) => j.opportunityType)).toEqual(new Set(OPPORTUNITY_TYPES));
    expect(seen((j) => j.seniority)).toEqual(new Set(SENIORITIES));
    expect(seen((j) => j.payCurrency)).toEqual(new Set(['IDR', 'USD']));
    expect(seen((j) => j.payPeriod)).toEqual(new Set(PAY_PERIODS));
    expect(seen((j) => j.roleFamily)).toEqual(new Set(vocab.families.map((f) => f.slug)));
    const noPay = corpus.active.filter((j) => j.payMin === null).length;
    expect(noPay / 2000).toBeGreaterThan(0.05);
    expect(noPay / 2000).toBeLessThan(0.3);
    const promoted = corpus.active.filter((j) => j.promoted).length / 2000;
    expect(promoted).toBeGreaterThan(0.07);
    expect(promoted).toBeLessThan(0.13);
  });

  it('keeps every job internally consistent', () => {
    const family = new Map(vocab.families.map((f) => [f.slug, f]));
    for (const j of corpus.all) {
      expect(j.id).toMatch(/^job_[0-9a-z]{12}$/);
      expect(j.url).toBe(`${LISTING_HOST}/jobs/${j.id}`);
      expect(vocab.locations[j.remoteType]).toContain(j.location);
      expect(j.skills.length).toBeGreaterThanOrEqual(3);
      expect(j.skills.length).toBeLessThanOrEqual(8);
      expect(new Set(j.skills).size).toBe(j.skills.length);
      expect(j.skills.every((s) => family.get(j.roleFamily)!.skills.includes(s))).toBe(true);
      expect((j.employerContact === null) !== (j.atsUrl === null)).toBe(true);
      expect(j.applyUrl).toBe(j.atsUrl ?? `${LISTING_HOST}/jobs/${j.id}/apply`);
      expect(j.promoted && !j.active).toBe(false);
      expect((j.payMin === null) === (j.payMax === null)).toBe(true);
      if (j.payMin !== null) expect(j.payMin).toBeLessThan(j.payMax!);
      if (j.payCurrency === 'IDR') expect(j.payPeriod).toBe('month');
      if (j.opportunityType === 'volunteer') expect(j.payMin).toBeNull();
      expect(j.payIdrMonthly).toBe(midpointIdrMonthly(j.payMin, j.payMax, j.payCurrency, j.payPeriod));
    }
  });

  it('indexes exactly the terms of title, company, skills and the rendered description', () => {
    const d = new Describer(vocab);
    for (const j of corpus.all.slice(0, 300)) {
      const text = d.render(j);
      expect(text).not.toMatch(/[{}]|undefined/);
      expect(new Set(d.terms(j))).toEqual(new Set(tokenize([j.title, j.company, ...j.skills, text].join(' '))));
    }
  });

  it('uses the right article before titles and industries', () => {
    expect(withArticle('Android Developer')).toBe('an Android Developer');
    expect(withArticle('SEO Specialist')).toBe('an SEO Specialist');
    expect(withArticle('HR software')).toBe('an HR software');
    expect(withArticle('UI/UX Designer')).toBe('a UI/UX Designer');
    expect(withArticle('UX Researcher')).toBe('a UX Researcher');
    expect(withArticle('QA Engineer')).toBe('a QA Engineer');
    expect(withArticle('Frontend Engineer')).toBe('a Frontend Engineer');
    expect(withArticle('e-commerce')).toBe('an e-commerce');
  });
});
