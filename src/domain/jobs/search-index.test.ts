import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Faults } from '../faults.js';
import { Rng } from '../rng.js';
import { generateCorpus } from './corpus.js';
import { Describer } from './description.js';
import { SearchIndex, type IndexFilter } from './search-index.js';
import { JobSearch } from './search.js';
import { fold, tokenize } from './text.js';
import { JOB_TYPES, OPPORTUNITY_TYPES, REMOTE_TYPES, type StoredJob } from './types.js';
import { vocabulary } from './vocab.js';

const vocab = vocabulary();
const describer = new Describer(vocab);
const corpus = generateCorpus(vocab, 99, 1500, 0.1);
const index = SearchIndex.build(corpus.active, (job, fn) => describer.visitTerms(job, fn));
const termsOf = corpus.active.map((j) => new Set(describer.terms(j)));

function bruteForce(f: IndexFilter): number[] {
  const out: number[] = [];
  corpus.active.forEach((j: StoredJob, doc) => {
    if (!f.terms.every((t) => termsOf[doc].has(t))) return;
    if (f.location !== undefined && !fold(j.location).includes(fold(f.location))) return;
    if (f.remoteType && j.remoteType !== f.remoteType) return;
    if (f.jobType && j.jobType !== f.jobType) return;
    if (f.opportunityType && j.opportunityType !== f.opportunityType) return;
    out.push(doc);
  });
  return out;
}

const words = [
  ...new Set(
    corpus.active.slice(0, 200).flatMap((j) => tokenize(`${j.title} ${j.skills.join(' ')} ${describer.render(j)}`)),
  ),
];
const filterArb: fc.Arbitrary<IndexFilter> = fc.record(
  {
    terms: fc.array(fc.oneof(fc.constantFrom(...words), fc.constant('qqq')), { maxLength: 3 }),
    location: fc.constantFrom('remote', 'jakarta', 'UTC', 'apac', 'x', '', '—'),
    remoteType: fc.constantFrom(...REMOTE_TYPES),
    jobType: fc.constantFrom(...JOB_TYPES),
    opportunityType: fc.constantFrom(...OPPORTUNITY_TYPES),
  },
  { requiredKeys: ['terms'] },
);

describe('search index', () => {
  it('matches exactly what a scan of every job matches, in document order', () => {
    fc.assert(
      fc.property(filterArb, (f) => {
        expect(Array.from(index.match(f))).toEqual(bruteForce(f));
      }),
      { numRuns: 400 },
    );
  });

  it('returns every document for an empty filter', () => {
    expect(index.match({ terms: [] })).toHaveLength(corpus.active.length);
  });
});

describe('free-tier interleaving', () => {
  const search = new JobSearch(corpus.active, index, new Faults(new Rng(1), () => ''));

  it('pages through one fixed sequence: any offset and limit agree with one long read', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('', 'engineer', 'senior remote', 'designer'),
        fc.integer({ min: 1, max: 50 }),
        fc.nat({ max: 200 }),
        (q, limit, offset) => {
          fc.pre(Math.floor(offset / limit) < 5);
          const whole = [
            ...search.search('free', { q, limit: 50, offset: 0 }).jobs,
            ...search.search('free', { q, limit: 50, offset: 50 }).jobs,
            ...search.search('free', { q, limit: 50, offset: 100 }).jobs,
            ...search.search('free', { q, limit: 50, offset: 150 }).jobs,
            ...search.search('free', { q, limit: 50, offset: 200 }).jobs,
          ];
          expect(new Set(whole.map((j) => j.id)).size).toBe(whole.length);
          const page = search.search('free', { q, limit, offset });
          expect(page.jobs).toEqual(whole.slice(offset, offset + limit));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('puts a promoted job in every tenth slot while promoted matches last, then the rest', () => {
    const all = [0, 50, 100, 150, 200].flatMap((offset) => search.search('free', { limit: 50, offset }).jobs);
    all.forEach((j, k) => expect(j.sponsored, `slot ${k}`).toBe(k % 10 === 9));
    const rare = search.search('free', { q: 'fellow', limit: 50 });
    const promoted = rare.jobs.filter((j) => j.sponsored).length;
    expect(promoted).toBe(corpus.active.filter((j) => j.promoted && j.title.includes('Fellow')).length);
  });
});

describe('search answers in bytes', () => {
  const faults = new Faults(new Rng(1), () => '');
  const search = new JobSearch(corpus.active, index, faults);
  // few values per field, so that asks differing in one field alone are common
  const params = fc.record(
    {
      q: fc.constantFrom('engineer', 'senior'),
      location: fc.constantFrom('remote', 'x|1:y'),
      remote_type: fc.constantFrom(...REMOTE_TYPES.slice(0, 2)),
      job_type: fc.constantFrom(...JOB_TYPES.slice(0, 2)),
      opportunity_type: fc.constantFrom(...OPPORTUNITY_TYPES.slice(0, 2)),
      limit: fc.constantFrom(5, 20),
      offset: fc.constantFrom(0, 7),
    },
    { requiredKeys: [] },
  );

  it('are the JSON of the answer, for any tier and parameters, asked once or again, with the bug that leaks promoted jobs on or off', () => {
    fc.assert(
      fc.property(fc.array(params, { minLength: 1, maxLength: 8 }), (asks) => {
        for (const p of [...asks, ...asks]) {
          for (const tier of ['free', 'starter', 'pro'] as const) {
            for (const leak of [false, true]) {
              if (leak) faults.enableBug('sponsored_on_paid');
              else faults.disableBug('sponsored_on_paid');
              let expected: string;
              try {
                expected = JSON.stringify(search.search(tier, p));
              } catch (err) {
                expect(() => search.searchBody(tier, p)).toThrow((err as Error).message);
                continue;
              }
              expect(search.searchBody(tier, p).toString('utf8')).toBe(expected);
            }
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
