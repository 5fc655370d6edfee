// The screening domain's own vocabulary: the request as the sandbox keeps it, the scorer's view of a
// candidate and a reviewer's edits. Every shape the API exchanges (the submission, its candidate and
// job spec, ScoreResultV1, ReviewDecisionV1, the states) is the contract's generated type, named here
// once for the domain. Requirements: SCR-STATE-1 (the ten states); decisions D-02, D-04.

import type {
  CandidateBlob,
  JobSpec,
  ReviewDecisionV1,
  ScoreDimension,
  ScoreResultV1,
  ScreeningState,
  StructuredCandidate,
  ResumeRefCandidate,
  SubmitRequest,
  Same,
} from '../../contract/types.js';
import type { LedgerRow } from './ledger.js';

export type {
  CandidateBlob,
  JobSpec,
  ResumeRefCandidate,
  ReviewDecisionV1,
  ScoreDimension,
  ScoreResultV1,
  ScreeningState,
  StructuredCandidate,
};
/** A submit body, as the contract has validated it. */
export type Submission = SubmitRequest;
export type Decision = ReviewDecisionV1['decision'];

// Runtime lists of the contract's enums (for checks and messages); the typecheck fails if they drift.
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
export const DECISIONS = ['approved', 'rejected', 'edited'] as const;
export const LISTS_MATCH_CONTRACT: [
  Same<(typeof SCREENING_STATES)[number], ScreeningState>,
  Same<(typeof DECISIONS)[number], Decision>,
] = [true, true];

export const isScreeningState = (v: unknown): v is ScreeningState =>
  typeof v === 'string' && (SCREENING_STATES as readonly string[]).includes(v);

/** What the scorer reads, whichever variant the candidate came in. */
export interface CandidateProfile {
  name: string;
  summary: string;
  skills: string[];
  experienceYears: number | null;
  /** Where the data came from, quoted in evidence ("resume res_demo_backend"). */
  source: string;
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
