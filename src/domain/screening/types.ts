// The screening domain's vocabulary: submissions as the API accepts them, requests as the sandbox
// keeps them, and the two result documents a webhook carries (ScoreResultV1, ReviewDecisionV1).

import type { LedgerRow } from './ledger.js';

export const SCREENING_STATES = [
  'received',
  'parsed',
  'scored',
  'pending_review',
  'approved',
  'rejected',
  'edited',
  'delivered',
  'failed',
  'expired',
] as const;
export type ScreeningState = (typeof SCREENING_STATES)[number];

export const isScreeningState = (v: unknown): v is ScreeningState =>
  typeof v === 'string' && (SCREENING_STATES as readonly string[]).includes(v);

export const DECISIONS = ['approved', 'rejected', 'edited'] as const;
export type Decision = (typeof DECISIONS)[number];

export interface ResumeRefCandidate {
  kind: 'resume_ref';
  resumeRef: string;
  filename?: string;
}

export interface StructuredCandidate {
  kind: 'structured';
  fullName: string;
  email?: string;
  phone?: string;
  summary?: string;
  skills?: string[];
  experienceYears?: number;
}

export type CandidateBlob = ResumeRefCandidate | StructuredCandidate;

export interface JobSpec {
  title: string;
  mustHaves: string[];
  niceToHaves?: string[];
  salaryBandMinIdr?: number;
  salaryBandMaxIdr?: number;
  description?: string;
}

export interface Submission {
  idempotencyKey: string;
  candidate: CandidateBlob;
  jobSpec: JobSpec;
}

/** What the scorer reads, whichever variant the candidate came in. */
export interface CandidateProfile {
  name: string;
  summary: string;
  skills: string[];
  experienceYears: number | null;
  /** Where the data came from, quoted in evidence ("resume res_demo_backend"). */
  source: string;
}

export interface ScoreDimension {
  name: string;
  score: number;
  evidence: string;
}

export interface ScoreResultV1 {
  schemaVersion: 1;
  score: number;
  dimensions: ScoreDimension[];
  rationale: string;
  confidence: number;
  modelId: string;
  promptVersion: string;
}

export interface ReviewDecisionV1 {
  schemaVersion: 1;
  decision: Decision;
  reviewerId: string;
  reviewerRole: string;
  latencyMs: number;
  note?: string;
}

/** A reviewer's correction of the model's result, kept beside the decision when it is `edited`. */
export interface ReviewEdits {
  editedScore?: number;
  editedRationale?: string;
}

/** A screening request as the domain hands it out (see record.ts for how it is stored). */
export interface ScreeningRequest {
  readonly id: string;
  readonly tenantId: string;
  readonly idempotencyKey: string;
  state: ScreeningState;
  /** The submission as accepted (a fresh copy on each read). */
  readonly submission: Submission;
  readonly createdAt: number;
  /** The model's result once scored (a fresh copy on each read). */
  readonly score: ScoreResultV1 | null;
  decision: ReviewDecisionV1 | null;
  edits: ReviewEdits | null;
  /** When the request entered pending_review (ms), for the review latency and the expiry. */
  queuedForReviewAt: number | null;
  /** This request's ledger rows, in order. */
  readonly rows: readonly LedgerRow[];
}
