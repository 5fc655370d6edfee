// draft_application's writer: a cover letter and a tailored plain-text resume for one job, built from
// the saved resume only. Every sentence about the seeker is a claim that goes through the grounding
// check; unsupported ones are dropped and reported. Framing sentences (greeting, the job applied for,
// sign-off) say nothing about the seeker and are not claims.
// Requirements: MCP-TOOL-4, MCP-TOOL-5, POL-MCP-15; decisions D-47.

import type { KeyedDraftApplicationInput } from '../../contract/types.js';
import { DomainError, invalid } from '../../errors/errors.js';
import { checkClaim, evidenceOf, type ClaimVerdict } from './grounding.js';
import type { SeekerResume } from './seekerResumes.js';
import { skillsIn } from './vocabulary.js';

export type Tone = 'professional' | 'friendly' | 'concise';

export interface DraftJob {
  id: string;
  title: string;
  company: string;
  applyUrl: string;
  skills: string[];
  description: string;
}

/** draft_application's arguments but the job id (the contract's type). */
export type DraftInput = Omit<KeyedDraftApplicationInput, 'id'>;

export interface RemovedClaim {
  claim: string;
  source: 'highlight' | 'generated';
  reasons: string[];
}

export interface Draft {
  coverLetter: string;
  resumeText: string;
  claims: { checked: number; kept: number; removed: number };
  removedClaims: RemovedClaim[];
}

const FRAMING: Record<
  Tone,
  { greet: (c: string) => string; intro: (t: string) => string; close: string; sign: string }
> = {
  professional: {
    greet: (c) => `Dear hiring team at ${c},`,
    intro: (t) => `I am writing to apply for the ${t} position.`,
    close: 'Thank you for considering my application. I would welcome the chance to discuss how I can help your team.',
    sign: 'Kind regards,',
  },
  friendly: {
    greet: (c) => `Hi ${c} team,`,
    intro: (t) => `I was excited to see your opening for a ${t}, and I would love to be considered.`,
    close: 'Thanks so much for reading. I would be glad to chat whenever suits you.',
    sign: 'Best wishes,',
  },
  concise: {
    greet: (c) => `Dear ${c} team,`,
    intro: (t) => `Please consider me for the ${t} role.`,
    close: 'Thank you for your time.',
    sign: 'Regards,',
  },
};

