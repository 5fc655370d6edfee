// talent_search: a match count and at most 10 anonymized cards, tiered exact / close / broader. When
// fewer than three candidates match, the search is widened (location and seniority dropped, related
// roles of the same family admitted, any one of several skills enough) and the result says so.
// Requirements: MCP-TOOL-9, POL-MCP-16; decisions D-48.

import type { Candidate } from './candidatePool.js';
import { isEligible } from './candidatePool.js';
import { unmatchable, unrecognizedNote, criteriaFrom, type EmployerSearchArgs } from './matchCandidates.js';
import { talentCard, type CardTier } from './publicViews.js';
import { rank, scoreCandidate, type Ranked } from './scoring.js';
import { ROLES, criteriaView, type Criteria } from './vocabulary.js';

export const EXACT_FIT = 80;
export const CLOSE_FIT = 60;
/** Below this many exact or close matches, the search is widened. */
export const WIDEN_BELOW = 3;

function widen(c: Criteria): { criteria: Criteria; dropped: string[] } {
  const dropped: string[] = [];
  const families = new Set(c.roles.map((r) => r.family));
  const roles = c.roles.length ? ROLES.filter((r) => families.has(r.family)) : [];
  if (roles.length > c.roles.length) dropped.push('included related roles of the same family');
  if (c.location) dropped.push('ignored the location');
  if (c.seniority || c.minYears !== null) dropped.push('ignored seniority and years');
  if (c.skills.length > 1) dropped.push('accepted any one of the skills');
  return { criteria: { ...c, roles, location: null, seniority: null, minYears: null, skillMode: 'any' }, dropped };
}

export function talentSearch(pool: readonly Candidate[], args: EmployerSearchArgs, maxCards: number) {
  const criteria = criteriaFrom(args);
  const view = criteriaView(criteria);
  const ignored = [...criteria.ignored];
  if (unmatchable(criteria))
    return { criteria: view, ignored, matchCount: 0, cards: [], widened: false, note: unrecognizedNote(criteria)! };
  // a match on part of what was asked is never exact (D-95)
  const exactAt = ignored.length ? Infinity : EXACT_FIT;
  const eligible = pool.filter(isEligible);
  const tiered: { r: Ranked; tier: CardTier }[] = rank(eligible, criteria)
    .filter((r) => r.fit.fit >= CLOSE_FIT)
    .map((r) => ({ r, tier: r.fit.fit >= exactAt ? 'exact' : 'close' }));
  let widened = false;
  let note = unrecognizedNote(criteria);
  if (tiered.length < WIDEN_BELOW) {
    const { criteria: wide, dropped } = widen(criteria);
    const seen = new Set(tiered.map((t) => t.r.candidate.id));
    const broader = rank(eligible, wide)
      .filter((r) => r.fit.fit >= CLOSE_FIT && !seen.has(r.candidate.id))
      // cards always show the fit against what was asked, so a broader card reads lower
      .map((r) => ({
        r: { candidate: r.candidate, fit: scoreCandidate(r.candidate, criteria) },
        tier: 'broader' as const,
      }));
    if (dropped.length > 0 || broader.length > 0) {
      widened = true;
      const what = dropped.length ? dropped.join(', ') : 'relaxed the minimum fit';
      note = `Only ${tiered.length} candidate(s) matched exactly or closely, so the search was widened (${what}); ${broader.length} broader match(es) added.${note ? ` ${note}` : ''}`;
      tiered.push(
        ...broader.sort((a, b) => b.r.fit.fit - a.r.fit.fit || (a.r.candidate.id < b.r.candidate.id ? -1 : 1)),
      );
    }
  }
  if (tiered.length === 0)
    note = `No consented, open-to-work candidate matches these criteria${widened ? ', even after widening' : ''}.${note ? ` ${note}` : ''}`;
  return {
    criteria: view,
    ignored,
    matchCount: tiered.length,
    cards: tiered.slice(0, maxCards).map((t) => talentCard(t.r.candidate, t.r.fit, t.tier)),
    widened,
    ...(note ? { note } : {}),
  };
}
