// Identity and usage instructions the two MCP servers advertise on initialize (and the discovery
// documents repeat). The protocol revision is pinned: the specification says the keyed server reports
// 2025-06-18, and the anonymous server answers the same so one client handles both alike.

import { limits } from '../domain/plans.js';

export const PROTOCOL_VERSION = '2025-06-18';
export const SERVER_VERSION = '1.0.0';

export const KEYED_INFO = {
  name: 'remote-jobs',
  title: 'Remote Jobs (Indonesia-friendly)',
  version: SERVER_VERSION,
} as const;
export const ANON_INFO = {
  name: 'remote-jobs-public',
  title: 'Remote Jobs public search',
  version: SERVER_VERSION,
} as const;

const free = limits.spec.jobs.free;
const draft = limits.policy.draftApplicationPerMonth;

export const KEYED_INSTRUCTIONS = [
  'Remote, Indonesia-friendly jobs for job seekers, and anonymized hiring tools for employers.',
  'Seekers: search_jobs (q plus filters) -> get_job (id) -> draft_application (a grounded cover letter and resume from the saved resume; nothing is submitted) -> open the apply_url with the user.',
  `Only call apply_to_job when the seeker explicitly wants this service to submit for them: it needs a paid tier (free -> payment_required) and spends 1 apply credit; call get_me first to check credits.`,
  `Costs: searching, reading jobs, skill demand and get_me are free. draft_application is free with a monthly quota (free ${draft.free}, starter ${draft.starter}, pro ${draft.pro}). The free tier reads at most ${free.maxPages} pages and may see listings marked sponsored: true.`,
  `Every tool call counts against the key's per-minute rate limit (shared with the REST API); on rate_limited wait retryAfter seconds.`,
  `Employers (scope "employer"): match_candidates, talent_search (${limits.spec.talentSearchPerDay} calls a day), post_job and hire. They never reveal a candidate's name, contact details, CV or salary; candidates appear only as opaque ids, and only those who consented and are open to work.`,
  'Failures come back as tool results with isError true and structuredContent {error: {code, message}}; codes: invalid_request, payment_required, rate_limited, not_found, forbidden, ungrounded.',
].join('\n');

export const ANON_INSTRUCTIONS = [
  'Public, read-only search of remote, Indonesia-friendly jobs. No account or key needed.',
  "search_jobs (query plus filters) -> get_job (job_id) -> open the job's applyUrl with the user. get_curated_list lists vetted AI-data-work platforms.",
  `Free-tier rules apply: at most ${free.maxPages} pages, and listings marked sponsored: true may appear. ${limits.spec.anonMcpCallsPerDayPerIp} tool calls per day per client IP (resets 00:00 UTC); on rate_limited wait retryAfter seconds.`,
  'Drafting, applying, account and employer tools need a key on the keyed server.',
].join('\n');