const sentence = (s: string) => {
  const t = s.trim().replace(/\s+/g, ' ');
  return `${t[0].toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
};
const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? `${s[0].toLowerCase()}${s.slice(1)}` : s);
const listOf = (items: string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/** Skills of the resume, the job's own first (by years), as [{name, years}]. */
function skillsForJob(r: SeekerResume, job: DraftJob) {
  const wanted = new Set([...job.skills, ...skillsIn(`${job.title}\n${job.description}`)].map((s) => s.toLowerCase()));
  const sorted = [...r.skills].sort(
    (a, b) => Number(wanted.has(b.name.toLowerCase())) - Number(wanted.has(a.name.toLowerCase())) || b.years - a.years,
  );
  return { sorted, matched: sorted.filter((s) => wanted.has(s.name.toLowerCase())), wanted };
}

function relevance(text: string, wanted: Set<string>): number {
  return skillsIn(text).filter((s) => wanted.has(s.toLowerCase())).length;
}

export function draftApplication(r: SeekerResume, job: DraftJob, input: DraftInput): Draft {
  const tone = input.tone ?? 'professional';
  (input.highlights ?? []).forEach((h, i) => {
    if (h.trim() === '') throw invalid(`highlights[${i}] must not be blank`, `highlights[${i}]`);
  });
  const ev = evidenceOf(r);
  const { sorted, matched, wanted } = skillsForJob(r, job);
  const verdicts: (ClaimVerdict & { source: RemovedClaim['source'] })[] = [];
  const keep = (text: string, source: RemovedClaim['source']): string | null => {
    const v = checkClaim(text, ev, job.skills);
    verdicts.push({ ...v, source });
    return v.supported ? text : null;
  };

  const [recent, previous] = r.experience;
  const byRelevance = (e: SeekerResume['experience'][number]) =>
    [...e.highlights].sort((a, b) => relevance(b, wanted) - relevance(a, wanted));
  const generated: string[] = [sentence(`I am a ${r.headline} with ${r.yearsExperience} years of experience`)];
  const top = (matched.length ? matched : sorted).slice(0, 3);
  generated.push(
    matched.length
      ? sentence(
          `I have worked with ${listOf(top.map((s) => `${s.name} for ${s.years} ${s.years === 1 ? 'year' : 'years'}`))}`,
        )
      : sentence(
          `My strongest skills are ${listOf(top.map((s) => `${s.name} (${s.years} ${s.years === 1 ? 'year' : 'years'})`))}`,
        ),
  );
  if (recent)
    generated.push(
      sentence(
        `Most recently, as ${recent.title} at ${recent.employer}, I ${lowerFirst(byRelevance(recent)[0] ?? 'worked on the core product')}`,
      ),
    );
  if (previous && tone !== 'concise')
    generated.push(
      sentence(
        `Before that, as ${previous.title} at ${previous.employer}, I ${lowerFirst(byRelevance(previous)[0] ?? 'worked on the core product')}`,
      ),
    );
  if (tone !== 'concise' && r.languages.length) generated.push(sentence(`I work in ${listOf(r.languages)}`));
  const body = generated.map((g) => keep(g, 'generated')).filter((x): x is string => x !== null);
  const highlights = (input.highlights ?? [])
    .map((h) => keep(sentence(h), 'highlight'))
    .filter((x): x is string => x !== null);

  const f = FRAMING[tone];
  const coverLetter = [
    f.greet(job.company),
    '',
    `${f.intro(job.title)} ${body.slice(0, 2).join(' ')}`.trim(),
    ...(body.length > 2 ? ['', body.slice(2).join(' ')] : []),
    ...(highlights.length ? ['', 'A few things I would bring to the role:', ...highlights.map((h) => `- ${h}`)] : []),
    '',
    f.close,
    '',
    f.sign,
    r.name,
  ].join('\n');

  // the tailored resume repeats resume lines verbatim; they are checked like any other claim
  const lines = [r.summary, ...r.experience.flatMap(byRelevance)].map((l) => ({
    l,
    ok: keep(sentence(l), 'generated') !== null,
  }));
  const okLine = (l: string) => lines.find((x) => x.l === l)?.ok ?? false;
  const resumeText = [
    r.name.toUpperCase(),
    `${r.headline} | ${r.location} | ${r.email}`,
    '',
    'SUMMARY',
    ...(okLine(r.summary) ? [r.summary] : []),
    '',
    `SKILLS (most relevant to ${job.title} first)`,
    sorted.map((s) => `${s.name} (${s.years} ${s.years === 1 ? 'year' : 'years'})`).join(', '),
    '',
    'EXPERIENCE',
    ...r.experience.flatMap((e) => [
      `${e.title}, ${e.employer} (${e.start} to ${e.end ?? 'present'})`,
      ...byRelevance(e)
        .filter(okLine)
        .map((h) => `- ${h}`),
      '',
    ]),
    'EDUCATION',
    ...r.education.map((e) => `${e.degree}, ${e.school}, ${e.year}`),
    '',
    'LANGUAGES',
    r.languages.join(', '),
  ].join('\n');

  const removedClaims = verdicts
    .filter((v) => !v.supported)
    .map((v) => ({ claim: v.claim, source: v.source, reasons: v.reasons }));
  const draft: Draft = {
    coverLetter,
    resumeText,
    claims: { checked: verdicts.length, kept: verdicts.length - removedClaims.length, removed: removedClaims.length },
    removedClaims,
  };
  const askedFor = input.highlights?.length ?? 0;
  const askedRemoved = removedClaims.filter((c) => c.source === 'highlight').length;
  if ((input.strict && removedClaims.length > 0) || (askedFor > 0 && askedRemoved === askedFor)) {
    const why = removedClaims
      .slice(0, 3)
      .map((c) => `"${c.claim}" (${c.reasons.join('; ')})`)
      .join(', ');
    throw new DomainError(
      'ungrounded',
      input.strict
        ? `strict draft refused: ${removedClaims.length} claim(s) are not supported by the saved resume: ${why}`
        : `none of the requested highlights is supported by the saved resume: ${why}`,
      { field: 'highlights' },
    );
  }
  return draft;
}
