// The grounding check of draft_application: every claim (sentence about the seeker) must be backed by
// the saved resume. A claim is read for what can be checked lexically: skills, years of a skill or of
// experience, every other number, employers ("at X"), title words (lead, manager…) and degrees. With
// none of those, most of its content words must appear in the resume. Anything unbacked is a reason.

import type { SeekerResume } from './seekerResumes.js';
import { skillsIn, termPattern } from './vocabulary.js';

export interface Evidence {
  /** lower-cased skill or language -> years (languages count as held, years = total experience). */
  skills: Map<string, number>;
  skillNames: string[];
  employers: string[];
  titles: string;
  education: string;
  yearsExperience: number;
  numbers: Set<string>;
  words: Set<string>;
}

export interface ClaimVerdict {
  claim: string;
  supported: boolean;
  reasons: string[];
}

const STOP = new Set(
  'about above after again also among an and any are because been before being both but can could did does doing during each few from further had has have having here how into just more most much must myself once only other our ours over same should some such than that their them then there these they this those through under until very were what when where which while with would your yours will want like make made really well good great able role team work working worked'.split(
    ' ',
  ),
);
const TITLE_WORDS = ['lead', 'head', 'principal', 'staff', 'director', 'manager', 'chief', 'cto', 'ceo', 'vp', 'architect', 'senior', 'founder', 'co-founder', 'president'];
const DEGREE = /\b(ph\.?d|doctorate|master'?s?|mba|m\.?sc|bachelor'?s?|b\.?sc|b\.?a|undergraduate|s\.\s?kom|s2|s3)\b/gi;
const NOT_EMPLOYERS = new Set(['i', 'my', 'the', 'a', 'an', 'english', 'bahasa', 'indonesia', 'indonesian', 'javanese', 'asia', 'remote']);

const norm = (n: string) => n.replace(/[,.](?=\d{3}\b)/g, '').replace(/\.$/, '');
const numbersIn = (s: string) => (s.match(/\d[\d,.]*\d|\d/g) ?? []).map(norm);
const stem = (w: string) => w.toLowerCase().replace(/(ing|ed|es|s)$/, '');
const contentWords = (s: string) => (s.toLowerCase().match(/[a-z][a-z'-]{3,}/g) ?? []).filter((w) => !STOP.has(w));

export function resumeText(r: SeekerResume): string {
  return [
    r.name, r.headline, r.location, r.summary,
    ...r.experience.flatMap((e) => [e.title, e.employer, e.start, e.end ?? '', ...e.highlights]),
    ...r.skills.map((s) => `${s.name} ${s.years} years`),
    ...r.education.map((e) => `${e.degree} ${e.school} ${e.year}`),
    ...r.languages,
    `${r.yearsExperience} years of experience`,
  ].join('\n');
}

export function evidenceOf(r: SeekerResume): Evidence {
  const text = resumeText(r);
  const skills = new Map<string, number>();
  for (const s of r.skills) skills.set(s.name.toLowerCase(), s.years);
  for (const l of r.languages) if (!skills.has(l.toLowerCase())) skills.set(l.toLowerCase(), r.yearsExperience);
  // Indonesian first degrees (S.Kom., S.T., S.E., …) are bachelor's degrees
  const education = r.education.map((e) => `${e.degree} ${e.school}${/^S\.\s?\w+\./.test(e.degree) ? " bachelor's" : ''}`).join(' ').toLowerCase();
  return {
    skills,
    skillNames: [...r.skills.map((s) => s.name), ...r.languages],
    employers: r.experience.map((e) => e.employer.toLowerCase()),
    titles: [r.headline, ...r.experience.map((e) => e.title)].join(' ').toLowerCase(),
    education,
    yearsExperience: r.yearsExperience,
    numbers: new Set(numbersIn(text)),
    words: new Set(contentWords(text).map(stem)),
  };
}

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Checks one claim. `extraSkills` widens what counts as a skill mention (e.g. the job's own skills). */
export function checkClaim(claim: string, ev: Evidence, extraSkills: readonly string[] = []): ClaimVerdict {
  const reasons: string[] = [];
  let checked = 0;
  const consumed = new Set<string>();
  const mentioned = skillsIn(claim, [...ev.skillNames, ...extraSkills]);
  for (const skill of mentioned) {
    checked++;
    const years = ev.skills.get(skill.toLowerCase());
    if (years === undefined) {
      reasons.push(`the resume does not list ${skill}`);
      continue;
    }
    const s = esc(skill);
    const forward = new RegExp(`${s}\\s*(?:\\(|for|over|:|-|—)?\\s*(?:about\\s+|nearly\\s+|almost\\s+)?(\\d+)\\s*\\+?\\s*years?`, 'i').exec(claim);
    const backward = new RegExp(`(\\d+)\\s*\\+?\\s*years?\\s+(?:of\\s+)?(?:experience\\s+)?(?:with\\s+|in\\s+|using\\s+|of\\s+)?${s}`, 'i').exec(claim);
    const m = forward ?? backward;
    if (m) {
      consumed.add(m[1]);
      if (Number(m[1]) > years) reasons.push(`the resume shows ${years} years of ${skill}, not ${m[1]}`);
    }
  }
  const total = /(\d+)\s*\+?\s*years?\s+(?:of\s+)?(?:professional\s+|work\s+|working\s+)?experience(?!\s+(?:with|in|using))/i.exec(claim);
  if (total) {
    checked++;
    consumed.add(total[1]);
    if (Number(total[1]) > ev.yearsExperience) reasons.push(`the resume shows ${ev.yearsExperience} years of experience, not ${total[1]}`);
  }
  for (const n of numbersIn(claim)) {
    if (consumed.has(n)) continue;
    checked++;
    if (!ev.numbers.has(n)) reasons.push(`the number ${n} does not appear in the resume`);
  }
  const employerRe = /\b(?:at|for|with|joined|di)\s+((?:PT\s+|CV\s+)?[A-Z][\w&'.-]*(?:\s+(?:&\s+)?[A-Z][\w&'.-]*){0,4})/g;
  for (const m of claim.matchAll(employerRe)) {
    const name = m[1].replace(/[.,]$/, '');
    if (NOT_EMPLOYERS.has(name.toLowerCase()) || mentioned.some((s) => name.toLowerCase().startsWith(s.toLowerCase()))) continue;
    checked++;
    const lower = name.toLowerCase();
    if (!ev.employers.some((e) => e === lower || e.includes(lower) || lower.includes(e))) reasons.push(`the resume does not mention ${name}`);
  }
  for (const w of TITLE_WORDS) {
    if (!termPattern(w).test(claim.toLowerCase())) continue;
    checked++;
    if (!termPattern(w).test(ev.titles)) reasons.push(`the resume shows no ${w} title`);
  }
  for (const m of claim.matchAll(DEGREE)) {
    checked++;
    const d = m[0].toLowerCase().replace(/'s?$/, '');
    if (!ev.education.includes(d)) reasons.push(`the resume lists no ${m[0]} degree`);
  }
  if (checked === 0) {
    const words = contentWords(claim);
    const found = words.filter((w) => ev.words.has(stem(w)));
    if (words.length > 0 && found.length * 2 < words.length) reasons.push('nothing in the resume backs this claim');
  }
  return { claim, supported: reasons.length === 0, reasons };
}
