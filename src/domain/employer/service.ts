// What the employer domain offers the keyed MCP tools, the checkout pages and the control API: the
// candidate pool's searches (match_candidates, talent_search), post_job, hire, the seeker's
// draft_application with its monthly quota, the curated lists, and the outbox and postings they write.
// Each tool's answer is the contract's output type for that tool. Built by createEmployer (index.ts).
// Requirements: MCP-TOOL-4, MCP-TOOL-8, MCP-TOOL-9, MCP-TOOL-10, MCP-TOOL-11, MCP-TOOL-12, MCP-TOOL-13 (through the
// modules it names); decisions D-31, D-32, D-47, D-48, D-49.

import type {
  AnonGetCuratedListOutput,
  KeyedDraftApplicationOutput,
  KeyedHireOutput,
  KeyedMatchCandidatesOutput,
  KeyedPostJobOutput,
  KeyedTalentSearchOutput,
} from '../../contract/types.js';
import type { Resettable } from '../context.js';
import type { Principal } from '../tenants.js';
import type { Candidate } from './candidatePool.js';
import type { QuotaState } from './draftQuota.js';
import type { DraftInput } from './drafting.js';
import type { HireArgs } from './hire.js';
import type { EmployerSearchArgs } from './matchCandidates.js';
import type { Outbox } from './outbox.js';
import type { PostJobArgs } from './postJob.js';
import type { Postings } from './postings.js';

export interface EmployerService extends Resettable {
  /** The whole pool, personal data included: for tests and fixtures only, never for output. */
  pool(): readonly Candidate[];
  /** Mail the employer tools send (shortlists, forwarded applicants). */
  readonly outbox: Outbox;
  /** Job-post orders and free listings. */
  readonly postings: Postings;
  /** match_candidates: the pool ranked against the criteria, anonymized. */
  matchCandidates(args: EmployerSearchArgs & { limit?: number }): KeyedMatchCandidatesOutput;
  /** 50 calls a day per key (limits.spec.talentSearchPerDay); a call with bad arguments is not counted. */
  talentSearch(principal: Principal, args: EmployerSearchArgs): KeyedTalentSearchOutput;
  /** post_job: an order with its checkout link, or the scam check's verdict, and what to do next. */
  postJob(principal: Principal, args: PostJobArgs): KeyedPostJobOutput;
  /** hire: a shortlist e-mailed to the contact, or a free listing that passed the scam check. */
  hire(principal: Principal, args: HireArgs): KeyedHireOutput;
  /** draft_application: a grounded cover letter and resume for one active job, counted against the quota. */
  draftApplication(principal: Principal, jobId: string, input: DraftInput): KeyedDraftApplicationOutput;
  /** The tenant's draft quota this month, without spending any. */
  draftQuota(principal: Principal): QuotaState;
  /** get_curated_list: a curated list by category, or every category. */
  curatedList(category?: string): AnonGetCuratedListOutput;
  /** Empties the outbox, the postings, the draft quotas and the reply tokens. */
  reset(): void;
  /** The reply-token generator's position: global in a snapshot (D-137). */
  exportState(): { rng: number };
  importState(state: { rng: number }): void;
  /** A tenant's reply tokens, by job id, and its token stream (D-143). */
  exportTenant(tenantId: string): EmployerTenantState;
  importTenant(tenantId: string, state: EmployerTenantState): void;
  forgetTenant(tenantId: string): void;
}

/** A tenant's part of the employer tools in a snapshot: its reply tokens by job id, its token stream's position. */
export interface EmployerTenantState {
  tokens: Record<string, string>;
  rng: number | null;
}
