// Years of experience: what a job spec asks for (an explicit "5+ years" in the title or description,
// else a seniority word such as "Senior") and what a candidate shows (experienceYears, or a
// "7 years" in the summary). Each finding carries the words it was read from, for evidence.
// Requirements: SCR-HOOK-4 (evidence), POL-REVIEW-2; decisions D-42.

import type { CandidateProfile, JobSpec } from './types.js';

export interface YearsFinding {
  years: number;
  /** Evidence sentence quoting the words the number was read from. */
  evidence: string;
}

// Each run of spaces can be read one way only (no `\s*…?\s*`), so a digit followed by a long run of spaces
// costs one pass over the run, not one per space: the pattern stays linear on any input.
const YEARS = /(\d{1,2})\s*(?:(?:\+|plus)\s*)?(?:(?:-|–|to)\s*\d{1,2}\s*(?:\+\s*)?)?(?:years?|yrs?|tahun)\b/i;

const SENIORITY: Array<[RegExp, number]> = [
  [/\b(intern|internship|trainee|magang)\b/i, 0],
  [/\b(graduate|entry[- ]level)\b/i, 0],
  [/\b(junior|jr)\b/i, 1],
  [/\b(mid[- ]level|intermediate|mid)\b/i, 3],
  [/\b(senior|sr)\b/i, 5],
  [/\b(lead|staff)\b/i, 7],
  [/\b(principal|architect)\b/i, 8],
  [/\b(head|director|vp)\b/i, 10],
];

export function requiredYears(job: JobSpec): YearsFinding | null {
  for (const [where, text] of [
    ['title', job.title],
    ['description', job.description ?? ''],
  ] as const) {
    const m = YEARS.exec(text);
    if (m) return { years: Number(m[1]), evidence: `job ${where} asks for '${m[0]}'` };
  }
  // the highest seniority word in the title decides
  let best: YearsFinding | null = null;
  for (const [re, years] of SENIORITY) {
    const m = re.exec(job.title);
    if (m && (!best || years > best.years))
      best = { years, evidence: `job title says '${m[0]}' (read as ${years}+ years)` };
  }
  return best;
}

export function candidateYears(c: CandidateProfile): YearsFinding | null {
  if (c.experienceYears !== null) {
    const where = c.source === 'structured candidate' ? 'experienceYears is' : `${c.source} gives experienceYears`;
    return { years: c.experienceYears, evidence: `${where} ${c.experienceYears}` };
  }
  const m = YEARS.exec(c.summary);
  return m ? { years: Number(m[1]), evidence: `summary states '${m[0]}'` } : null;
}
