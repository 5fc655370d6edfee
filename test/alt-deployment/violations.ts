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
  { name: 'replay-duplicates', requirement: 'SCR-IDEMP-2', what: 'a replay creates a second request with its own intake row' },
  { name: 'no-charge', requirement: 'SCR-CREDIT-1', what: 'a new request charges nothing' },
  { name: 'upsell-missing', requirement: 'SCR-CREDIT-5', what: 'the 402 on submit carries no `upsell`' },
  { name: 'jobspec-open', requirement: 'SCR-SUBMIT-7', what: 'unknown jobSpec properties are accepted' },
  { name: 'bad-json-500', requirement: 'SCR-SUBMIT-8', what: 'a body that is not JSON is answered 500' },
  // screening: usage and audit
  { name: 'near-limit-never', requirement: 'SCR-USAGE-4', what: '`nearLimit` stays false even at 80% or more used' },
  { name: 'usage-percent-scale', requirement: 'SCR-USAGE-3', what: '`usagePercent` is reported on a 0..100 scale' },
  { name: 'usage-other-tenant', requirement: 'SCR-AUTH-4', what: 'usage reports another tenant\'s wallet' },
  { name: 'audit-other-tenant', requirement: 'SCR-AUDIT-3', what: 'the audit export includes other tenants\' rows' },
  { name: 'audit-cursor-repeat', requirement: 'SCR-AUDIT-4', what: 'each page repeats the last row of the previous page' },
  { name: 'since-reapplied', requirement: 'SCR-AUDIT-5', what: '`since` still filters pages fetched with a cursor' },
  { name: 'audit-limit-600', requirement: 'SCR-AUDIT-2', what: 'audit `limit` up to 1000 is accepted' },
  // screening: ledger, review and webhooks
  { name: 'ledger-skip-scored', requirement: 'SCR-LEDGER-1', what: 'the scoring transition writes no ledger row' },
  { name: 'actor-model', requirement: 'SCR-LEDGER-3', what: 'the scoring row\'s actor is `model:scorer`' },
  { name: 'review-skipped', requirement: 'SCR-STATE-2', what: 'review_decided is sent and the request delivered with no human decision' },
  { name: 'hook-wrong-secret', requirement: 'SCR-HOOK-7', what: 'deliveries are signed with a secret other than the tenant\'s' },
  { name: 'hook-compact-signature', requirement: 'SCR-HOOK-7', what: 'the signature covers compact JSON while pretty-printed bytes are sent' },
  { name: 'score-no-rationale', requirement: 'SCR-HOOK-4', what: 'ScoreResultV1 lacks `rationale`' },
  { name: 'schema-version-2', requirement: 'SCR-VER-3', what: 'ScoreResultV1 and ReviewDecisionV1 carry schemaVersion 2' },
  { name: 'hook-no-tenant', requirement: 'SCR-HOOK-3', what: 'delivery bodies lack `tenantId`' },
  // jobs API
  { name: 'no-remaining-header', requirement: 'JOB-RATE-1', what: '/api/v1 responses lack X-RateLimit-Remaining' },
  { name: 'no-retry-after', requirement: 'JOB-RATE-3', what: '429 on /api/v1 carries no Retry-After' },
  { name: 'free-limit-100', requirement: 'JOB-RATE-2', what: 'the free tier is limited to 100 a minute, not 60' },
  { name: 'sponsored-on-paid', requirement: 'JOB-SEARCH-7', what: 'paid-tier search results contain sponsored listings' },
  { name: 'free-no-page-cap', requirement: 'JOB-TIER-2', what: 'the free tier can page past 5 pages' },
  { name: 'search-limit-51', requirement: 'JOB-SEARCH-3', what: 'search `limit` up to 100 is accepted' },
  { name: 'remote-filter-ignored', requirement: 'JOB-SEARCH-5', what: '`remote_type` is accepted but not applied' },
  { name: 'has-more-always', requirement: 'JOB-SEARCH-8', what: '`hasMore` is always true' },
  { name: 'inactive-served', requirement: 'JOB-GET-2', what: 'GET /jobs/{id} serves inactive jobs' },
  { name: 'apply-on-free', requirement: 'JOB-APPLY-1', what: 'a free-tier key may apply' },
  { name: 'apply-charges-two', requirement: 'JOB-APPLY-2', what: 'an apply spends two credits' },
  { name: 'message-79', requirement: 'JOB-APPLY-4', what: 'an apply message of 79 characters is accepted' },
  { name: 'error-not-enveloped', requirement: 'JOB-ERR-1', what: '/api/v1 error bodies are flat `{code, message}`' },
  { name: 'unknown-key-accepted', requirement: 'JOB-AUTH-2', what: 'an unknown key with the right prefix is served as free tier' },
  { name: 'skills-ascending', requirement: 'JOB-MKT-4', what: 'market skills come least mentioned first' },
  // MCP
  { name: 'mcp-old-protocol', requirement: 'MCP-KEYED-4', what: 'the keyed server reports protocol 2025-03-26' },
  { name: 'mcp-no-instructions', requirement: 'MCP-KEYED-3', what: 'initialize carries no instructions' },
  { name: 'mcp-no-key', requirement: 'MCP-KEYED-2', what: 'the keyed server serves calls without a key' },
  { name: 'keyed-missing-skill-demand', requirement: 'MCP-TOOL-3', what: 'the keyed server lists nine tools, without get_skill_demand' },
  { name: 'anon-lists-apply', requirement: 'MCP-ANON-2', what: 'the anonymous server lists apply_to_job' },
  { name: 'anon-arg-q', requirement: 'MCP-ANON-3', what: 'the anonymous search_jobs takes `q` instead of `query`' },
  // the jobs, market and MCP document's further violations (violations-jobs.ts)
  ...JOBS_MCP_VIOLATIONS,
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
