import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { draftApplication, type DraftJob, type Tone } from './drafting.js';
import { checkClaim, evidenceOf } from './grounding.js';
import { allResumes, type SeekerResume } from './seekerResumes.js';
import { SKILLS, termPattern } from './vocabulary.js';

const resume: SeekerResume = {
  id: 'rsm_test',
  name: 'Test Seeker',
  email: 'test@seeker.example',
  headline: 'Senior Backend Engineer',
  location: 'Jakarta, Indonesia',
  yearsExperience: 6,
  summary: 'Backend engineer building payment APIs in Go.',
  experience: [
    {
      title: 'Senior Backend Engineer',
      employer: 'Tanjung Commerce',
      start: '2022-02',
      end: null,
      highlights: ['Moved 12 services to Kubernetes', 'Cut latency by 45 percent'],
    },
    {
      title: 'Backend Engineer',
      employer: 'Rintis Payments',
      start: '2019-01',
      end: '2022-01',
      highlights: ['Built the refund service'],
    },
  ],
  skills: [
    { name: 'Go', years: 5 },
    { name: 'PostgreSQL', years: 6 },
    { name: 'Kubernetes', years: 2 },
  ],
  education: [{ degree: 'S.Kom. in Computer Science', school: 'Universitas Indonesia', year: 2018 }],
  languages: ['Bahasa Indonesia', 'English'],
};
const ev = evidenceOf(resume);
const check = (claim: string, extra: string[] = []) => checkClaim(claim, ev, extra);

describe('grounding check', () => {
  it.each([
    'I have worked with Go for 5 years and PostgreSQL for 6 years.',
    'I have 4 years of Go.',
    'I am a Senior Backend Engineer with 6 years of experience.',
    'Most recently, as Senior Backend Engineer at Tanjung Commerce, I moved 12 services to Kubernetes.',
    'I cut latency by 45 percent.',
    'I work in Bahasa Indonesia and English.',
    "I hold a bachelor's degree.",
    'Built the refund service.',
  ])('supports %s', (claim) => {
    expect(check(claim)).toMatchObject({ supported: true, reasons: [] });
  });

  it.each([
    ['I have worked with Go for 8 years.', /5 years of Go, not 8/],
    ['I have 9 years of experience.', /6 years of experience, not 9/],
    ['I know Rust well.', /does not list Rust/],
    ['I led the platform at Gojek.', /does not mention Gojek/],
    ['I was Head of Engineering.', /no head title/],
    ['I cut costs by 60 percent.', /number 60/],
    ['I hold a PhD in physics.', /no PhD degree/],
    ['I am a fantastic pianist and chess grandmaster.', /nothing in the resume/],
  ])('refuses %s', (claim, reason) => {
    const v = check(claim, ['Rust']);
    expect(v.supported).toBe(false);
    expect(v.reasons.join('; ')).toMatch(reason);
  });

  it('does not read "go" in ordinary English as the Go language', () => {
    expect(check('Ready to go live with new services.').reasons.join(' ')).not.toMatch(/Go/);
  });
});

