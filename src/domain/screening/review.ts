// Human review: a reviewer approves, rejects or edits a scored request that is pending review. The
// console and the control API both call `decide`; the result becomes a ReviewDecisionV1.
// Requirements: SCR-REVIEW-2, SCR-LEDGER-3, SCR-HOOK-5, POL-REVIEW-1; decisions D-04, D-41.

import type { CoreContext } from '../context.js';
import { invalid, notFound } from '../../errors/errors.js';
import { limits } from '../plans.js';
import type { Pipeline } from './pipeline.js';
import type { RequestStore } from './requests.js';
import { DECISIONS, type Decision, type ReviewDecisionV1, type ReviewEdits, type ScreeningRequest } from './types.js';

export interface DecisionInput {
  decision: Decision;
  reviewerId: string;
  reviewerRole?: string;
  note?: string;
  editedScore?: number;
  editedRationale?: string;
}

export const DEFAULT_REVIEWER_ROLE = 'recruiter';
// printable, no surrounding spaces: it becomes the ledger actor `reviewer:<id>`
const REVIEWER_ID = /^[^\s\p{C}](?:[^\p{C}]{0,198}[^\s\p{C}])?$/u;

function check(input: DecisionInput): ReviewEdits | null {
  if (!(DECISIONS as readonly string[]).includes(input.decision))
    throw invalid(`decision must be one of ${DECISIONS.join(', ')}`, 'decision');
  if (typeof input.reviewerId !== 'string' || !REVIEWER_ID.test(input.reviewerId)) {
    throw invalid('reviewerId must be 1 to 200 printable characters without leading or trailing spaces', 'reviewerId');
  }
  if (
    input.reviewerRole !== undefined &&
    (typeof input.reviewerRole !== 'string' || input.reviewerRole.trim() === '' || input.reviewerRole.length > 200)
  ) {
    throw invalid('reviewerRole must be a non-empty string of at most 200 characters', 'reviewerRole');
  }
  if (
    input.note !== undefined &&
    (typeof input.note !== 'string' || input.note.length > limits.policy.stringMaxLength)
  ) {
    throw invalid(`note must be a string of at most ${limits.policy.stringMaxLength} characters`, 'note');
  }
  const { editedScore, editedRationale } = input;
  if (
    editedScore !== undefined &&
    (typeof editedScore !== 'number' || !Number.isFinite(editedScore) || editedScore < 0 || editedScore > 100)
  ) {
    throw invalid('editedScore must be a number from 0 to 100', 'editedScore');
  }
  if (
    editedRationale !== undefined &&
    (typeof editedRationale !== 'string' ||
      editedRationale.trim() === '' ||
      editedRationale.length > limits.policy.stringMaxLength)
  ) {
    throw invalid(
      `editedRationale must be a non-empty string of at most ${limits.policy.stringMaxLength} characters`,
      'editedRationale',
    );
  }
  const edited = editedScore !== undefined || editedRationale !== undefined;
  if (input.decision === 'edited' && !edited)
    throw invalid("decision 'edited' needs editedScore or editedRationale", 'editedScore');
  if (input.decision !== 'edited' && edited) {
    throw invalid(
      `editedScore and editedRationale are only allowed with decision 'edited' (got '${input.decision}')`,
      editedScore !== undefined ? 'editedScore' : 'editedRationale',
    );
  }
  if (!edited) return null;
  return {
    ...(editedScore !== undefined ? { editedScore } : {}),
    ...(editedRationale !== undefined ? { editedRationale } : {}),
  };
}

export function decide(
  ctx: CoreContext,
  requests: RequestStore,
  pipeline: Pipeline,
  requestId: string,
  input: DecisionInput,
): ScreeningRequest {
  const req = requests.get(requestId);
  if (!req) throw notFound(`no screening request ${requestId}`);
  const edits = check(input);
  if (req.state !== 'pending_review') {
    throw invalid(
      `request ${requestId} is in state '${req.state}'; only a request in 'pending_review' can be decided`,
      'state',
    );
  }
  const decision: ReviewDecisionV1 = {
    schemaVersion: 1,
    decision: input.decision,
    reviewerId: input.reviewerId,
    reviewerRole: input.reviewerRole ?? DEFAULT_REVIEWER_ROLE,
    latencyMs: Math.max(0, ctx.clock.of(req.tenantId).now() - (req.queuedForReviewAt ?? req.createdAt)),
  };
  if (input.note !== undefined) decision.note = input.note;
  pipeline.decide(req, decision, edits);
  return req;
}
