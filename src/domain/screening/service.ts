// What the screening domain offers its adapters: submissions with idempotency, usage, the audit ledger's
// pages, review decisions and the automatic reviewer, and the stores the control API reads. Built by
// createScreening (index.ts).
// Requirements: SCR-SUBMIT-1, SCR-USAGE-1, SCR-AUDIT-1, SCR-REVIEW-1, SCR-REVIEW-2 (through the modules it
// names); decisions D-134.

import type { Resettable } from '../context.js';
import type { LazyList } from '../lazyList.js';
import type { Sliced } from '../slices.js';
import type { Tenant } from '../tenants.js';
import type { AuditPage, AuditQuery } from './audit.js';
import type { AutoReview } from './autoReview.js';
import type { Ledger, LedgerRowState } from './ledger.js';
import type { StoredRequest, StoredRequestState } from './record.js';
import type { RequestFilter, RequestStore } from './requests.js';
import type { ResumeFixture } from './resumes.js';
import type { DecisionInput } from './review.js';
import type { SubmitOutcome } from './submit.js';
import type { ScreeningRequest, Submission } from './types.js';
import type { ScreeningUsage } from './usage.js';

/** A request as a tenant's export holds it: its job spec and score text as indexes into the export's texts. */
export type ExportedRequest = Omit<StoredRequestState, 'jobSpec' | 'scoreText'> & {
  jobSpec: number;
  scoreText: number | null;
};

/** A tenant's screening state in a snapshot: its ledger rows and its requests (D-137). */
export interface ScreeningTenantState {
  /** As a snapshot exports them, a list made when read (D-151); as one is read back, an array. */
  rows: LedgerRowState[] | LazyList<LedgerRowState>;
  /** The number of the tenant's latest ledger row: its sequence goes on after it (D-147). */
  seq: number;
  /**
   * As a snapshot exports them, a list made when read, of each request as it stood at the export (D-167); as one is
   * read back, an array.
   */
  requests: ExportedRequest[] | LazyList<ExportedRequest>;
  /**
   * The job specs and score texts, each once (requests share them): requests refer to them by index. After
   * `requests`: a lazy export numbers them as its requests are read.
   */
  texts: string[];
}

export interface ScreeningService extends Resettable {
  /** The stores, for the control API, benchmarks and tests that seed at scale. */
  readonly ledger: Ledger;
  readonly requests: RequestStore;
  /** The resume fixtures a `resume_ref` candidate names, by reference (a test may take one away). */
  readonly resumes: Map<string, ResumeFixture>;
  /** `submission` must have passed the contract's SubmitRequest validation. */
  submit(tenant: Tenant, submission: Submission): SubmitOutcome;
  /** The tenant's wallet as GET /usage reports it. */
  usage(tenant: Tenant): ScreeningUsage;
  /** One page of the tenant's audit ledger. */
  audit(tenantId: string, query: AuditQuery): AuditPage;
  /** The same page as JSON text, built without intermediate objects (for the REST adapter). */
  auditBody(tenantId: string, query: AuditQuery): Buffer<ArrayBuffer>;
  /** A person's review decision on a request pending review. */
  decide(requestId: string, input: DecisionInput): ScreeningRequest;
  /** Sets a tenant's automatic reviewer; its requests already pending review get their timer from now. */
  setAutoReview(tenant: Tenant, setting: AutoReview | null): void;
  get(requestId: string): StoredRequest | undefined;
  list(filter?: RequestFilter): StoredRequest[];
  /** Empties the requests and the ledger and cancels every pending expiry. */
  reset(): void;
  /** A tenant's ledger rows and requests for a snapshot (D-137). */
  /** A tenant's rows and requests, JSON-safe; `lazy`: its rows a list made when read (a snapshot's, D-151). */
  exportTenant(tenantId: string, lazy?: boolean): ScreeningTenantState;
  /** Makes in slices what `importTenant` of the same `state` then only puts in place (D-170). */
  prepareTenant(tenantId: string, state: ScreeningTenantState): Sliced;
  /** Restores a tenant's rows and requests; their timers come back through `rearm`. */
  importTenant(tenantId: string, state: ScreeningTenantState): void;
  /** Drops every request and ledger row of a tenant, and their pending expiries. */
  forgetTenant(tenantId: string): void;
  /** The timers of a restored request, by their label: its review expiry, its automatic decision. */
  readonly rearm: Record<'review expiry' | 'auto review', (requestId: string, at: number) => void>;
}
