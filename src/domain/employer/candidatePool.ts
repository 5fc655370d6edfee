// The fictional candidate pool behind the employer tools, generated deterministically from the seed.
// Personal data (name, contact, CV text, salary expectation) lives under `private` and is never read
// by anything but tests; every tool output goes through publicViews.ts, which copies allowed fields.
// Requirements: MCP-TOOL-8, MCP-TOOL-9; decisions D-48.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Rng } from '../rng.js';
import { PLACES, ROLES, placesFixture, seniorityOf, type RoleDef, type Seniority } from './vocabulary.js';

export const POOL_SIZE = 300;

export interface SkillYears {
  skill: string;
  years: number;
}

export interface PrivateProfile {
  name: string;
  email: string;
  phone: string;
  cvText: string;
  salaryExpectationIdr: number;
}

export interface Candidate {
  /** Opaque, stable for a seed; says nothing about the person. */
  id: string;
  consent: boolean;
  openToWork: boolean;
  role: RoleDef;
  years: number;
  seniority: Seniority;
  headline: string;
  skills: SkillYears[];
  city: string;
  region: string;
  workAuthorization: string[];
  needsSponsorship: boolean;
  noticePeriodWeeks: number;
  private: PrivateProfile;
}

const people = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/candidates/people.json', import.meta.url)), 'utf8'),
) as {
  firstNames: string[];
  lastNames: string[];
  emailDomains: string[];
  employers: string[];
  achievements: string[];
  personalNotes: string[];
};

function weighted<T extends { weight: number }>(rng: Rng, items: readonly T[]): T {
  const total = items.reduce((s, i) => s + i.weight, 0);
  let x = rng.next() * total;
  for (const i of items) {
    x -= i.weight;
    if (x < 0) return i;
  }
  return items[items.length - 1];
}

const SALARY_BASE: Record<Seniority, number> = {
  junior: 6_500_000,
  mid: 12_000_000,
  senior: 21_000_000,
  lead: 32_000_000,
};
const FAMILY_FACTOR: Record<string, number> = {
  engineering: 1.2,
  data: 1.1,
  design: 1,
  product: 1.15,
  support: 0.55,
  marketing: 0.75,
  operations: 0.5,
  finance: 0.8,
};

const LEVEL_LABEL: Record<Seniority, string> = { junior: 'Junior', mid: '', senior: 'Senior', lead: 'Lead' };

function pickSkills(rng: Rng, role: RoleDef, years: number): SkillYears[] {
  const count = rng.int(4, Math.min(7, role.skills.length));
  const chosen: string[] = [];
  // the first skills of a role are the common ones: take them first most of the time
  for (const s of role.skills) {
    if (chosen.length >= count) break;
    if (rng.chance(chosen.length < 2 ? 0.9 : 0.55)) chosen.push(s);
  }
  for (const s of role.skills) if (chosen.length < count && !chosen.includes(s)) chosen.push(s);
  return chosen.map((skill, i) => ({
    skill,
    years: Math.max(1, Math.min(years, i < 2 ? years - rng.int(0, 1) : rng.int(1, years))),
  }));
}

function cvOf(
  rng: Rng,
  name: string,
  email: string,
  phone: string,
  role: RoleDef,
  years: number,
  skills: SkillYears[],
  salary: number,
  city: string,
): string {
  const [e1, e2] = [rng.pick(people.employers), rng.pick(people.employers)];
  const endYear = 2025 - rng.int(0, 1);
  const startYear = endYear - Math.max(1, Math.floor(years / 2));
  return [
    `${name}, ${city}. Email ${email}, phone ${phone}.`,
    `Worked at ${e1} as ${role.name} from ${startYear} to ${endYear}, where I ${rng.pick(people.achievements)}.`,
    `Before that I was with ${e2} and ${rng.pick(people.achievements)}.`,
    `Daily tools: ${skills.map((s) => s.skill).join(', ')}.`,
    `${rng.pick(people.personalNotes)}.`,
    `Expected salary IDR ${salary.toLocaleString('en-US')} per month (${salary}).`,
  ].join(' ');
}

/** Generates the pool for a seed; the same seed always gives the same people and ids. */
export function generatePool(seed: number, size = POOL_SIZE): Candidate[] {
  const rng = new Rng(seed).fork('employer-candidate-pool');
  const usedNames = new Set<string>();
  const pool: Candidate[] = [];
  for (let i = 0; i < size; i++) {
    const role = rng.pick(ROLES);
    const years = Math.min(20, rng.chance(0.15) ? rng.int(10, 20) : rng.int(1, 10));
    const seniority = seniorityOf(years);
    const skills = pickSkills(rng, role, years);
    const place = weighted(rng, PLACES);
    let name: string;
    do name = `${rng.pick(people.firstNames)} ${rng.pick(people.lastNames)}`;
    while (usedNames.has(name));
    usedNames.add(name);
    const email = `${name.toLowerCase().replace(/\s+/g, '.')}${rng.int(1, 99)}@${rng.pick(people.emailDomains)}`;
    const phone = `+62 8${rng.int(11, 59)} ${rng.int(1000, 9999)} ${rng.int(1000, 9999)}`;
    const raw = SALARY_BASE[seniority] * (FAMILY_FACTOR[role.family] ?? 1) * (0.8 + rng.next() * 0.4);
    const salary = Math.round(raw / 250_000) * 250_000 + 125_000;
    const level = LEVEL_LABEL[seniority];
    pool.push({
      id: `cand_${rng.token(12)}`,
      consent: rng.chance(0.85),
      openToWork: rng.chance(0.8),
      role,
      years,
      seniority,
      headline: `${level ? `${level} ` : ''}${role.name} with ${years} ${years === 1 ? 'year' : 'years'} in ${skills[0].skill} and ${skills[1].skill}`,
      skills,
      city: place.city,
      region: place.region,
      workAuthorization: weighted(rng, placesFixture.workAuthorization).value,
      needsSponsorship: rng.chance(0.1),
      noticePeriodWeeks: rng.pick(placesFixture.noticePeriodWeeks),
      private: {
        name,
        email,
        phone,
        cvText: cvOf(rng, name, email, phone, role, years, skills, salary, place.city),
        salaryExpectationIdr: salary,
      },
    });
  }
  return pool;
}

/** Only candidates who consented and are open to work are ever considered. */
export const isEligible = (c: Candidate) => c.consent && c.openToWork;
