import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mentionOrderProblem } from './jobs-market.js';
import { scoreProblem, shortlistOf, talentProblem } from './mcp-tools.js';
import {
  findRecord,
  mainList,
  mainRecordList,
  mentionsNumber,
  namesTier,
  normKey,
  numericChanges,
  stringLeavesOf,
  stringsOf,
  tiersNamed,
  valueNamed,
} from './open-shape.js';

describe('reading open shapes without assuming field names', () => {
  const me = {
    plan: { name: 'Starter' },
    grants: ['jobs', 'apply'],
    balance: { apply: 99 },
    quotas: { requestsPerMinute: 120, pageCap: 20, note: '100/month' },
  };

  it('finds the tier in any letter case, and the tier table numbers, wherever they sit', () => {
    expect(namesTier(me, 'starter')).toBe(true);
    expect(namesTier(me, 'pro')).toBe(false);
    expect(tiersNamed(me, ['free', 'starter', 'pro'])).toEqual(['starter']);
    expect(mentionsNumber(me, 120)).toBe(true);
    expect(mentionsNumber(me, 100)).toBe(true);
    expect(mentionsNumber(me, 12)).toBe(false);
  });

  it('tells which numbers moved between two readings', () => {
    expect(numericChanges(me, { ...me, balance: { apply: 98 } })).toEqual([
      { path: '/balance/apply', from: 99, to: 98, delta: -1 },
    ]);
    expect(numericChanges(me, me)).toEqual([]);
  });

  it('takes the longest list as the main one, slug-like strings first', () => {
    expect(
      mainList({
        meta: [1],
        roles: [
          { name: 'Data Engineering', slug: 'data-engineering' },
          { name: 'QA', slug: 'qa' },
        ],
      }),
    ).toHaveLength(2);
    expect(stringsOf({ name: 'Data Engineering', slug: 'data-engineering' })[0]).toBe('data-engineering');
    expect(mainList({ a: 1 })).toBeNull();
  });

  it('"most mentioned first" holds when any count the entries carry never goes up', () => {
    expect(
      mentionOrderProblem([
        { s: 'a', n: 5, rank: 1 },
        { s: 'b', n: 3, rank: 2 },
      ]),
    ).toBeNull();
    expect(
      mentionOrderProblem([
        { s: 'a', n: 3 },
        { s: 'b', n: 5 },
      ]),
    ).toMatch(/not most-mentioned first/);
    expect(mentionOrderProblem(['a', 'b'])).toBeNull();
    // a count nested in each entry is read where it sits; numbers inside a list an entry carries are not counts
    expect(
      mentionOrderProblem([
        { s: 'a', demand: { mentions: 3 } },
        { s: 'b', demand: { mentions: 5 } },
      ]),
    ).toMatch(/\/demand\/mentions/);
    expect(
      mentionOrderProblem([
        { s: 'a', demand: { mentions: 5 }, tags: [1] },
        { s: 'b', demand: { mentions: 3 }, tags: [9] },
      ]),
    ).toBeNull();
  });
});

// Adversarial shapes: the same facts under any key names or conventions, any wrapping, lists nested in
// the items longer than the main list, and fields of any kind added; a reader must read them alike.

type Casing = 'camel' | 'snake' | 'kebab' | 'alias';
interface Style {
  casing: Casing;
  wraps: string[];
  nested: 'none' | 'records' | 'strings';
  extras: boolean;
}

const styleArb = (casings: Casing[] = ['camel', 'snake', 'kebab', 'alias']): fc.Arbitrary<Style> =>
  fc.record({
    casing: fc.constantFrom(...casings),
    wraps: fc.array(fc.constantFrom('data', 'result', 'payload', 'response'), { maxLength: 2 }),
    nested: fc.constantFrom('none' as const, 'records' as const, 'strings' as const),
    extras: fc.boolean(),
  });

const hash = (s: string) => [...s].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619), 2166136261) >>> 0;

function rename(key: string, casing: Casing): string {
  const w = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .map((x) => x.toLowerCase());
  if (casing === 'snake') return w.join('_');
  if (casing === 'kebab') return w.join('-');
  if (casing === 'alias') return `f${hash(key).toString(36)}`;
  return (
    w[0] +
    w
      .slice(1)
      .map((x) => x[0].toUpperCase() + x.slice(1))
      .join('')
  );
}

