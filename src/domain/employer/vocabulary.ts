// The words employer tools understand (fixtures/candidates/roles.json and places.json): role names and
// keywords in English and Indonesian, skills and their aliases, seniority words, cities and provinces.
// Plain-words briefs are read into Criteria made only of these normalized values, so an output never
// echoes the caller's raw words (a brief naming a person cannot confirm that the person exists).
// Requirements: MCP-TOOL-8, MCP-TOOL-9, MCP-TOOL-12; decisions D-48.

import { readFileSync } from 'node:fs';
import { ignoredWords, MAX_IGNORED } from './ignoredWords.js';
import { fileURLToPath } from 'node:url';

export type Seniority = 'junior' | 'mid' | 'senior' | 'lead';
export const SENIORITIES: Seniority[] = ['junior', 'mid', 'senior', 'lead'];

export interface RoleDef {
  slug: string;
  name: string;
  family: string;
  keywords: string[];
  skills: string[];
}

export interface Place {
  city: string;
  region: string;
  weight: number;
}

export interface Criteria {
  roles: RoleDef[];
  skills: string[];
  minYears: number | null;
  seniority: Seniority | null;
  location: { city: string | null; region: string } | null;
  /** How many caller-supplied skills, roles or locations matched nothing known (they are dropped). */
  unrecognized: number;
  /** Words of the query and explicit values that matched nothing known and were left out (D-95). */
  ignored: string[];
  /** 'all': every skill counts (the normal reading); 'any': one of them is enough (a widened search). */
  skillMode?: 'all' | 'any';
}

const dir = (f: string) => fileURLToPath(new URL(`../../../fixtures/candidates/${f}`, import.meta.url));
const rolesFixture = JSON.parse(readFileSync(dir('roles.json'), 'utf8')) as {
  roles: RoleDef[];
  aliases: Record<string, string>;
};
export const placesFixture = JSON.parse(readFileSync(dir('places.json'), 'utf8')) as {
  cities: Place[];
  workAuthorization: { value: string[]; weight: number }[];
  noticePeriodWeeks: number[];
};

export const ROLES: readonly RoleDef[] = rolesFixture.roles;
export const SKILLS: readonly string[] = [...new Set(ROLES.flatMap((r) => r.skills))].sort();
export const SKILL_ALIASES: Readonly<Record<string, string>> = rolesFixture.aliases;
export const PLACES: readonly Place[] = placesFixture.cities;

/** Years of experience from which a seniority starts. */
export const SENIORITY_FLOOR: Record<Seniority, number> = { junior: 0, mid: 2, senior: 5, lead: 9 };

export function seniorityOf(years: number): Seniority {
  if (years >= SENIORITY_FLOOR.lead) return 'lead';
  if (years >= SENIORITY_FLOOR.senior) return 'senior';
  if (years >= SENIORITY_FLOOR.mid) return 'mid';
  return 'junior';
}

export const SENIORITY_WORDS: [RegExp, Seniority][] = [
  [/\b(junior|jr\.?|entry[- ]level|graduate|fresh ?grad(uate)?|lulusan baru|pemula)\b/i, 'junior'],
  [/\b(mid[- ]?level|mid|intermediate|menengah)\b/i, 'mid'],
  [/\b(senior|sr\.?|experienced|berpengalaman)\b/i, 'senior'],
  [/\b(lead|principal|staff|head of|tech lead|team lead|kepala)\b/i, 'lead'],
];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Word-boundary matcher; names of one or two letters (Go) only match as written, to skip "go live". */
export function termPattern(term: string): RegExp {
  const flags = term.length <= 2 ? 'g' : 'gi';
  return new RegExp(`(?<![\\w.+#/-])${escape(term)}(?![\\w+#]|\\.\\w|/\\w)`, flags);
}

export const skillTerms: { term: string; skill: string; re: RegExp }[] = [
  ...SKILLS.map((s) => ({ term: s, skill: s })),
  ...Object.entries(SKILL_ALIASES).map(([alias, skill]) => ({ term: alias, skill })),
]
  .sort((a, b) => b.term.length - a.term.length)
  .map((t) => ({ ...t, re: termPattern(t.term) }));

