// The planted violations: each switch breaks one rule the two documents state, under that rule's requirement id.

import { JOBS_MCP_VIOLATIONS } from './violations-jobs.js';

export interface Violation {
  name: string;
  requirement: string;
  what: string;
}

export const VIOLATIONS: readonly Violation[] = [
  // screening: idempotency and credits
  { name: 'replay-charges', requirement: 'SCR-IDEMP-3', what: 'a replayed idempotency key charges a second credit' },
  { name: 'replay-201', requirement: 'SCR-IDEMP-1', what: 'a replay is answered 201 instead of 200' },
  {
    name: 'replay-duplicates',
    requirement: 'SCR-IDEMP-2',
    what: 'a replay creates a second request with its own intake row',
  },
  { name: 'no-charge', requirement: 'SCR-CREDIT-1', what: 'a new request charges nothing' },
  { name: 'upsell-missing', requirement: 'SCR-CREDIT-5', what: 'the 402 on submit carries no `upsell`' },
  { name: 'jobspec-open', requirement: 'SCR-SUBMIT-7', what: 'unknown jobSpec properties are accepted' },
  { name: 'bad-json-500', requirement: 'SCR-SUBMIT-8', what: 'a body that is not JSON is answered 500' },
  // screening: usage and audit
  { name: 'near-limit-never', requirement: 'SCR-USAGE-4', what: '`nearLimit` stays false even at 80% or more used' },
  { name: 'usage-percent-scale', requirement: 'SCR-USAGE-3', what: '`usagePercent` is reported on a 0..100 scale' },
  { name: 'usage-other-tenant', requirement: 'SCR-AUTH-4', what: "usage reports another tenant's wallet" },
  { name: 'audit-other-tenant', requirement: 'SCR-AUDIT-3', what: "the audit export includes other tenants' rows" },
  {
    name: 'audit-cursor-repeat',
    requirement: 'SCR-AUDIT-4',
    what: 'each page repeats the last row of the previous page',
  },
  { name: 'since-reapplied', requirement: 'SCR-AUDIT-5', what: '`since` still filters pages fetched with a cursor' },
  { name: 'audit-limit-600', requirement: 'SCR-AUDIT-2', what: 'audit `limit` up to 1000 is accepted' },
  // screening: ledger, review and webhooks
  { name: 'ledger-skip-scored', requirement: 'SCR-LEDGER-1', what: 'the scoring transition writes no ledger row' },
  { name: 'actor-model', requirement: 'SCR-LEDGER-3', what: "the scoring row's actor is `model:scorer`" },
  {
    name: 'review-skipped',
    requirement: 'SCR-STATE-2',
    what: 'review_decided is sent and the request delivered with no human decision',
  },
  {
    name: 'hook-wrong-secret',
    requirement: 'SCR-HOOK-7',
    what: "deliveries are signed with a secret other than the tenant's",
  },
  {
    name: 'hook-compact-signature',
    requirement: 'SCR-HOOK-7',
    what: 'the signature covers compact JSON while pretty-printed bytes are sent',
  },
  { name: 'score-no-rationale', requirement: 'SCR-HOOK-4', what: 'ScoreResultV1 lacks `rationale`' },
  {
    name: 'schema-version-2',
    requirement: 'SCR-VER-3',
    what: 'ScoreResultV1 and ReviewDecisionV1 carry schemaVersion 2',
  },
  { name: 'hook-no-tenant', requirement: 'SCR-HOOK-3', what: 'delivery bodies lack `tenantId`' },
  // jobs API
  { name: 'no-remaining-header', requirement: 'JOB-RATE-1', what: '/api/v1 responses lack X-RateLimit-Remaining' },
  { name: 'no-retry-after', requirement: 'JOB-RATE-3', what: '429 on /api/v1 carries no Retry-After' },
  { name: 'free-limit-100', requirement: 'JOB-RATE-2', what: 'the free tier is limited to 100 a minute, not 60' },
  {
    name: 'sponsored-on-paid',
    requirement: 'JOB-SEARCH-7',
    what: 'paid-tier search results contain sponsored listings',
  },
  { name: 'free-no-page-cap', requirement: 'JOB-TIER-2', what: 'the free tier can page past 5 pages' },
  { name: 'search-limit-51', requirement: 'JOB-SEARCH-3', what: 'search `limit` up to 100 is accepted' },
  { name: 'remote-filter-ignored', requirement: 'JOB-SEARCH-5', what: '`remote_type` is accepted but not applied' },
  { name: 'has-more-always', requirement: 'JOB-SEARCH-8', what: '`hasMore` is always true' },
  { name: 'inactive-served', requirement: 'JOB-GET-2', what: 'GET /jobs/{id} serves inactive jobs' },
  { name: 'apply-on-free', requirement: 'JOB-APPLY-1', what: 'a free-tier key may apply' },
  { name: 'apply-charges-two', requirement: 'JOB-APPLY-2', what: 'an apply spends two credits' },
  { name: 'message-79', requirement: 'JOB-APPLY-4', what: 'an apply message of 79 characters is accepted' },
  { name: 'error-not-enveloped', requirement: 'JOB-ERR-1', what: '/api/v1 error bodies are flat `{code, message}`' },
  {
    name: 'unknown-key-accepted',
    requirement: 'JOB-AUTH-2',
    what: 'an unknown key with the right prefix is served as free tier',
  },
  { name: 'skills-ascending', requirement: 'JOB-MKT-4', what: 'market skills come least mentioned first' },
  // MCP
  { name: 'mcp-old-protocol', requirement: 'MCP-KEYED-4', what: 'the keyed server reports protocol 2025-03-26' },
  { name: 'mcp-no-instructions', requirement: 'MCP-KEYED-3', what: 'initialize carries no instructions' },
  { name: 'mcp-no-key', requirement: 'MCP-KEYED-2', what: 'the keyed server serves calls without a key' },
  {
    name: 'keyed-missing-skill-demand',
    requirement: 'MCP-TOOL-3',
    what: 'the keyed server lists nine tools, without get_skill_demand',
  },
  { name: 'anon-lists-apply', requirement: 'MCP-ANON-2', what: 'the anonymous server lists apply_to_job' },
  { name: 'anon-arg-q', requirement: 'MCP-ANON-3', what: 'the anonymous search_jobs takes `q` instead of `query`' },
  // the jobs, market and MCP document's further violations (violations-jobs.ts)
  ...JOBS_MCP_VIOLATIONS,
  // ---- screening document, second round: one or more for every observable SCR must id (kept together) ----
  // authentication and errors
  {
    name: 'scr-no-key-403',
    requirement: 'SCR-AUTH-1',
    what: 'a screening call without Authorization is answered 403 `forbidden`',
  },
  {
    name: 'scr-unknown-key-403',
    requirement: 'SCR-AUTH-2',
    what: 'an unknown screening key with the right prefix is answered 403 `forbidden`',
  },
  { name: 'scr-forbidden-code', requirement: 'SCR-AUTH-3', what: 'a screening 403 carries code `access_denied`' },
  { name: 'scr-error-no-message', requirement: 'SCR-ERR-1', what: 'screening error envelopes carry no `message`' },
  { name: 'scr-error-code-bad-request', requirement: 'SCR-ERR-2', what: 'screening 400s carry code `bad_request`' },
  { name: 'audit-limit-422', requirement: 'SCR-ERR-3', what: 'an out-of-range audit `limit` is answered 422' },
  {
    name: 'scr-no-scope-404',
    requirement: 'SCR-ERR-3',
    what: 'a key without the screening scope is answered 404 `not_found` on the screening endpoints',
  },
  {
    name: 'usage-path-moved',
    requirement: 'SCR-VER-1',
    what: 'GET usage is served at /api/screening/usage, not under /api/screening/v1',
  },
  // submit
  { name: 'submit-new-200', requirement: 'SCR-SUBMIT-1', what: 'a new request is answered 200 instead of 201' },
  { name: 'request-id-bare', requirement: 'SCR-SUBMIT-2', what: 'requestIds are bare UUIDs, without `scr_`' },
  {
    name: 'jobspec-defaulted',
    requirement: 'SCR-SUBMIT-3',
    what: 'a body without `jobSpec` is accepted with an empty job spec',
  },
  {
    name: 'kind-inferred',
    requirement: 'SCR-SUBMIT-4',
    what: 'a candidate without `kind` is read as the variant its fields suggest',
  },
  {
    name: 'candidate-open',
    requirement: 'SCR-SUBMIT-5',
    what: 'candidate variants accept properties they do not list',
  },
  {
    name: 'skills-any-type',
    requirement: 'SCR-SUBMIT-6',
    what: '`skills` and `experienceYears` accept values of any type',
  },
  // idempotency, credits and accounting
  {
    name: 'idem-global',
    requirement: 'SCR-IDEMP-4',
    what: "idempotency keys are global: a second tenant's key replays the first tenant's request",
  },
  {
    name: 'idem-cross-tenant-refused',
    requirement: 'SCR-IDEMP-4',
    what: 'a key another tenant already used is refused with 400',
  },
  {
    name: 'idem-race',
    requirement: 'SCR-IDEMP-2',
    what: 'parallel submissions of one new key each create a request (lookup and insert are not atomic)',
  },
  {
    name: 'charge-race',
    requirement: 'SCR-CREDIT-1',
    what: 'parallel new submissions lose charges (the wallet is read, then written back later)',
  },
  {
    name: 'replay-402-when-spent',
    requirement: 'SCR-IDEMP-5',
    what: 'a replay is answered 402 once the wallet is exhausted',
  },
  {
    name: 'invalid-charges',
    requirement: 'SCR-CREDIT-2',
    what: 'a submission refused with 400 (a valid JSON body) is charged a credit',
  },
  {
    name: 'free-cap-ignored',
    requirement: 'SCR-CREDIT-3',
    what: 'a free tenant past its screen cap is still accepted',
  },
  { name: 'paid-overdraft', requirement: 'SCR-CREDIT-4', what: 'a paid tenant with an empty wallet is still accepted' },
  {
    name: 'free-cap-early',
    requirement: 'SCR-LIMIT-1',
    what: 'a free tenant gets 402 while usage still shows one screen left',
  },
  // usage
  { name: 'usage-no-tenant-id', requirement: 'SCR-USAGE-1', what: 'usage lacks `tenantId`' },
  { name: 'usage-tier-capitalised', requirement: 'SCR-USAGE-2', what: '`planTier` is capitalised (`Pro`)' },
  { name: 'free-cap-on-paid', requirement: 'SCR-USAGE-5', what: '`freeScreenCap` is present on paid tiers too' },
  { name: 'reset-at-omitted', requirement: 'SCR-USAGE-6', what: '`resetAt` is left out instead of null' },
  {
    name: 'usage-cached',
    requirement: 'SCR-USAGE-7',
    what: 'usage is served from a 3-second cache, so a charge shows late',
  },
  // audit and ledger
  { name: 'audit-no-next-cursor', requirement: 'SCR-AUDIT-1', what: 'the last audit page leaves out `nextCursor`' },
  { name: 'since-unvalidated', requirement: 'SCR-AUDIT-6', what: 'a `since` that is not a date-time is ignored' },
  {
    name: 'cursor-carries-tenant',
    requirement: 'SCR-AUDIT-3',
    what: "a cursor names its issuing tenant, and pages that tenant's rows for whoever presents it",
  },
  {
    name: 'ledger-from-stale',
    requirement: 'SCR-LEDGER-2',
    what: 'the review-queue row records fromState `received` instead of `scored`',
  },
  {
    name: 'ledger-rewrites-intake',
    requirement: 'SCR-LEDGER-4',
    what: "a request's intake row is rewritten when the request is decided",
  },
  {
    name: 'ledger-drops-scoring',
    requirement: 'SCR-LEDGER-4',
    what: 'the scoring row is deleted once the request is decided',
  },
  {
    name: 'ledger-epoch-created',
    requirement: 'SCR-LEDGER-5',
    what: '`createdAt` is epoch milliseconds, not a date-time',
  },
  { name: 'state-in-review', requirement: 'SCR-STATE-1', what: 'the review state is reported as `in_review`' },
  {
    name: 'decided-hook-early',
    requirement: 'SCR-REVIEW-1',
    what: 'review_decided is posted when the request enters review, before any reviewer decides',
  },
  {
    name: 'review-to-delivered',
    requirement: 'SCR-REVIEW-2',
    what: 'the reviewer moves a request from pending_review straight to delivered, neither approving, rejecting nor editing',
  },
  // webhooks
  { name: 'no-scored-hook', requirement: 'SCR-HOOK-1', what: 'no screening.scored delivery is posted' },
  { name: 'no-decided-hook', requirement: 'SCR-HOOK-2', what: 'no screening.review_decided delivery is posted' },
  {
    name: 'decision-latency-text',
    requirement: 'SCR-HOOK-5',
    what: 'ReviewDecisionV1 `latencyMs` is a string such as "850 ms"',
  },
  {
    name: 'signature-no-prefix',
    requirement: 'SCR-HOOK-6',
    what: 'X-Screening-Signature is the bare hex digest, without `sha256=`',
  },
  {
    name: 'hook-first-tenant-secret',
    requirement: 'SCR-HOOK-7',
    what: "every delivery is signed with the first tenant's secret",
  },
  { name: 'hook-foreign-tenant', requirement: 'SCR-HOOK-8', what: 'deliveries name another tenant in `tenantId`' },
  {
    name: 'description-version-2',
    requirement: 'SCR-VER-2',
    what: 'the API description linked from /llms.txt has version 2.0.0',
  },
  {
    name: 'resume-ref-no-dimensions',
    requirement: 'SCR-HOOK-4',
    what: 'the ScoreResultV1 of a `resume_ref` candidate has no dimensions',
  },
];

export type ViolationName = (typeof VIOLATIONS)[number]['name'];

/** The switched-on set, asked by name where a rule is enforced. */
export class Switches {
  private readonly set: Set<string>;
  constructor(names: readonly string[] = []) {
    const known = new Set(VIOLATIONS.map((v) => v.name));
    for (const n of names) if (!known.has(n)) throw new Error(`unknown violation: ${n}`);
    this.set = new Set(names);
  }
  on(name: string): boolean {
    return this.set.has(name);
  }
}
