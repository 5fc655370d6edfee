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
  if (!hasQuery && !args.skills?.length && !args.roles?.length) {
    throw invalid('at least one of the arguments query, skills or roles is required', 'query');
  }
  const input: CriteriaInput = {
    query: args.query,
    skills: args.skills,
    roles: args.roles,
    minYears: args.min_years,
    location: args.location,
  };
  return parseCriteria(input);
}

const HINT = 'Name a role (e.g. "backend engineer"), skills (e.g. "Go, PostgreSQL") or a city.';

/**
 * A brief whose words were partly not understood, and that names no known role or skill, cannot be
 * matched: years or a place alone would rank everyone with them as a perfect fit for words ignored.
 */
export function unmatchable(c: Criteria): boolean {
  return isEmptyCriteria(c) || (c.ignored.length > 0 && c.roles.length === 0 && c.skills.length === 0);
}

export function unrecognizedNote(c: Criteria): string | undefined {
  const ignored = c.ignored.length ? `Not understood and ignored: ${c.ignored.map((w) => `"${w}"`).join(', ')}.` : '';
  if (isEmptyCriteria(c))
    return `No known role, skill, seniority or place was recognised, so nothing could be matched. ${ignored} ${HINT}`.replace(
      /\s+/g,
      ' ',
    );
  if (unmatchable(c))
    return `No known role or skill was recognised, so nothing was matched on the rest alone. ${ignored} ${HINT}`;
  if (c.ignored.length) return `${ignored} Matches are on the understood criteria only, so none is exact.`;
  return undefined;
}

export function matchCandidates(pool: readonly Candidate[], args: KeyedMatchCandidatesInput) {
  const criteria = criteriaFrom(args);
  const eligible = pool.filter(isEligible);
  const ranked = unmatchable(criteria) ? [] : rank(eligible, criteria).filter((r) => r.fit.fit >= MIN_RELEVANCE);
  const note = unrecognizedNote(criteria);
  return {
    criteria: criteriaView(criteria),
    ignored: [...criteria.ignored],
    considered: eligible.length,
    candidates: ranked.slice(0, args.limit ?? 10).map((r) => shortlistEntry(r.candidate, r.fit)),
    ...(note ? { note } : {}),
  };
}