function reshape(value: unknown, s: Style, listLength: number | null = null): unknown {
  if (Array.isArray(value)) return value.map((v) => reshape(v, s, value.length));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[rename(k, s.casing)] = reshape(v, s);
  if (s.extras) Object.assign(out, { zzNote: 'added by the deployment', zzFlag: false, zzCount: 7 });
  if (s.nested !== 'none' && listLength !== null) {
    out.zzRelated = Array.from({ length: listLength + 3 }, (_, i) =>
      s.nested === 'records' ? { label: `related ${i}`, weight: 'low' } : `related-${i}`,
    );
  }
  return out;
}

const styled = (value: unknown, s: Style): unknown =>
  s.wraps.reduceRight<unknown>(
    (inner, w) => ({ [w]: inner, ...(s.extras ? { zzVersion: 'v1' } : {}) }),
    reshape(value, s),
  );

const card = fc.record({
  code: fc.constantFrom('tl-a1', 'tl-b2', 'tl-c3'),
  role: fc.constantFrom('Backend Engineer', 'Data Analyst'),
  years: fc.integer({ min: 0, max: 40 }),
  topSkills: fc.array(fc.constantFrom('TypeScript', 'SQL', 'Go', 'Python'), { maxLength: 14 }),
  city: fc.constantFrom('Jakarta', 'Medan'),
  fit: fc.integer({ min: 0, max: 100 }),
  breakdown: fc.record({ role: fc.integer({ min: 0, max: 40 }), skills: fc.integer({ min: 0, max: 40 }) }),
  tier: fc.constantFrom('exact', 'close', 'broader'),
});
const talent = (min: number, max: number) =>
  fc.record({
    matchCount: fc.nat(500),
    widened: fc.boolean(),
    cards: fc.array(card, { minLength: min, maxLength: max }),
  });