/** Skills named in a text (canonical names, longest phrases first so "React Native" wins over "React"). */
export function skillsIn(text: string, extra: readonly string[] = []): string[] {
  const found = new Set<string>();
  let rest = text;
  const terms = extra.length
    ? [...skillTerms, ...extra.map((s) => ({ term: s, skill: s, re: termPattern(s) }))].sort(
        (a, b) => b.term.length - a.term.length,
      )
    : skillTerms;
  for (const t of terms) {
    t.re.lastIndex = 0;
    if (t.re.test(rest)) {
      found.add(t.skill);
      rest = rest.replace(t.re, ' ');
    }
  }
  return [...found];
}

/** Canonical name of one caller-supplied skill, or null when it is not a known skill. */
export function normalizeSkill(raw: string): string | null {
  const s = raw.trim().toLowerCase();
  if (!s) return null;
  const direct = SKILLS.find((k) => k.toLowerCase() === s);
  return direct ?? SKILL_ALIASES[s] ?? null;
}

export function normalizeRole(raw: string): RoleDef | null {
  const s = raw.trim().toLowerCase();
  if (!s) return null;
  return (
    ROLES.find((r) => r.slug === s || r.name.toLowerCase() === s) ??
    ROLES.find((r) => r.keywords.includes(s)) ??
    rolesIn(s)[0] ??
    null
  );
}

export const roleTerms = ROLES.flatMap((r) =>
  [r.name, ...r.keywords].map((term) => ({ term, role: r, re: termPattern(term) })),
).sort((a, b) => b.term.length - a.term.length);

export function rolesIn(text: string): RoleDef[] {
  const found: RoleDef[] = [];
  let rest = text;
  for (const t of roleTerms) {
    t.re.lastIndex = 0;
    if (t.re.test(rest)) {
      if (!found.includes(t.role)) found.push(t.role);
      rest = rest.replace(t.re, ' ');
    }
  }
  return found;
}

// the "+" takes its own spaces, so a run of spaces is read one way only (linear time)
export const YEARS = /(\d{1,2})\s*(?:\+\s*)?(?:years?|yrs?|tahun|thn)\b/i;

export function placeIn(text: string): Criteria['location'] {
  for (const p of PLACES) if (termPattern(p.city).test(text)) return { city: p.city, region: p.region };
  for (const p of PLACES) if (termPattern(p.region).test(text)) return { city: null, region: p.region };
  if (/\b(jabodetabek|greater jakarta)\b/i.test(text)) return { city: null, region: 'DKI Jakarta' };
  return null;
}

export interface CriteriaInput {
  query?: string;
  skills?: string[];
  roles?: string[];
  minYears?: number;
  location?: string;
}

/** Reads a brief plus explicit filters into normalized criteria. */
export function parseCriteria(input: CriteriaInput): Criteria {
  const text = input.query ?? '';
  let unrecognized = 0;
  const ignored = ignoredWords(text);
  const roles = rolesIn(text);
  for (const r of input.roles ?? []) {
    const role = normalizeRole(r);
    if (!role) {
      unrecognized++;
      ignored.push(r.trim());
    } else if (!roles.includes(role)) roles.push(role);
  }
  const skills = skillsIn(text);
  for (const s of input.skills ?? []) {
    const skill = normalizeSkill(s);
    if (!skill) {
      unrecognized++;
      ignored.push(s.trim());
    } else if (!skills.includes(skill)) skills.push(skill);
  }
  let seniority: Seniority | null = null;
  for (const [re, level] of SENIORITY_WORDS) if (re.test(text)) seniority = level;
  const yearsMatch = YEARS.exec(text);
  let minYears = input.minYears ?? (yearsMatch ? Number(yearsMatch[1]) : null);
  if (minYears !== null && minYears > 40) minYears = 40;
  let location = placeIn(text);
  if (input.location !== undefined) {
    const explicit = placeIn(input.location);
    if (explicit) location = explicit;
    else {
      unrecognized++;
      ignored.push(input.location.trim());
    }
  }
  return {
    roles,
    skills,
    minYears,
    seniority,
    location,
    unrecognized,
    ignored: [...new Set(ignored.filter(Boolean))].slice(0, MAX_IGNORED),
  };
}

export function isEmptyCriteria(c: Criteria): boolean {
  return (
    c.roles.length === 0 && c.skills.length === 0 && c.minYears === null && c.seniority === null && c.location === null
  );
}

/** The criteria as shown in tool results: only normalized vocabulary. */
export function criteriaView(c: Criteria) {
  return {
    roles: c.roles.map((r) => r.slug),
    skills: [...c.skills],
    minYears: c.minYears,
    seniority: c.seniority,
    location: c.location ? (c.location.city ?? c.location.region) : null,
  };
}
