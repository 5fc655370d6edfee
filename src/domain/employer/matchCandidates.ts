// match_candidates: a ranked, anonymized shortlist of consented, open-to-work candidates.
// Requirements: MCP-TOOL-8, POL-MCP-16; decisions D-48.

import type { KeyedMatchCandidatesInput, KeyedTalentSearchInput } from '../../contract/types.js';
import { invalid } from '../../errors/errors.js';
import { isEligible, type Candidate } from './candidatePool.js';
import { shortlistEntry } from './publicViews.js';
import { rank } from './scoring.js';
import { criteriaView, isEmptyCriteria, parseCriteria, type Criteria, type CriteriaInput } from './vocabulary.js';

/** Candidates below this relevance are noise, not a shortlist. */
export const MIN_RELEVANCE = 30;

/** The arguments of talent_search, which match_candidates shares (plus `limit`): the contract's types. */
export type EmployerSearchArgs = KeyedTalentSearchInput;

/** The at-least-one rule shared by match_candidates and talent_search. */
export function criteriaFrom(args: EmployerSearchArgs): Criteria {
  const hasQuery = typeof args.query === 'string' && args.query.trim() !== '';
  if (!hasQuery && !(args.skills?.length) && !(args.roles?.length)) {
    throw invalid('at least one of the arguments query, skills or roles is required', 'query');
  }
  const input: CriteriaInput = { query: args.query, skills: args.skills, roles: args.roles, minYears: args.min_years, location: args.location };
  return parseCriteria(input);
}

export function unrecognizedNote(c: Criteria): string | undefined {
  if (isEmptyCriteria(c)) {
    return 'No known role, skill, seniority or place was recognised, so nothing could be matched. Name a role (e.g. "backend engineer"), skills (e.g. "Go, PostgreSQL") or a city.';
  }
  if (c.unrecognized > 0) return `${c.unrecognized} of the given skills, roles or locations were not recognised and were left out.`;
  return undefined;
}

export function matchCandidates(pool: readonly Candidate[], args: KeyedMatchCandidatesInput) {
  const criteria = criteriaFrom(args);
  const eligible = pool.filter(isEligible);
  const ranked = isEmptyCriteria(criteria) ? [] : rank(eligible, criteria).filter((r) => r.fit.fit >= MIN_RELEVANCE);
  const note = unrecognizedNote(criteria);
  return {
    criteria: criteriaView(criteria),
    considered: eligible.length,
    candidates: ranked.slice(0, args.limit ?? 10).map((r) => shortlistEntry(r.candidate, r.fit)),
    ...(note ? { note } : {}),
  };
}
