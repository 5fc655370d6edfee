// Screening domain: submissions, idempotency, the pipeline, review decisions and the audit ledger.
// It knows nothing of HTTP; the REST adapter and the control API call the functions returned here.
// Requirements: SCR-SUBMIT-1, SCR-USAGE-1, SCR-USAGE-2, SCR-USAGE-3, SCR-USAGE-4, SCR-USAGE-5, SCR-USAGE-6,
// SCR-USAGE-7, SCR-AUDIT-1, SCR-AUDIT-2, SCR-AUDIT-3, SCR-AUDIT-4, SCR-AUDIT-5, SCR-AUDIT-6, SCR-REVIEW-1,
// SCR-REVIEW-2 (through the modules it wires).

import type { CoreContext } from '../context.js';
import type { Tenant } from '../tenants.js';
import type { WebhookService } from '../webhooks/index.js';
import { type AuditQuery, auditPage, auditPageBody } from './audit.js';
import { CursorCodec } from './cursor.js';
import { AutoReviewer } from './autoReview.js';
import { Pipeline } from './pipeline.js';
import type { RequestFilter } from './requests.js';
import { loadResumes } from './resumes.js';
import { type DecisionInput, decide } from './review.js';
import type { AutoReview } from './autoReview.js';
import { submit } from './submit.js';
import type { Submission } from './types.js';
import { usageOf } from './usage.js';
import type { ScreeningService, ScreeningTenantState } from './service.js';
import type { StoredJobSpec } from './jobSpecs.js';
import { RequestCopy, StoredRequest, type StoredRequestState } from './record.js';
import { LazyList } from '../lazyList.js';
import { finish, type Sliced } from '../slices.js';
import type { TenantRows } from './tenantRows.js';

/** A tenant's rows and requests made from its export (`restore`), before they are put in place. */
interface Restored {
  rows: TenantRows;
  requests: StoredRequest[];
}
/** Rows and requests made between two pauses when a tenant's import is prepared in slices (D-170). */
const PREPARE_EVERY = 64;

/** The source a tenant's requests are written from (D-161): one per row store, which a reset or a forget replaces. */
const requestSources = new WeakMap<object, object>();
const requestsSourceOf = (rows: object): object => {
  let source = requestSources.get(rows);
  if (!source) requestSources.set(rows, (source = {}));
  return source;
};