describe('open-shape readers against adversarial shapes', () => {
  it('talent_search: count and cards under any names, wrapping and padding read as conformant', () => {
    fc.assert(
      fc.property(talent(0, 10), styleArb(), (core, s) => talentProblem(styled(core, s)) === null),
      { numRuns: 300 },
    );
  });

  it('talent_search: more than 10 cards, a card without a tier word, or a fit out of range is caught in every style', () => {
    fc.assert(
      fc.property(talent(11, 14), styleArb(), (core, s) => /at most 10/.test(talentProblem(styled(core, s)) ?? '')),
      { numRuns: 100 },
    );
    fc.assert(
      fc.property(talent(1, 10), styleArb(), fc.nat(), (core, s, i) => {
        const cards = core.cards.map((c, j) => (j === i % core.cards.length ? { ...c, tier: 'perfect' } : c));
        return /names no tier/.test(talentProblem(styled({ ...core, cards }, s)) ?? '');
      }),
      { numRuns: 100 },
    );
    // the fit is read under the document's own word in any key convention (an alias hides it)
    fc.assert(
      fc.property(
        talent(1, 10),
        styleArb(['camel', 'snake', 'kebab']),
        fc.nat(),
        fc.integer({ min: 101, max: 10_000 }),
        (core, s, i, fit) => {
          const cards = core.cards.map((c, j) => (j === i % core.cards.length ? { ...c, fit } : c));
          return /not 0–100/.test(talentProblem(styled({ ...core, cards }, s)) ?? '');
        },
      ),
      { numRuns: 100 },
    );
  });

  it("talent_search under other names than this sandbox's (the false MCP-TOOL-9 failure) reads as conformant", () => {
    const other = {
      total: 2,
      results: [
        {
          ref: 'c-1',
          title: 'Backend Engineer',
          yrs: 5,
          skills: ['Go'],
          town: 'Jakarta',
          match: 88,
          parts: { a: 40, b: 48 },
          band: 'exact',
        },
        {
          ref: 'c-2',
          title: 'QA',
          yrs: 2,
          skills: [],
          town: 'Medan',
          match: 51,
          parts: { a: 20, b: 31 },
          band: 'close',
        },
      ],
    };
    expect(talentProblem(other)).toBeNull();
    expect(talentProblem({ results: other.results })).toMatch(/no match count/);
  });

  it('hire: a shortlist whose candidates each carry a longer list (of skills, of records) is still the shortlist', () => {
    const candidate = fc.record({
      id: fc.constantFrom('c-1', 'c-2'),
      headline: fc.constant('Senior Backend Engineer'),
      region: fc.constant('Java'),
      skills: fc.array(fc.constantFrom('Go', 'SQL', 'TypeScript'), { minLength: 6, maxLength: 12 }),
      score: fc.integer({ min: 0, max: 100 }),
    });
    fc.assert(
      fc.property(fc.array(candidate, { minLength: 3, maxLength: 5 }), styleArb(), (list, s) => {
        const got = shortlistOf(styled({ outcome: 'shortlist', shortlist: list, emailedTo: 'hiring@example.com' }, s));
        return got.length === list.length && got.every((c) => scoreProblem(c, ['score']) === null);
      }),
      { numRuns: 200 },
    );
    // the false MCP-TOOL-13 failure: three candidates with six skills each
    const shortlist = [1, 2, 3].map((i) => ({
      id: `c-${i}`,
      headline: 'Engineer',
      region: 'Java',
      skills: ['a', 'b', 'c', 'd', 'e', 'f'],
      score: 90,
    }));
    expect(shortlistOf({ shortlist })).toHaveLength(3);
    expect(shortlistOf({ outcome: 'no_strong_match', criteria: { skills: ['Klingon'], roles: [] } })).toEqual([]);
  });

  it('the main list of a market body is never a list nested in its entries, in any style', () => {
    const skill = fc.record({
      skill: fc.constantFrom('Go', 'SQL'),
      mentions: fc.nat(90),
      roles: fc.array(fc.constantFrom('backend', 'data'), { maxLength: 30 }),
    });
    fc.assert(
      fc.property(
        fc.array(skill, { minLength: 1, maxLength: 25 }),
        styleArb(),
        (skills, s) => mainList(styled({ locale: 'en', skills }, s))?.length === skills.length,
      ),
      { numRuns: 200 },
    );
  });

  it('"most mentioned first" reads alike in any style, and a list in ascending order is caught in every style', () => {
    const skills = fc
      .array(fc.record({ skill: fc.constantFrom('Go', 'SQL'), mentions: fc.integer({ min: 1, max: 90 }) }), {
        minLength: 2,
        maxLength: 25,
      })
      .filter((l) => l[0].mentions !== l[l.length - 1].mentions);
    fc.assert(
      fc.property(skills, styleArb(), (list, s) => {
        const desc = [...list].sort((x, y) => y.mentions - x.mentions);
        const asc = [...desc].reverse();
        const read = (l: unknown[]) => mentionOrderProblem(mainList(styled({ skills: l }, s))!);
        return read(desc) === null && read(asc) !== null;
      }),
      { numRuns: 200 },
    );
  });

  it("a list entry's own strings come before nested ones, slug-like first", () => {
    const role = {
      zzRelated: [{ label: 'related 0' }, 'related-1'],
      label: 'Data Engineering',
      slug: 'data-engineering',
    };
    expect(stringsOf(role).slice(0, 2)).toEqual(['data-engineering', 'Data Engineering']);
    expect(stringLeavesOf(role)[0]).toEqual({ path: '/slug', value: 'data-engineering' });
  });

  it('named values and records are found at any depth; keys read alike in any convention', () => {
    expect(valueNamed({ result: { draft: { apply_url: 'https://x.example/a' } } }, 'apply_url')).toBe(
      'https://x.example/a',
    );
    expect(findRecord({ data: { job: { id: 'j1', title: 'T' } } }, (o) => o.id === 'j1')).toEqual({
      id: 'j1',
      title: 'T',
    });
    expect(['fullName', 'full_name', 'full-name', 'FULL_NAME'].map(normKey)).toEqual([
      'fullname',
      'fullname',
      'fullname',
      'fullname',
    ]);
    expect(mainRecordList({ ignored: ['x', 'y', 'z'], cards: [] })).toEqual([]);
    expect(mainRecordList({ note: 'none' })).toBeNull();
  });
});
