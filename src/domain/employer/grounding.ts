// The grounding check of draft_application: every claim (sentence about the seeker) must be backed by
// the saved resume. A claim is read in two passes. First the facts that can be checked one by one:
// skills (and years of them), years of experience, every other number (and what it counts), employers
// ("at X"), title words (lead, manager…) and degrees. Then whatever is left: each remaining content word
// must appear in the resume too, so a claim cannot carry an invented award, place or deed past the check
// by also naming something true. Anything unbacked is a reason.
// Requirements: MCP-TOOL-5, POL-MCP-15; decisions D-47.

import type { SeekerResume } from './seekerResumes.js';
import { SKILL_ALIASES, skillsIn, termPattern } from './vocabulary.js';

export interface Evidence {
  /** lower-cased skill or language -> years (languages count as held, years = total experience). */
  skills: Map<string, number>;
  skillNames: string[];
  /** employers and schools, lower-cased. */
  organisations: string[];
  titles: string;
  education: string;
  yearsExperience: number;
  /** number -> the word stems just before and just after each place the resume uses it. */
  numbers: Map<string, { before: Set<string>; after: Set<string> }>;
  words: Set<string>;
  /** the resume text on one line, for skills it names without listing them and phrases such as "for AI". */
  text: string;
  lower: string;
}

export interface ClaimVerdict {
  claim: string;
  supported: boolean;
  reasons: string[];
}

const STOP = new Set(
  'about above after again also among an and any are because been before being both but can could did does doing during each few from further had has have having here how into just more most much must myself once only other our ours over same should some such than that their them then there these they this those through under until very were what when where which while with would your yours will want like make made really well good great able role team work working worked the for was its you his her him she not nor yet via per who why out off too may'.split(
    ' ',
  ),
);
// words the writer frames claims with; they state nothing about the seeker by themselves
const FRAMING = new Set([
  'strongest',
  'skills',
  'skill',
  'recently',
  'currently',
  'previously',
  'degree',
  'hold',
  'experience',
  'years',
  'year',
]);
const TITLE_WORDS = [
  'lead',
  'head',
  'principal',
  'staff',
  'director',
  'manager',
  'chief',
  'cto',
  'ceo',
  'vp',
  'architect',
  'senior',
  'founder',
  'co-founder',
  'president',
];
const DEGREE = /\b(ph\.?d|doctorate|master'?s?|mba|m\.?sc|bachelor'?s?|b\.?sc|b\.?a|undergraduate|s\.\s?kom|s2|s3)\b/gi;
const EMPLOYER = /\b(at|for|with|joined|di)\s+((?:PT\s+|CV\s+)?[A-Z][\w&'.-]*(?:\s+(?:&\s+)?[A-Z][\w&'.-]*){0,4})/g;
const NOT_EMPLOYERS = new Set([
  'i',
  'my',
  'the',
  'a',
  'an',
  'english',
  'bahasa',
  'indonesia',
  'indonesian',
  'javanese',
  'asia',
  'remote',
]);
/** How far from a number the word it counts may stand ("12 services", "team of 4"). */
const REACH = 4;

