import { describe, expect, it } from 'vitest';
import { JobSpecTable } from './jobSpecs.js';
import { Ledger } from './ledger.js';
import { decodeCandidate, encodeCandidate, StoredRequest } from './record.js';
import { loadResumes, parseCandidate } from './resumes.js';
import { scoreCandidate, scoreTemplate } from './scorer.js';
import type { CandidateBlob, JobSpec, Submission } from './types.js';

describe('stored candidates', () => {
  it("come back equal, keys in the contract's order", () => {
    const bodies: CandidateBlob[] = [
      { kind: 'resume_ref', resumeRef: 'res_demo_backend' },
      { filename: 'cv.pdf', resumeRef: 'res_x', kind: 'resume_ref' },
      { kind: 'structured', fullName: 'Sari' },
      {
        experienceYears: 0,
        skills: [],
        summary: '',
        phone: '+62',
        email: 'a@b.c',
        fullName: 'Q "x" \\ 😀',
        kind: 'structured',
      },
      { kind: 'structured', fullName: 'Budi', skills: ['Go', 'k8s'], experienceYears: 2.5 },
    ];
    const order = {
      resume_ref: ['kind', 'resumeRef', 'filename'],
      structured: ['kind', 'fullName', 'email', 'phone', 'summary', 'skills', 'experienceYears'],
    };
    for (const candidate of bodies) {
      const back = decodeCandidate(encodeCandidate(candidate));
      expect(back).toEqual(candidate);
      expect(Object.keys(back)).toEqual(order[candidate.kind].filter((k) => k in candidate));
    }
  });
});

describe('StoredRequest', () => {
  const resumes = loadResumes();
  const make = (candidate: CandidateBlob, jobSpec: JobSpec, createdAt = 1000) => {
    const submission: Submission = { idempotencyKey: 'key-1', candidate, jobSpec };
    const req = new StoredRequest(
      'scr_1',
      submission.idempotencyKey,
      createdAt,
      new Ledger().rowsFor('ten_1'),
      encodeCandidate(submission.candidate),
      new JobSpecTable().intern(submission.jobSpec),
    );
    return { submission, req };
  };

  it('gives its submission back as fresh copies', () => {
    const { submission, req } = make(
      { kind: 'structured', fullName: 'Sari', skills: ['Go'] },
      { title: 'Dev', mustHaves: ['Go'], salaryBandMinIdr: 1 },
    );
    expect(req.submission).toEqual(submission);
    req.submission.jobSpec.mustHaves.push('Rust');
    req.submission.candidate.kind = 'resume_ref';
    expect(req.submission).toEqual(submission);
    expect(req.tenantId).toBe('ten_1');
  });

  it('has no score until scored, then the kept result, a fresh copy on each read', () => {
    for (const candidate of <CandidateBlob[]>[
      {
        kind: 'structured',
        fullName: 'Ani',
        summary: 'Senior TypeScript engineer, 6 years of Postgres.',
        skills: ['TypeScript', 'AWS'],
        experienceYears: 6,
      },
      { kind: 'resume_ref', resumeRef: 'res_demo_backend' },
    ]) {
      const { submission, req } = make(candidate, {
        title: 'Senior Backend Engineer',
        mustHaves: ['TypeScript', 'Postgres'],
        niceToHaves: ['Kubernetes'],
      });
      expect(req.score).toBeNull();
      const parsed = parseCandidate(submission.candidate, resumes);
      if (!parsed.ok) throw new Error(parsed.reason);
      const score = scoreCandidate(parsed.profile, submission.jobSpec);
      req.keepScore(
        JSON.stringify(scoreTemplate(parsed.profile, submission.jobSpec)),
        candidate.kind === 'structured' ? null : parsed.profile.name,
      );
      expect(req.score).toEqual(score);
      expect(req.score).not.toBe(req.score);
    }
  });

  it('shares one stored job spec between requests that sent the same one', () => {
    const table = new JobSpecTable();
    const spec = { title: 'Dev', mustHaves: ['Go'] };
    expect(table.intern(spec)).toBe(table.intern({ ...spec }));
    expect(table.intern({ ...spec, title: 'Other' })).not.toBe(table.intern(spec));
  });

  it('gives its times back as they were set, kept as two small integers each (D-199)', () => {
    for (const t of [Date.UTC(2026, 10, 29, 21, 30, 12, 345), 1000, 0, 1.5, 2 ** 53 + 2]) {
      const { req } = make({ kind: 'structured', fullName: 'Sari' }, { title: 'Dev', mustHaves: ['Go'] }, t);
      expect(req.createdAt).toBe(t);
      expect(req.exportState().createdAt).toBe(t);
      expect(req.queuedForReviewAt).toBeNull();
      req.queuedForReviewAt = t + 7;
      expect(req.queuedForReviewAt).toBe(t + 7);
      req.queuedForReviewAt = null;
      expect(req.queuedForReviewAt).toBeNull();
    }
  });

  it('keeps its stamp until any field of its export changes, then takes one no request had (D-161, D-198)', () => {
    const { req } = make({ kind: 'structured', fullName: 'Sari' }, { title: 'Dev', mustHaves: ['Go'] });
    const other = make({ kind: 'structured', fullName: 'Ana' }, { title: 'Dev', mustHaves: ['Go'] }).req;
    // every field an export holds that the request lets change (derived from the export: what is not readonly)
    const changes: Record<string, (r: StoredRequest) => void> = {
      state: (r) => (r.state = 'parsed'),
      decision: (r) => (r.decision = { decision: 'approved' } as StoredRequest['decision']),
      edits: (r) => (r.edits = { note: 'x' } as unknown as StoredRequest['edits']),
      queuedForReviewAt: (r) => (r.queuedForReviewAt = 5),
      firstRow: (r) => (r.firstRow = 7),
      lastRow: (r) => (r.lastRow = 9),
      scoreText: (r) => r.keepScore('{"t":1}', 'N'),
      scoreName: (r) => r.keepScore('{"t":1}', 'M'),
    };
    const fixed = ['id', 'idempotencyKey', 'createdAt', 'candidate', 'jobSpec'];
    expect(Object.keys(req.exportState()).sort()).toEqual([...fixed, ...Object.keys(changes)].sort());
    const seen = new Set([other.stamp]);
    for (const [field, change] of Object.entries(changes)) {
      const before = req.stamp;
      expect(seen.has(before), field).toBe(false);
      seen.add(before);
      // reads change nothing
      req.exportState();
      req.candidate();
      expect(req.stamp, field).toBe(before);
      change(req);
      expect(req.stamp, field).not.toBe(before);
    }
    expect(seen.has(req.stamp)).toBe(false);
  });
});