export function createScreening(ctx: CoreContext, webhooks: WebhookService): ScreeningService {
  const { ledger, requests } = ctx.store;
  const cursors = new CursorCodec(ctx.store.cursorSecret);
  const resumes = loadResumes();
  const pipeline = new Pipeline(ctx, ledger, requests, webhooks, resumes);
  // the automatic reviewer decides through the same function as a person (D-134)
  const autoReviewer = new AutoReviewer(ctx, requests, (requestId, input) =>
    decide(ctx, requests, pipeline, requestId, input),
  );
  pipeline.onQueued = (req) => autoReviewer.queued(req);
  const requestOf = (id: string): StoredRequest => {
    const req = requests.get(id);
    if (!req) throw new Error(`snapshot: a timer refers to request ${id}, which the snapshot does not hold`);
    return req;
  };

  /** A tenant's rows and requests made from its export, not yet in place; pauses after every `every` of them. */
  function* restore(tenantId: string, state: ScreeningTenantState, every: number): Sliced<Restored> {
    const rows = yield* ledger.buildRows(tenantId, state.rows, state.seq, every);
    const jobs = new Map<number, StoredJobSpec>();
    const jobOf = (i: number) => jobs.get(i) ?? jobs.set(i, pipeline.jobOf(state.texts[i])).get(i)!;
    // a lazy export read back without JSON (its texts are numbered as its requests are read: those first)
    const listed = state.requests instanceof LazyList ? Array.from(state.requests) : state.requests;
    const out: StoredRequest[] = [];
    for (const s of listed) {
      out.push(
        StoredRequest.fromState(
          { ...s, jobSpec: state.texts[s.jobSpec], scoreText: s.scoreText === null ? null : state.texts[s.scoreText] },
          rows,
          jobOf(s.jobSpec),
        ),
      );
      if (out.length % every === 0) yield;
    }
    return { rows, requests: out };
  }
  /** What `prepareTenant` made, by the export it was made from (dropped with it when no import follows). */
  const made = new WeakMap<ScreeningTenantState, Restored>();

  return {
    /** The stores, for the control API, benchmarks and tests that seed at scale. */
    ledger,
    requests,
    resumes,
    /** `submission` must have passed the contract's SubmitRequest validation. */
    submit: (tenant: Tenant, submission: Submission) => submit(ctx, requests, pipeline, tenant, submission),
    usage: (tenant: Tenant) => usageOf(ctx, tenant),
    audit: (tenantId: string, query: AuditQuery) => auditPage(ctx, ledger, cursors, tenantId, query),
    /** The same page as JSON text, built without intermediate objects (for the REST adapter). */
    auditBody: (tenantId: string, query: AuditQuery) => auditPageBody(ctx, ledger, cursors, tenantId, query),
    decide: (requestId: string, input: DecisionInput) => decide(ctx, requests, pipeline, requestId, input),
    /** Sets a tenant's automatic reviewer; its requests already pending review get their timer from now. */
    setAutoReview: (tenant: Tenant, setting: AutoReview | null) => {
      tenant.autoReview = setting;
      autoReviewer.enabled(tenant);
    },
    get: (requestId: string) => requests.get(requestId),
    exportTenant(tenantId: string, lazy = false): ScreeningTenantState {
      const texts: string[] = [];
      const index = new Map<string, number>();
      const ref = (text: string): number => {
        let i = index.get(text);
        if (i === undefined) index.set(text, (i = texts.push(text) - 1));
        return i;
      };
      const withRefs = (s: Readonly<StoredRequestState>) => ({
        ...s,
        jobSpec: ref(s.jobSpec),
        scoreText: s.scoreText === null ? null : ref(s.scoreText),
      });
      const ordered = requests.ordered(tenantId);
      // lazy (a snapshot's): each request's export as it stands now, made when read (a request that changes first
      // keeps it for the copy), its texts numbered as the list is read; so `texts` comes after `requests`
      let reqs: ScreeningTenantState['requests'];
      if (lazy) {
        // the requests now, each one's export made when read as it was now (D-167): the copy costs a list, not an
        // export of every request changed since the last copy
        const copy = new RequestCopy(tenantId, ordered.slice());
        const rows = ledger.storeOf(tenantId);
        reqs = new LazyList(
          ordered.length,
          (i) => withRefs(copy.at(i)),
          (i) => JSON.stringify(withRefs(copy.at(i))),
          rows && {
            source: requestsSourceOf(rows),
            // what a request's text depends on (its stamp and its texts' numbers), as it was when the copy was taken:
            // the same while both are (a writer keeps the text of a block of unchanged requests, D-161, D-198)
            token: (i, into) => copy.tokenInto(i, ref, into),
            passed: (first, count) => copy.pass(first, count),
          },
        );
        copy.closeWith(reqs);
      } else reqs = ordered.map((r) => withRefs(r.exportState()));
      return { rows: ledger.exportTenant(tenantId, lazy), seq: ledger.seqOfTenant(tenantId), requests: reqs, texts };
    },
    /**
     * Makes, in slices, what importing `state` makes (its rows and requests), so that `importTenant` of the same
     * `state` object only puts them in place (D-170). Nothing of the tenant in memory changes.
     */
    *prepareTenant(tenantId: string, state: ScreeningTenantState): Sliced {
      made.set(state, yield* restore(tenantId, state, PREPARE_EVERY));
    },
    /** Restores a tenant's rows and requests (made ahead by `prepareTenant`, or now); their timers come back through rearm(). */
    importTenant(tenantId: string, state: ScreeningTenantState): void {
      let ready = made.get(state);
      made.delete(state);
      // made ahead against a ledger that a reset has since replaced: made again
      if (!ready || ready.rows.tenantId !== tenantId || !ledger.adoptRows(ready.rows)) {
        ready = finish(restore(tenantId, state, Infinity));
        ledger.adoptRows(ready.rows);
      }
      requests.importTenant(tenantId, ready.requests);
    },
    forgetTenant(tenantId: string): void {
      for (const r of requests.ordered(tenantId)) pipeline.cancelExpiry(r);
      requests.forgetTenant(tenantId);
      ledger.forgetTenant(tenantId);
    },
    /** The timers of a restored request, by their label: its review expiry, its automatic decision. */
    rearm: {
      'review expiry': (requestId: string, at: number) => pipeline.rearmExpiry(requestOf(requestId), at),
      'auto review': (requestId: string, at: number) => autoReviewer.rearm(requestOf(requestId), at),
    },
    list: (filter?: RequestFilter) => requests.list(filter),
    reset() {
      for (const r of requests.list()) pipeline.cancelExpiry(r);
      requests.reset();
      ledger.reset();
      pipeline.reset();
    },
  };
}

export type { ScreeningService } from './service.js';
export type { AuditQuery, AuditPage } from './audit.js';
export type { AuditEvent } from './ledger.js';
export type { DecisionInput } from './review.js';
export * from './types.js';
