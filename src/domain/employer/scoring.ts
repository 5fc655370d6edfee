// How well a candidate fits employer criteria: a 0..100 fit from four components (skills, role,
// seniority, location). A component the caller did not ask about is null and carries no weight.
// Requirements: MCP-TOOL-8, MCP-TOOL-9, POL-MCP-16; decisions D-48.

import type { Candidate } from './candidatePool.js';
import { SENIORITY_FLOOR, type Criteria } from './vocabulary.js';

export interface FitBreakdown {
  skills: number | null;
  role: number | null;
  seniority: number | null;
  location: number | null;
}

export interface Fit {
  fit: number;
  breakdown: FitBreakdown;
}

const WEIGHTS: Record<keyof FitBreakdown, number> = { skills: 0.45, role: 0.35, seniority: 0.12, location: 0.08 };

/** A skill held counts 70, rising to 100 with three or more years of it; averaged, or the best one. */
function skillsScore(c: Candidate, wanted: string[], mode: 'all' | 'any'): number {
  const each = wanted.map((w) => {
    const held = c.skills.find((s) => s.skill === w);
    return held ? 70 + 30 * Math.min(1, held.years / 3) : 0;
  });
  return mode === 'any' ? Math.max(...each) : each.reduce((a, b) => a + b, 0) / each.length;
}

function roleScore(c: Candidate, criteria: Criteria): number {
  if (criteria.roles.some((r) => r.slug === c.role.slug)) return 100;
  if (criteria.roles.some((r) => r.family === c.role.family)) return 50;
  return 0;
}

function seniorityScore(c: Candidate, criteria: Criteria): number {
  const target = criteria.minYears ?? SENIORITY_FLOOR[criteria.seniority!];
  if (c.years < target) return Math.max(0, 100 - 25 * (target - c.years));
  // far more experience than a junior opening asks for is a weaker fit, not a failure
  if (criteria.seniority === 'junior' && criteria.minYears === null && c.years > 4) return 60;
  return 100;
}

function locationScore(c: Candidate, criteria: Criteria): number {
  const loc = criteria.location!;
  if (loc.city && loc.city === c.city) return 100;
  if (loc.region === c.region) return loc.city ? 75 : 100;
  // the jobs are remote: another place is a weaker fit, not a mismatch
  return 35;
}

export function scoreCandidate(c: Candidate, criteria: Criteria): Fit {
  const breakdown: FitBreakdown = {
    skills: criteria.skills.length ? Math.round(skillsScore(c, criteria.skills, criteria.skillMode ?? 'all')) : null,
    role: criteria.roles.length ? roleScore(c, criteria) : null,
    seniority:
      criteria.minYears !== null || criteria.seniority !== null ? Math.round(seniorityScore(c, criteria)) : null,
    location: criteria.location ? locationScore(c, criteria) : null,
  };
  let total = 0;
  let weight = 0;
  for (const k of Object.keys(WEIGHTS) as (keyof FitBreakdown)[]) {
    const v = breakdown[k];
    if (v === null) continue;
    total += WEIGHTS[k] * v;
    weight += WEIGHTS[k];
  }
  return { fit: weight === 0 ? 0 : Math.round(total / weight), breakdown };
}

export interface Ranked {
  candidate: Candidate;
  fit: Fit;
}

/** Best first; ties broken by id so the order is stable. */
export function rank(candidates: readonly Candidate[], criteria: Criteria): Ranked[] {
  return candidates
    .map((candidate) => ({ candidate, fit: scoreCandidate(candidate, criteria) }))
    .sort((a, b) => b.fit.fit - a.fit.fit || (a.candidate.id < b.candidate.id ? -1 : 1));
}
