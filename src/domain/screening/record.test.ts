import { describe, expect, it } from 'vitest';
import { JobSpecTable } from './jobSpecs.js';
import { Ledger } from './ledger.js';
import { decodeCandidate, encodeCandidate, StoredRequest } from './record.js';
import { loadResumes, parseCandidate } from './resumes.js';
import { scoreCandidate } from './scorer.js';
import { parseSubmission } from './submission.js';

describe('stored candidates', () => {
  it('come back equal, keys in the order parseSubmission gives them', () => {
    const bodies = [
      { kind: 'resume_ref', resumeRef: 'res_demo_backend' },
      { filename: 'cv.pdf', resumeRef: 'res_x', kind: 'resume_ref' },
      { kind: 'structured', fullName: 'Sari' },
      { experienceYears: 0, skills: [], summary: '', phone: '+62', email: 'a@b.c', fullName: 'Q "x" \\ 😀', kind: 'structured' },
      { kind: 'structured', fullName: 'Budi', skills: ['Go', 'k8s'], experienceYears: 2.5 },
    ];
    for (const candidate of bodies) {
      const parsed = parseSubmission({ idempotencyKey: 'k', candidate, jobSpec: { title: 't', mustHaves: [] } }).candidate;
      const back = decodeCandidate(encodeCandidate(parsed));
      expect(JSON.stringify(back)).toBe(JSON.stringify(parsed));
    }
  });
});

describe('StoredRequest', () => {
  const resumes = loadResumes();
  const make = (candidate: unknown, jobSpec: unknown) => {
    const submission = parseSubmission({ idempotencyKey: 'key-1', candidate, jobSpec });
    const req = new StoredRequest('scr_1', submission.idempotencyKey, 1000, new Ledger().rowsFor('ten_1'), encodeCandidate(submission.candidate), new JobSpecTable().intern(submission.jobSpec), resumes);
    return { submission, req };
  };

  it('gives its submission back as fresh copies', () => {
    const { submission, req } = make({ kind: 'structured', fullName: 'Sari', skills: ['Go'] }, { title: 'Dev', mustHaves: ['Go'], salaryBandMinIdr: 1 });
    expect(req.submission).toEqual(submission);
    req.submission.jobSpec.mustHaves.push('Rust');
    req.submission.candidate.kind = 'resume_ref';
    expect(req.submission).toEqual(submission);
    expect(req.tenantId).toBe('ten_1');
  });

  it('has no score until scored, then the scorer result for its submission', () => {
    for (const candidate of [
      { kind: 'structured', fullName: 'Ani', summary: 'Senior TypeScript engineer, 6 years of Postgres.', skills: ['TypeScript', 'AWS'], experienceYears: 6 },
      { kind: 'resume_ref', resumeRef: 'res_demo_backend' },
    ]) {
      const { submission, req } = make(candidate, { title: 'Senior Backend Engineer', mustHaves: ['TypeScript', 'Postgres'], niceToHaves: ['Kubernetes'] });
      expect(req.score).toBeNull();
      req.scored = true;
      const parsed = parseCandidate(submission.candidate, resumes);
      if (!parsed.ok) throw new Error(parsed.reason);
      expect(req.score).toEqual(scoreCandidate(parsed.profile, submission.jobSpec));
      expect(req.score).not.toBe(req.score);
    }
  });

  it('shares one stored job spec between requests that sent the same one', () => {
    const table = new JobSpecTable();
    const spec = { title: 'Dev', mustHaves: ['Go'] };
    expect(table.intern(spec)).toBe(table.intern({ ...spec }));
    expect(table.intern({ ...spec, title: 'Other' })).not.toBe(table.intern(spec));
  });
});
