// The sandbox's scoring model: a deterministic, explainable score of a candidate against a job spec.
// Dimensions: must_haves (share matched), nice_to_haves, experience (years against what the spec
// asks). Evidence quotes the candidate's own data; the same input always gives the same result.
// A job spec is compiled once (its requirements' key terms, the years it asks for) and can be kept
// beside the spec; a candidate's skills and summary are tokenized once per scoring.
// Requirements: SCR-HOOK-4, SCR-VER-3, POL-REVIEW-2; decisions D-42.

import { candidateYears, requiredYears, type YearsFinding } from './experience.js';
import { alternatives, findRun, keyTermsOf, type Token, tokenize } from './terms.js';
import type { CandidateProfile, JobSpec, ScoreDimension, ScoreResultV1 } from './types.js';

export const MODEL_ID = 'sandbox-scorer-1';
export const PROMPT_VERSION = '2026-11-01';

// A skill listed outright is stronger evidence than a mention in prose.
const CREDIT = { skills: 1, summary: 0.75, none: 0 } as const;
const WEIGHTS = { must_haves: 0.5, nice_to_haves: 0.2, experience: 0.3 } as const;

export interface TermMatch {
  requirement: string;
  found: keyof typeof CREDIT;
  /** The candidate's words that matched, verbatim. */
  quote: string | null;
}

interface CompiledRequirement {
  requirement: string;
  /** Key terms of each alternative that has any, in order. */
  needs: ReadonlyArray<readonly string[]>;
}

export interface CompiledJob {
  must: CompiledRequirement[];
  nice: CompiledRequirement[];
  need: YearsFinding | null;
}

interface CompiledCandidate {
  c: CandidateProfile;
  /** Key terms of each skill, index for index. */
  haves: ReadonlyArray<readonly string[]>;
  summaryTokens: Token[];
  summaryTerms: string[];
}

const compileRequirement = (requirement: string): CompiledRequirement => ({
  requirement,
  needs: alternatives(requirement)
    .map(keyTermsOf)
    .filter((need) => need.length > 0),
});

export function compileJob(job: JobSpec): CompiledJob {
  return {
    must: job.mustHaves.map(compileRequirement),
    nice: (job.niceToHaves ?? []).map(compileRequirement),
    need: requiredYears(job),
  };
}

function compileCandidate(c: CandidateProfile): CompiledCandidate {
  const summaryTokens = tokenize(c.summary);
  return { c, haves: c.skills.map(keyTermsOf), summaryTokens, summaryTerms: summaryTokens.map((t) => t.t) };
}

function match(r: CompiledRequirement, cc: CompiledCandidate): TermMatch {
  const { c, haves, summaryTokens, summaryTerms } = cc;
  let summaryHit: string | null = null;
  for (const need of r.needs) {
    for (let k = 0; k < haves.length; k++) {
      const have = haves[k];
      // "PostgreSQL 14" covers "PostgreSQL"; "PostgreSQL" covers "PostgreSQL databases" but not a longer phrase
      const covers = findRun(have, need) >= 0 || (have.length * 2 >= need.length && findRun(need, have) >= 0);
      if (have.length > 0 && covers) return { requirement: r.requirement, found: 'skills', quote: c.skills[k] };
    }
    const at = summaryHit === null ? findRun(summaryTerms, need) : -1;
    if (at >= 0) summaryHit = c.summary.slice(summaryTokens[at].start, summaryTokens[at + need.length - 1].end);
  }
  return summaryHit !== null
    ? { requirement: r.requirement, found: 'summary', quote: summaryHit }
    : { requirement: r.requirement, found: 'none', quote: null };
}

export function matchRequirement(requirement: string, c: CandidateProfile): TermMatch {
  return match(compileRequirement(requirement), compileCandidate(c));
}

function describe(m: TermMatch): string {
  if (m.found === 'skills') return `skills list includes '${m.quote}'`;
  if (m.found === 'summary') return `summary mentions '${m.quote}'`;
  return `no evidence of '${m.requirement}'`;
}

function listDimension(name: string, items: readonly CompiledRequirement[], cc: CompiledCandidate, label: string) {
  const matches = items.map((r) => match(r, cc));
  if (matches.length === 0) {
    return {
      matches,
      weighted: false,
      dim: { name, score: 100, evidence: `the job spec lists no ${label}; not weighted` },
    };
  }
  const credit = matches.reduce((s, m) => s + CREDIT[m.found], 0);
  return {
    matches,
    weighted: true,
    dim: { name, score: Math.round((100 * credit) / matches.length), evidence: matches.map(describe).join('; ') },
  };
}