const norm = (n: string) => n.replace(/[,.](?=\d{3}\b)/g, '').replace(/\.$/, '');
// a month (2019-03) counts as its year, so the month is never read as a number of its own
const tokensOf = (s: string) =>
  (s.match(/\d{4}-\d{2}(?!\d)|\d[\d,.]*\d|\d|[A-Za-z][A-Za-z'-]*/g) ?? []).map((t) =>
    /^\d{4}-\d{2}$/.test(t) ? t.slice(0, 4) : t,
  );
const isNumber = (t: string) => /^\d/.test(t);
/** Content words: three letters or more, or an acronym (AI, QA), minus function words. */
const isContent = (t: string) =>
  (/^[A-Za-z][A-Za-z'-]{2,}$/.test(t) || /^[A-Z]{2}$/.test(t)) && !STOP.has(t.toLowerCase());
const contentWords = (s: string) =>
  tokensOf(s)
    .filter((t) => !isNumber(t) && isContent(t))
    .map((t) => t.toLowerCase());

/** A word and its forms without one inflection ending, so "designed" meets "designs". */
function stems(word: string): string[] {
  const w = word.toLowerCase().replace(/'s?$/, '');
  const out = [w];
  for (const end of ['ing', 'ed', 'es', 's', 'e', 'd'])
    if (w.endsWith(end) && w.length - end.length >= 3) out.push(w.slice(0, -end.length));
  return out;
}
const backed = (word: string, known: Set<string>) => stems(word).some((s) => known.has(s));

export function resumeText(r: SeekerResume): string {
  return [
    r.name,
    r.headline,
    r.location,
    r.summary,
    ...r.experience.flatMap((e) => [`${e.title}, ${e.employer}, ${e.start} to ${e.end ?? 'now'}`, ...e.highlights]),
    ...r.skills.map((s) => `${s.name} ${s.years} years`),
    ...r.education.map((e) => `${e.degree} ${e.school} ${e.year}`),
    ...r.languages,
    `${r.yearsExperience} years of experience`,
  ].join('\n');
}

function numberContexts(text: string): Evidence['numbers'] {
  const out: Evidence['numbers'] = new Map();
  for (const line of text.split('\n')) {
    const t = tokensOf(line);
    t.forEach((tok, i) => {
      if (!isNumber(tok)) return;
      const n = norm(tok);
      const ctx = out.get(n) ?? { before: new Set<string>(), after: new Set<string>() };
      for (const w of t.slice(Math.max(0, i - REACH), i)) stems(w).forEach((s) => ctx.before.add(s));
      for (const w of t.slice(i + 1, i + 1 + REACH)) stems(w).forEach((s) => ctx.after.add(s));
      out.set(n, ctx);
    });
  }
  return out;
}

export function evidenceOf(r: SeekerResume): Evidence {
  const text = resumeText(r);
  const skills = new Map<string, number>();
  for (const s of r.skills) skills.set(s.name.toLowerCase(), s.years);
  for (const l of r.languages) if (!skills.has(l.toLowerCase())) skills.set(l.toLowerCase(), r.yearsExperience);
  // Indonesian first degrees (S.Kom., S.T., S.E., …) are bachelor's degrees
  const education = r.education
    .map((e) => `${e.degree} ${e.school}${/^S\.\s?\w+\./.test(e.degree) ? " bachelor's" : ''}`)
    .join(' ')
    .toLowerCase();
  return {
    skills,
    skillNames: [...r.skills.map((s) => s.name), ...r.languages],
    organisations: [...r.experience.map((e) => e.employer), ...r.education.map((e) => e.school)].map((o) =>
      o.toLowerCase(),
    ),
    titles: [r.headline, ...r.experience.map((e) => e.title)].join(' ').toLowerCase(),
    education,
    yearsExperience: r.yearsExperience,
    numbers: numberContexts(text),
    words: new Set(contentWords(text).flatMap(stems)),
    text: text.replace(/\s+/g, ' '),
    lower: text.toLowerCase().replace(/\s+/g, ' '),
  };
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const blank = (s: string, re: RegExp) => s.replace(re, (m) => ' '.repeat(m.length));
const skillPatterns = (skill: string) =>
  [skill, ...Object.keys(SKILL_ALIASES).filter((a) => SKILL_ALIASES[a] === skill)].map(termPattern);

/**
 * The word a number in a claim counts: the first content word within reach after it, else before it,
 * else the token right next to it ("from 62 to 98" ties 98 to "to").
 */
function neighbourOf(tokens: string[], i: number): { word: string; side: 'before' | 'after' } | null {
  const after = tokens.slice(i + 1, i + 1 + REACH).find((t) => !isNumber(t) && isContent(t));
  if (after) return { word: after, side: 'after' };
  const before = tokens
    .slice(Math.max(0, i - REACH), i)
    .reverse()
    .find((t) => !isNumber(t) && isContent(t));
  if (before) return { word: before, side: 'before' };
  if (i > 0) return { word: tokens[i - 1], side: 'before' };
  return i + 1 < tokens.length ? { word: tokens[i + 1], side: 'after' } : null;
}

/** Checks one claim. `extraSkills` widens what counts as a skill mention (e.g. the job's own skills). */
export function checkClaim(claim: string, ev: Evidence, extraSkills: readonly string[] = []): ClaimVerdict {
  const reasons: string[] = [];
  const consumed = new Set<string>();
  let rest = claim;
  const mentioned = skillsIn(claim, [...ev.skillNames, ...extraSkills]);
  for (const skill of mentioned) {
    const key = skill.toLowerCase();
    const years = ev.skills.get(key);
    const patterns = skillPatterns(skill);
    for (const re of patterns) rest = blank(rest, re);
    // a skill the resume names in a sentence without listing it ("user research", "analytics") is held, for no known years
    if (years === undefined && !patterns.some((re) => re.test(ev.text))) {
      reasons.push(`the resume does not list ${skill}`);
      continue;
    }
    const s = esc(skill);
    const forward = new RegExp(
      `${s}\\s*(?:\\(|for|over|:|-|—)?\\s*(?:about\\s+|nearly\\s+|almost\\s+)?(\\d+)\\s*\\+?\\s*years?`,
      'i',
    ).exec(claim);
    // "6 years of experience building…" says nothing about a skill called Building: after "experience" a preposition must lead to it
    const backward = new RegExp(
      `(\\d+)\\s*\\+?\\s*years?\\s+(?:of\\s+)?(?:experience\\s+(?:with|in|using)\\s+|(?:with|in|using|of)\\s+)?${s}`,
      'i',
    ).exec(claim);
    const m = forward ?? backward;
    if (m) {
      consumed.add(m[1]);
      if (years === undefined) reasons.push(`the resume gives no years of ${skill}`);
      else if (Number(m[1]) > years) reasons.push(`the resume shows ${years} years of ${skill}, not ${m[1]}`);
    }
  }
  const total =
    /(?<!\d)(\d+)\s*(?:\+\s*)?years?\s+(?:of\s+)?(?:professional\s+|work\s+|working\s+)?experience(?!\s+(?:with|in|using))/i.exec(
      claim,
    );
  if (total) {
    consumed.add(total[1]);
    if (Number(total[1]) > ev.yearsExperience)
      reasons.push(`the resume shows ${ev.yearsExperience} years of experience, not ${total[1]}`);
  }
  const tokens = tokensOf(claim);
  tokens.forEach((tok, i) => {
    const n = isNumber(tok) ? norm(tok) : null;
    if (n === null || consumed.has(n)) return;
    const seen = ev.numbers.get(n);
    if (!seen) return void reasons.push(`the number ${n} does not appear in the resume`);
    // a number the resume uses for something else is not backed: "40 engineers" against "40 million requests"
    const near = neighbourOf(tokens, i);
    if (near && !backed(near.word, seen[near.side]))
      reasons.push(`the resume does not give ${near.side === 'after' ? `${n} ${near.word}` : `${near.word} … ${n}`}`);
  });
  for (const m of claim.matchAll(EMPLOYER)) {
    const name = m[2].replace(/[.,]$/, '');
    const lower = name.toLowerCase();
    if (NOT_EMPLOYERS.has(lower) || mentioned.some((s) => lower.startsWith(s.toLowerCase()))) continue;
    const known =
      ev.organisations.some((e) => e === lower || e.includes(lower) || lower.includes(e)) ||
      ev.lower.includes(`${m[1].toLowerCase()} ${lower}`);
    // a backed name stays for the word pass, which then sees anything added to it ("at Tanjung Commerce Google")
    if (!known) {
      reasons.push(`the resume does not mention ${name}`);
      rest = blank(rest, new RegExp(esc(name), 'g'));
    }
  }
  for (const w of TITLE_WORDS) {
    if (!termPattern(w).test(claim.toLowerCase())) continue;
    if (!termPattern(w).test(ev.titles)) {
      reasons.push(`the resume shows no ${w} title`);
      rest = blank(rest, new RegExp(`\\b${esc(w)}\\b`, 'gi'));
    }
  }
  for (const m of claim.matchAll(DEGREE)) {
    const d = m[0].toLowerCase().replace(/'s?$/, '');
    if (!ev.education.includes(d)) reasons.push(`the resume lists no ${m[0]} degree`);
  }
  rest = blank(rest, DEGREE);
  const unbacked = [...new Set(contentWords(rest).filter((w) => !FRAMING.has(w) && !backed(w, ev.words)))];
  if (unbacked.length) reasons.push(`nothing in the resume backs ${unbacked.map((w) => `"${w}"`).join(', ')}`);
  return { claim, supported: reasons.length === 0, reasons };
}