// Every saved seeker resume against highlights it cannot back. The fabricated part is chosen to look
// plausible next to that resume: years and numbers the resume itself contains, its own titles, school and
// highlights around an invented award, employer, degree, number or skill.
const asSentence = (s: string) => {
  const t = s.trim().replace(/\s+/g, ' ');
  return `${t[0].toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
};
const lowerFirst = (s: string) => `${s[0].toLowerCase()}${s.slice(1)}`;
const numberAt = (n: string) => new RegExp(`(?<!\\d)${n}(?!\\d)`);

interface Fabricated {
  text: string;
  /** The invented fact, when it is a term the draft must then never contain. */
  marker: string | null;
  skill?: string;
}

// read from the fixture itself, not through the module under test
const fixtureText = (r: SeekerResume) => JSON.stringify(r);

function unsupportedFor(r: SeekerResume): fc.Arbitrary<Fabricated> {
  const text = fixtureText(r);
  const years = [...new Set(text.match(/\b(?:19|20)\d\d\b/g))];
  const highlights = r.experience.flatMap((e) => e.highlights);
  const numbers = new Set(text.match(/\d+/g));
  const fresh = (n: string) => {
    let m = Number(n) * 10 + 7;
    while (numbers.has(String(m))) m++;
    return String(m);
  };
  const field = r.education[0].degree.replace(/^\S+\s+in\s+/, '');
  const school = r.education[0].school;
  const unheld = SKILLS.filter((s) => !termPattern(s).test(text));
  const award = fc
    .tuple(
      fc.constantFrom('Nobel Prize in Physics', 'Turing Award', 'Webby Award', 'Pulitzer Prize'),
      fc.constantFrom(...years),
      fc.option(fc.constantFrom(...highlights)),
    )
    .map(([prize, year, h]) => ({
      text: `Won the ${prize} in ${year}${h ? ` for ${lowerFirst(h)}` : ''}`,
      marker: prize.split(' ')[0],
    }));
  const employer = fc
    .tuple(fc.constantFrom('Google', 'Microsoft', 'Gojek', 'Tokopedia', 'Netflix'), fc.constantFrom(...r.experience))
    .chain(([emp, e]) =>
      fc
        .constantFrom(
          `Worked at ${emp} as ${e.title}`,
          `${e.highlights[0]} at ${emp}`,
          `${e.title} for ${emp} since ${e.start.slice(0, 4)}`,
        )
        .map((t) => ({ text: t, marker: emp })),
    );
  const degree = fc.constantFrom(
    { text: `Hold a PhD in ${field}`, marker: 'PhD' },
    { text: `Earned an MBA from ${school}`, marker: 'MBA' },
    { text: `Master of Science in ${field} from ${school}`, marker: 'Master' },
  );
  const withNumber = highlights.filter((h) => /\d/.test(h));
  const number = fc.oneof(
    fc.constantFrom(...withNumber).chain((h) =>
      fc.constantFrom(...h.match(/\d+/g)!).chain((n) => {
        const elsewhere = [...numbers].filter((m) => m !== n && m.length < 5 && !numberAt(m).test(h));
        return fc.oneof(
          fc.constant({ text: h.replace(numberAt(n), fresh(n)), marker: fresh(n) }),
          ...(elsewhere.length
            ? [fc.constantFrom(...elsewhere).map((m) => ({ text: h.replace(numberAt(n), m), marker: null }))]
            : []),
        );
      }),
    ),
    fc
      .tuple(fc.constantFrom(...r.skills), fc.integer({ min: 1, max: 20 }))
      .map(([s, k]) => ({ text: `${s.years + k} years of ${s.name}`, marker: null })),
    fc
      .integer({ min: 1, max: 20 })
      .map((k) => ({ text: `${r.yearsExperience + k} years of experience`, marker: null })),
  );
  const skill = fc
    .tuple(fc.constantFrom(...unheld), fc.constantFrom(...highlights), fc.integer({ min: 1, max: 9 }))
    .chain(([s, h, k]) =>
      fc
        .constantFrom(`${k} years of ${s}`, `${h} using ${s}`, `Expert in ${s}`)
        .map((t) => ({ text: t, marker: s, skill: s })),
    );
  return fc.oneof(award, employer, degree, number, skill);
}

function supportedFor(r: SeekerResume): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...r.experience.flatMap((e) => e.highlights)),
    fc
      .constantFrom(...r.skills)
      .chain((s) => fc.integer({ min: 1, max: s.years }).map((k) => `${k} ${k === 1 ? 'year' : 'years'} of ${s.name}`)),
    fc.constantFrom(...r.experience).map((e) => `Worked at ${e.employer} as ${e.title}`),
    fc.integer({ min: 2, max: r.yearsExperience }).map((k) => `${k} years of experience`),
  );
}

const resumeWords = (r: SeekerResume) =>
  [...new Set([r.summary, ...r.experience.flatMap((e) => e.highlights)].join(' ').match(/[a-z]{5,}/g))]
    .filter((w) => w !== 'experience')
    .map((w) => `${w[0].toUpperCase()}${w.slice(1)}`);

// a job that wants some of the resume's skills (the letter lists them) or none (it lists the strongest)
const jobFor = (r: SeekerResume, extraSkills: string[], sharesSkills = true): DraftJob => ({
  id: 'job_grounding',
  title: 'Remote Specialist',
  company: 'Acme Remote',
  applyUrl: 'https://acme.example/apply',
  skills: [...(sharesSkills ? r.skills.slice(0, 2).map((s) => s.name) : []), ...extraSkills],
  description: '',
});

describe.each(allResumes().map((r) => [r.id, r] as const))('drafting from %s', (_id, r) => {
  it('never keeps an unsupported highlight in the letter or the resume, and keeps every supported one', () => {
    fc.assert(
      fc.property(
        fc.array(unsupportedFor(r), { minLength: 1, maxLength: 3 }),
        fc.array(supportedFor(r), { minLength: 1, maxLength: 2 }),
        fc.constantFrom<Tone>('professional', 'friendly', 'concise'),
        fc.boolean(),
        fc.boolean(),
        // listings name "skills" the resume only uses as words (Analytics, Onboarding)
        fc.subarray(resumeWords(r), { maxLength: 3 }),
        (bad, good, tone, jobWantsInventedSkills, sharesSkills, wordsAsSkills) => {
          const invented = jobWantsInventedSkills ? bad.flatMap((b) => (b.skill ? [b.skill] : [])) : [];
          const job = jobFor(r, [...invented, ...wordsAsSkills], sharesSkills);
          const baseline = draftApplication(r, job, { tone });
          const before = `${baseline.coverLetter}\n${baseline.resumeText}`;
          const d = draftApplication(r, job, { tone, highlights: [...bad.map((b) => b.text), ...good] });
          const out = `${d.coverLetter}\n${d.resumeText}`;
          for (const b of bad) {
            expect(out, b.text).not.toContain(asSentence(b.text).slice(0, -1));
            expect(
              d.removedClaims.some(
                (c) => c.claim === asSentence(b.text) && c.source === 'highlight' && c.reasons.length > 0,
              ),
              b.text,
            ).toBe(true);
            if (b.marker && !termPattern(b.marker).test(before))
              expect(termPattern(b.marker).test(out), `${b.marker} in the draft`).toBe(false);
          }
          for (const g of good) expect(d.coverLetter).toContain(`- ${asSentence(g)}`);
          expect(d.removedClaims.filter((c) => c.source === 'generated')).toEqual([]);
          expect(d.claims).toEqual({
            checked: d.claims.kept + d.removedClaims.length,
            kept: d.claims.kept,
            removed: d.removedClaims.length,
          });
          // what the resume backs passes even in strict mode
          expect(draftApplication(r, job, { tone, strict: true, highlights: good }).claims.removed).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('fails ungrounded when the only highlight is an invented award dated with a year from the resume', () => {
    for (const year of new Set(fixtureText(r).match(/\b(?:19|20)\d\d\b/g))) {
      const claim = `Won the Nobel Prize in Physics in ${year} for quantum basket weaving`;
      expect(() => draftApplication(r, jobFor(r, []), { highlights: [claim] }), claim).toThrow(
        expect.objectContaining({ code: 'ungrounded' }),
      );
    }
  });
});
