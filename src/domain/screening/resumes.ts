// Resume fixtures for `resume_ref` candidates (fixtures/resumes/*.json), loaded once. A resumeRef
// that is not among them cannot be parsed, which is how a request reaches `failed` without magic.
// Requirements: POL-STATE-3; decisions D-03.

import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CandidateBlob, CandidateProfile } from './types.js';

export interface ResumeFixture {
  resumeRef: string;
  fullName: string;
  headline?: string;
  location?: string;
  experienceYears?: number;
  skills: string[];
  summary: string;
}

const DIR = fileURLToPath(new URL('../../../fixtures/resumes/', import.meta.url));

export function loadResumes(dir: string = DIR): Map<string, ResumeFixture> {
  const out = new Map<string, ResumeFixture>();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const r = JSON.parse(readFileSync(dir + file, 'utf8')) as ResumeFixture;
    if (typeof r.resumeRef !== 'string' || !Array.isArray(r.skills) || typeof r.summary !== 'string') {
      throw new Error(`resume fixture ${file} needs resumeRef, skills and summary`);
    }
    out.set(r.resumeRef, r);
  }
  return out;
}

/** Magic candidate name that makes parsing fail (documented sandbox convenience). */
export const FAIL_NAME = 'sandbox fail';

export type ParseOutcome = { ok: true; profile: CandidateProfile } | { ok: false; reason: string };

export function parseCandidate(c: CandidateBlob, resumes: ReadonlyMap<string, ResumeFixture>): ParseOutcome {
  if (c.kind === 'resume_ref') {
    const r = resumes.get(c.resumeRef);
    if (!r) return { ok: false, reason: `resume '${c.resumeRef}' could not be found or parsed` };
    return {
      ok: true,
      profile: {
        name: r.fullName,
        summary: [r.headline, r.summary].filter(Boolean).join('. '),
        skills: r.skills,
        experienceYears: r.experienceYears ?? null,
        source: `resume ${r.resumeRef}`,
      },
    };
  }
  if (c.fullName.trim().toLowerCase() === FAIL_NAME)
    return { ok: false, reason: `candidate '${c.fullName}' could not be parsed (magic name)` };
  return {
    ok: true,
    profile: {
      name: c.fullName,
      summary: c.summary ?? '',
      skills: c.skills ?? [],
      experienceYears: c.experienceYears ?? null,
      source: 'structured candidate',
    },
  };
}