function experienceDimension(need: YearsFinding | null, c: CandidateProfile) {
  const have = candidateYears(c);
  const haveText = have ? have.evidence : 'no evidence of years of experience in the candidate data';
  let score: number;
  let needText: string;
  if (!need) {
    needText = 'the job spec states no experience requirement';
    score = have ? 100 : 60;
  } else {
    needText = need.evidence;
    score = !have
      ? 30
      : need.years === 0 || have.years >= need.years
        ? 100
        : Math.round((100 * have.years) / need.years);
  }
  return { need, have, dim: { name: 'experience', score, evidence: `${haveText}; ${needText}` } };
}

function confidenceOf(c: CandidateProfile, job: JobSpec, hasYears: boolean): number {
  let conf = 1;
  if (c.skills.length === 0) conf -= 0.25;
  if (c.summary.trim().length < 40) conf -= 0.2;
  if (!hasYears) conf -= 0.15;
  if (job.mustHaves.length === 0) conf -= 0.1;
  return Math.round(Math.min(0.95, Math.max(0.1, conf)) * 100) / 100;
}

// The rationale stays short however long the job spec is: a few names, each clipped.
const MAX_NAMES = 8;
const clip = (s: string) => (s.length > 60 ? `${s.slice(0, 57)}...` : s);
function names(ms: TermMatch[], found: boolean): { count: number; text: string } {
  const list = ms.filter((m) => (m.found !== 'none') === found).map((m) => clip(m.requirement));
  const more = list.length > MAX_NAMES ? ` and ${list.length - MAX_NAMES} more` : '';
  return { count: list.length, text: list.slice(0, MAX_NAMES).join(', ') + more };
}

/** `compiled` is compileJob(job), when the caller keeps it. */
/**
 * Where the candidate's name stands in a result template's rationale: the only part of a result that
 * differs between candidates with the same data against the same spec, so templates can be shared.
 */
export const SUBJECT = '\u0000';

/** How the rationale names a candidate of this name. */
export const subjectOf = (name: string): string => clip(name);

/** A template with its subject filled in. The subject sentence comes first, so the first marker is it. */
export const withSubject = (template: ScoreResultV1, subject: string): ScoreResultV1 => ({
  ...template,
  rationale: template.rationale.replace(SUBJECT, () => subject),
});

export function scoreCandidate(
  c: CandidateProfile,
  job: JobSpec,
  compiled: CompiledJob = compileJob(job),
): ScoreResultV1 {
  return withSubject(scoreTemplate(c, job, compiled), subjectOf(c.name));
}

/** The result with SUBJECT in place of the candidate's name. */
export function scoreTemplate(
  c: CandidateProfile,
  job: JobSpec,
  compiled: CompiledJob = compileJob(job),
): ScoreResultV1 {
  const cc = compileCandidate(c);
  const must = listDimension('must_haves', compiled.must, cc, 'must-haves');
  const nice = listDimension('nice_to_haves', compiled.nice, cc, 'nice-to-haves');
  const exp = experienceDimension(compiled.need, c);
  const parts: Array<[ScoreDimension, number]> = [
    [must.dim, must.weighted ? WEIGHTS.must_haves : 0],
    [nice.dim, nice.weighted ? WEIGHTS.nice_to_haves : 0],
    [exp.dim, WEIGHTS.experience],
  ];
  const totalWeight = parts.reduce((s, [, w]) => s + w, 0);
  const score = Math.round(parts.reduce((s, [d, w]) => s + d.score * w, 0) / totalWeight);

  const sentences: string[] = [];
  if (must.matches.length === 0) sentences.push('The job spec lists no must-haves.');
  else {
    const met = names(must.matches, true);
    const missing = names(must.matches, false);
    sentences.push(
      `${SUBJECT} meets ${met.count} of ${must.matches.length} must-haves${met.count ? ` (${met.text})` : ''}${missing.count ? `; missing ${missing.text}` : ''}.`,
    );
  }
  if (nice.matches.length > 0)
    sentences.push(`Nice-to-haves met: ${names(nice.matches, true).count} of ${nice.matches.length}.`);
  if (exp.have && exp.need) sentences.push(`${exp.have.years} years of experience against ${exp.need.years} asked.`);
  else if (exp.have) sentences.push(`${exp.have.years} years of experience; no requirement stated.`);
  else sentences.push('Years of experience could not be established.');
  sentences.push(`Overall ${score}/100 for '${clip(job.title)}'.`);

  return {
    schemaVersion: 1,
    score,
    dimensions: parts.map(([d]) => d),
    rationale: sentences.join(' '),
    confidence: confidenceOf(c, job, exp.have !== null),
    modelId: MODEL_ID,
    promptVersion: PROMPT_VERSION,
  };
}
