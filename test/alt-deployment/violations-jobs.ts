// The planted violations of the jobs, market and MCP document: each switch breaks one rule that document
// states, under that rule's requirement id (the screening ones are listed in violations.ts).

export interface JobsViolation {
  name: string;
  requirement: string;
  what: string;
}

export const JOBS_MCP_VIOLATIONS: readonly JobsViolation[] = [
  // jobs REST: authentication, search and single jobs
  {
    name: 'market-no-auth',
    requirement: 'JOB-AUTH-1',
    what: 'the market endpoints answer a call without a bearer key',
  },
  {
    name: 'keys-test-prefix',
    requirement: 'JOB-AUTH-3',
    what: 'issued keys carry the prefix `altk_test_`, not one ending in `_live_`',
  },
  { name: 'page-one-based', requirement: 'JOB-SEARCH-1', what: 'the search `page` counts from 1' },
  { name: 'posted-at-date-only', requirement: 'JOB-SEARCH-2', what: '`postedAt` is a plain date without a time' },
  { name: 'opportunity-type-unchecked', requirement: 'JOB-SEARCH-4', what: 'any `opportunity_type` value is accepted' },
  { name: 'search-lists-inactive', requirement: 'JOB-SEARCH-6', what: 'search lists inactive jobs too' },
  {
    name: 'has-more-unaligned',
    requirement: 'JOB-SEARCH-8',
    what: 'a search page whose offset is not a multiple of its limit says `hasMore` false',
  },
  { name: 'search-charges', requirement: 'JOB-SEARCH-9', what: 'a search spends an apply credit' },
  { name: 'get-job-drops-currency', requirement: 'JOB-GET-1', what: 'GET /jobs/{id} leaves out `payCurrency`' },
  { name: 'search-tier-free', requirement: 'JOB-TIER-1', what: 'the search response names tier `Free` for every key' },
  // jobs REST: apply and /me
  { name: 'apply-email-optional', requirement: 'JOB-APPLY-3', what: '`candidate_email` may be left out of an apply' },
  {
    name: 'apply-no-reference',
    requirement: 'JOB-APPLY-5',
    what: 'the apply result names neither the application nor an apply URL',
  },
  {
    name: 'apply-refused-charges',
    requirement: 'JOB-APPLY-4',
    what: 'an apply refused for its message length still spends a credit',
  },
  {
    name: 'apply-charges-other-tenant',
    requirement: 'JOB-APPLY-2',
    what: "an apply spends a credit of another tenant's wallet",
  },
  { name: 'me-tier-free', requirement: 'JOB-ME-1', what: "GET /me names every key's plan `Free`" },
  { name: 'me-page-cap-10', requirement: 'JOB-ME-2', what: 'GET /me reports a page cap of 10 on the free tier' },
  { name: 'starter-credits-50', requirement: 'JOB-TIER-3', what: 'the starter tier gets 50 apply credits a month' },
  {
    name: 'message-3000-refused',
    requirement: 'JOB-APPLY-4',
    what: 'an apply message of exactly 3000 characters is refused with 400',
  },
  // jobs REST: market data
  { name: 'salary-empty', requirement: 'JOB-MKT-1', what: 'the salary grid holds no cells' },
  { name: 'roles-dead-slug', requirement: 'JOB-MKT-2', what: 'the role list names a family that has no report' },
  { name: 'role-unknown-200', requirement: 'JOB-MKT-3', what: 'an unknown role slug answers 200 with an empty report' },
  { name: 'market-locale-any', requirement: 'JOB-MKT-5', what: 'the market `locale` accepts any value (read as en)' },
  { name: 'skills-charges', requirement: 'JOB-MKT-6', what: 'reading the skills endpoint spends an apply credit' },
  { name: 'market-paid-only', requirement: 'JOB-MKT-7', what: 'the market endpoints refuse the free tier with 403' },
  // jobs REST: rate limits, versioning
  { name: 'remaining-by-two', requirement: 'JOB-RATE-4', what: 'X-RateLimit-Remaining falls by two per call' },
  { name: 'rest-without-v1', requirement: 'JOB-VER-1', what: 'the jobs API is served under /api without /v1' },
  { name: 'no-openapi', requirement: 'JOB-VER-2', what: '/api/openapi.json is not served' },
  {
    name: 'openapi-enum-narrowed',
    requirement: 'JOB-VER-2',
    what: '/api/openapi.json lists the search parameter `remote_type` without `worldwide`',
  },
  // keyed MCP server
  { name: 'mcp-wrong-path', requirement: 'MCP-KEYED-1', what: 'the keyed server answers at /api/mcp/v1, not /api/mcp' },
  {
    name: 'mcp-own-wallet',
    requirement: 'MCP-KEYED-5',
    what: 'apply_to_job spends a wallet of its own, not the one REST reads',
  },
  {
    name: 'mcp-stale-titles',
    requirement: 'MCP-KEYED-5',
    what: 'keyed get_job serves titles from a stale copy of the feed',
  },
  { name: 'keyed-arg-query', requirement: 'MCP-TOOL-1', what: 'keyed search_jobs takes `query` instead of `q`' },
  { name: 'mcp-search-no-apply-url', requirement: 'MCP-TOOL-2', what: 'keyed search_jobs results carry no apply URL' },
  { name: 'draft-spends-credit', requirement: 'MCP-TOOL-4', what: 'draft_application spends an apply credit' },
  {
    name: 'draft-keeps-claims',
    requirement: 'MCP-TOOL-5',
    what: 'draft_application keeps claims the saved resume cannot support',
  },
  { name: 'mcp-apply-on-free', requirement: 'MCP-TOOL-6', what: 'apply_to_job works for a free-tier key' },
  { name: 'get-me-no-tier', requirement: 'MCP-TOOL-7', what: 'get_me leaves out the tier' },
  {
    name: 'match-leaks-email',
    requirement: 'MCP-TOOL-8',
    what: "match_candidates returns each candidate's e-mail address",
  },
  { name: 'talent-12-cards', requirement: 'MCP-TOOL-9', what: 'talent_search returns up to 12 cards' },
  { name: 'talent-limit-60', requirement: 'MCP-TOOL-10', what: 'talent_search allows 60 calls a day per key' },
  {
    name: 'post-job-no-apply-url',
    requirement: 'MCP-TOOL-11',
    what: 'post_job takes an order with neither apply_url nor host_apply_form',
  },
  { name: 'hire-unscored', requirement: 'MCP-TOOL-12', what: "hire's shortlist carries no scores" },
  {
    name: 'hire-publish-ignored',
    requirement: 'MCP-TOOL-13',
    what: 'hire ignores publish_if_no_match and posts nothing',
  },
  // anonymous MCP server and discovery
  // the same rules on a second surface, and every call rather than the first
  {
    name: 'mcp-sponsored-on-paid',
    requirement: 'JOB-SEARCH-7',
    what: 'keyed search_jobs shows paid keys the promoted listings as `sponsored: true`',
  },
  { name: 'starter-reads-pro', requirement: 'JOB-TIER-1', what: "a starter key's search response names tier `Pro`" },
  {
    name: 'mcp-tools-call-no-key',
    requirement: 'MCP-KEYED-2',
    what: 'the keyed server serves tools/call without a key (only initialize and listings need one)',
  },
  { name: 'mcp-search-charges', requirement: 'MCP-TOOL-2', what: 'keyed search_jobs spends an apply credit' },
  { name: 'get-me-pro-limits', requirement: 'MCP-TOOL-7', what: "get_me reports the Pro tier's limits to every key" },
  {
    name: 'mcp-filter-ignored',
    requirement: 'MCP-TOOL-1',
    what: 'keyed search_jobs takes `remote_type` but does not apply it',
  },
  {
    name: 'mcp-job-type-spaced',
    requirement: 'MCP-TOOL-2',
    what: 'keyed search_jobs writes jobType with a space (`full time`)',
  },
  { name: 'mcp-search-inactive', requirement: 'MCP-TOOL-2', what: 'keyed search_jobs lists inactive jobs too' },
  {
    name: 'mcp-stale-pay',
    requirement: 'MCP-KEYED-5',
    what: 'keyed get_job reports payMax from a stale copy of the feed',
  },
  {
    name: 'market-limit-free',
    requirement: 'JOB-RATE-2',
    what: "market responses report the free tier's X-RateLimit-Limit (60) to every key",
  },
  { name: 'anon-needs-key', requirement: 'MCP-ANON-1', what: 'the anonymous server refuses calls without a key' },
  {
    name: 'anon-search-counts-skills',
    requirement: 'MCP-ANON-4',
    what: "each anonymous search_jobs call adds to the skills' mention counts",
  },
  { name: 'anon-limit-600', requirement: 'MCP-ANON-5', what: 'the anonymous server allows 600 calls a day per IP' },
  { name: 'curated-empty', requirement: 'MCP-ANON-6', what: 'get_curated_list returns no platform' },
  { name: 'no-well-known', requirement: 'MCP-DISC-1', what: '/.well-known/mcp.json is not served' },
  { name: 'no-llms-txt', requirement: 'MCP-DISC-2', what: '/llms.txt is not served' },
  { name: 'anon-get-405', requirement: 'MCP-DISC-3', what: 'GET /mcp on the anonymous server answers 405' },
];
