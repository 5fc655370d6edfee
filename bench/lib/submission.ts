// A valid SubmitRequest (structured candidate, full job spec), the same in load runs and in-process
// seeding, so every benchmark exercises the same pipeline path.

import type { SubmitRequest } from '../../src/contract/types.js';

export function submission(idempotencyKey: string, n: number): SubmitRequest {
  return {
    idempotencyKey,
    candidate: {
      kind: 'structured',
      fullName: `Bench Candidate ${n}`,
      email: `candidate${n}@example.com`,
      summary: 'Backend engineer with seven years of TypeScript and PostgreSQL, remote since 2019.',
      skills: ['TypeScript', 'Node.js', 'PostgreSQL', 'AWS'],
      experienceYears: 7,
    },
    jobSpec: {
      title: 'Senior Backend Engineer',
      mustHaves: ['TypeScript', 'PostgreSQL'],
      niceToHaves: ['AWS', 'Kubernetes'],
      salaryBandMinIdr: 25_000_000,
      salaryBandMaxIdr: 45_000_000,
      description: 'Build and run the payments API for a remote-first team.',
    },
  };
}
