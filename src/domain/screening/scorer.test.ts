import { describe, expect, it } from 'vitest';
import { loadResumes, parseCandidate } from './resumes.js';
import { MODEL_ID, PROMPT_VERSION, matchRequirement, scoreCandidate } from './scorer.js';
import type { CandidateProfile, JobSpec } from './types.js';

const profile = (p: Partial<CandidateProfile> = {}): CandidateProfile => ({
  name: 'Sari',
  summary: 'Backend engineer running Kubernetes clusters and Node.js services for 6 years.',
  skills: ['PostgreSQL', 'TypeScript', 'AWS'],
  experienceYears: 6,
  source: 'structured candidate',
  ...p,
});

const job = (j: Partial<JobSpec> = {}): JobSpec => ({
  title: 'Backend Engineer',
  mustHaves: ['Postgres', 'Kubernetes', 'Go'],
  ...j,
});

const dim = (r: ReturnType<typeof scoreCandidate>, name: string) => r.dimensions.find((d) => d.name === name)!;

describe('scoreCandidate', () => {
  it('is deterministic and stamps the model and prompt version', () => {
    const a = scoreCandidate(profile(), job());
    const b = scoreCandidate(profile(), job());
    expect(a).toEqual(b);
    expect(a).toMatchObject({ schemaVersion: 1, modelId: MODEL_ID, promptVersion: PROMPT_VERSION });
    expect(a.rationale.length).toBeGreaterThan(0);
  });

  it('scores must-haves by share matched, quoting the candidate data as evidence', () => {
    const r = scoreCandidate(profile(), job());
    const must = dim(r, 'must_haves');
    // PostgreSQL in skills (1), Kubernetes in summary (0.75), Go missing (0) -> 1.75 / 3
    expect(must.score).toBe(58);
    expect(must.evidence).toContain("skills list includes 'PostgreSQL'");
    expect(must.evidence).toContain("summary mentions 'Kubernetes'");
    expect(must.evidence).toContain("no evidence of 'Go'");
  });

  it('folds case, punctuation, synonyms and plurals', () => {
    const c = profile({ skills: ['node.js', 'K8S', 'golang', 'Postgres 15'], summary: 'Writes REST APIs.' });
    for (const req of ['NodeJS', 'kubernetes', 'Go', 'PostgreSQL', 'REST API', 'experience with Postgres']) {
      expect(matchRequirement(req, c).found, req).not.toBe('none');
    }
    expect(matchRequirement('Rust', c).found).toBe('none');
    expect(matchRequirement('Rust or Go', c)).toMatchObject({ found: 'skills', quote: 'golang' });
  });

  it('does not count a short skill as a much longer requirement', () => {
    expect(matchRequirement('AWS Lambda Step Functions', profile({ skills: ['AWS'], summary: '' })).found).toBe('none');
  });

  it('reads the required years from "5+ years" or a seniority word, and compares', () => {
    const explicit = scoreCandidate(
      profile({ experienceYears: 3 }),
      job({ description: 'You have 6+ years building APIs.' }),
    );
    expect(dim(explicit, 'experience').score).toBe(50);
    expect(dim(explicit, 'experience').evidence).toContain("'6+ years'");
    const senior = scoreCandidate(profile({ experienceYears: 7 }), job({ title: 'Senior Backend Engineer' }));
    expect(dim(senior, 'experience').score).toBe(100);
    expect(dim(senior, 'experience').evidence).toContain("'Senior'");
    const junior = scoreCandidate(profile({ experienceYears: 1 }), job({ title: 'Principal Engineer' }));
    expect(dim(junior, 'experience').score).toBeLessThan(20);
  });

  it('reads the candidate years from the summary when experienceYears is missing', () => {
    const r = scoreCandidate(
      profile({ experienceYears: null, summary: 'I have 4 years of Go.' }),
      job({ description: '4 years required' }),
    );
    expect(dim(r, 'experience')).toMatchObject({
      score: 100,
      evidence: expect.stringContaining("summary states '4 years'"),
    });
  });

  it('lowers confidence when candidate data is sparse', () => {
    const rich = scoreCandidate(profile(), job());
    const sparse = scoreCandidate(profile({ skills: [], summary: '', experienceYears: null }), job());
    expect(sparse.confidence).toBeLessThan(rich.confidence);
    expect(sparse.confidence).toBeGreaterThanOrEqual(0);
    expect(rich.confidence).toBeLessThanOrEqual(1);
  });

  it('handles an empty mustHaves list without weighting that dimension', () => {
    const r = scoreCandidate(profile(), job({ mustHaves: [] }));
    expect(dim(r, 'must_haves').evidence).toMatch(/no must-haves/);
    expect(r.score).toBe(dim(r, 'experience').score);
  });

  it('ranks a better-matching candidate higher', () => {
    const spec = job({ mustHaves: ['PostgreSQL', 'TypeScript'], niceToHaves: ['AWS'] });
    const strong = scoreCandidate(profile(), spec);
    const weak = scoreCandidate(
      profile({ skills: ['PHP'], summary: 'WordPress themes.', experienceYears: 1 }),
      job({ ...spec, title: 'Senior Engineer' }),
    );
    expect(strong.score).toBeGreaterThan(weak.score);
  });

  it('keeps every number in range and the rationale bounded for huge job specs', () => {
    const many = Array.from({ length: 200 }, (_, i) => `Skill number ${i} ${'x'.repeat(200)}`);
    const r = scoreCandidate(profile(), job({ mustHaves: many, niceToHaves: many }));
    expect(r.rationale.length).toBeLessThan(2000);
    for (const d of r.dimensions) {
      expect(d.score).toBeGreaterThanOrEqual(0);
      expect(d.score).toBeLessThanOrEqual(100);
    }
    expect(r.score).toBeGreaterThanOrEqual(0);
    expect(r.score).toBeLessThanOrEqual(100);
  });

  it('scores resume fixtures through the same profile', () => {
    const resumes = loadResumes();
    const parsed = parseCandidate({ kind: 'resume_ref', resumeRef: 'res_demo_backend' }, resumes);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const r = scoreCandidate(
      parsed.profile,
      job({ mustHaves: ['Go', 'PostgreSQL', 'Kubernetes'], title: 'Senior Backend Engineer' }),
    );
    expect(dim(r, 'must_haves').score).toBe(100);
    expect(dim(r, 'experience').evidence).toContain('res_demo_backend');
    expect(parseCandidate({ kind: 'resume_ref', resumeRef: 'res_missing' }, resumes).ok).toBe(false);
    expect(parseCandidate({ kind: 'structured', fullName: 'Sandbox Fail' }, resumes).ok).toBe(false);
  });
});
