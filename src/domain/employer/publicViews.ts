// The only place a candidate becomes output. Each view copies named, privacy-safe fields; nothing
// here may read `candidate.private` (a test asserts no personal data ever reaches a tool result).
// Requirements: MCP-TOOL-8, MCP-TOOL-9, MCP-TOOL-12; decisions D-48.

import type { Candidate } from './candidatePool.js';
import type { Fit } from './scoring.js';

const topSkills = (c: Candidate, n: number) =>
  [...c.skills].sort((a, b) => b.years - a.years || a.skill.localeCompare(b.skill)).slice(0, n);

/** match_candidates: coarse profile plus facts an employer may lawfully filter on. */
export function shortlistEntry(c: Candidate, fit: Fit) {
  return {
    id: c.id,
    profile: {
      role: c.role.name,
      seniority: c.seniority,
      yearsExperience: c.years,
      region: c.region,
      headline: c.headline,
    },
    relevance: fit.fit,
    facts: {
      workAuthorization: [...c.workAuthorization],
      needsSponsorship: c.needsSponsorship,
      noticePeriodWeeks: c.noticePeriodWeeks,
      skillYears: topSkills(c, 8).map((s) => ({ skill: s.skill, years: s.years })),
    },
  };
}

export type CardTier = 'exact' | 'close' | 'broader';

/** talent_search card. */
export function talentCard(c: Candidate, fit: Fit, tier: CardTier) {
  return {
    code: c.id,
    role: c.role.name,
    years: c.years,
    topSkills: topSkills(c, 4).map((s) => s.skill),
    city: c.city,
    fit: fit.fit,
    breakdown: { ...fit.breakdown },
    tier,
  };
}

/** hire shortlist entry (also what the shortlist email lists). */
export function hireEntry(c: Candidate, fit: Fit) {
  return {
    id: c.id,
    headline: c.headline,
    region: c.region,
    skills: topSkills(c, 5).map((s) => s.skill),
    score: fit.fit,
  };
}
