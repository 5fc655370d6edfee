// The vocabulary of the jobs domain: enumerations, the internal job record, the public Job view and
// the shapes of search, apply, me and market results (as fixed in the contract, contracts/jobs.openapi.yaml).
// Requirements: JOB-SEARCH-2, JOB-TIER-1; decisions D-26.

import type { Job, Same } from '../../contract/types.js';

export const REMOTE_TYPES = ['worldwide', 'regional', 'timezone-based'] as const;
export const JOB_TYPES = ['full-time', 'part-time', 'contract', 'freelance'] as const;
export const OPPORTUNITY_TYPES = ['regular', 'internship', 'fellowship', 'apprenticeship', 'volunteer'] as const;
export const SENIORITIES = ['junior', 'mid', 'senior', 'lead'] as const;
export const PAY_PERIODS = ['hour', 'day', 'month', 'year'] as const;
export const CURRENCIES = ['IDR', 'USD'] as const;
export const LOCALES = ['id', 'en'] as const;

export type RemoteType = (typeof REMOTE_TYPES)[number];
export type JobType = (typeof JOB_TYPES)[number];
export type OpportunityType = (typeof OPPORTUNITY_TYPES)[number];
export type Seniority = (typeof SENIORITIES)[number];
export type PayPeriod = (typeof PAY_PERIODS)[number];
export type Currency = (typeof CURRENCIES)[number];
export type Locale = (typeof LOCALES)[number];
export type Channel = 'rest' | 'mcp';

/**
 * A job as the corpus stores it: the contract's Job fields (but `sponsored`, which depends on the caller's
 * tier and the result slot) and the sandbox's own. Only the 14 Job fields ever leave the sandbox (see toJobView).
 */
export interface StoredJob extends Omit<Job, 'sponsored'> {
  postedAtMs: number;
  active: boolean;
  opportunityType: OpportunityType;
  roleFamily: string;
  seniority: Seniority;
  skills: string[];
  /** Email of the employer's hiring contact: applications go to the curation queue. */
  employerContact: string | null;
  /** External applicant-tracking URL: applying returns it instead. */
  atsUrl: string | null;
  /** Midpoint pay normalized to IDR per month; null when the listing shows no pay. */
  payIdrMonthly: number | null;
  /** In the promoted pool that fills the free tier's sponsored slots. */
  promoted: boolean;
  /** Indices of the description sentences (rendered on demand, see describe()). */
  descParts: number[];
}

/** The internal record handed to other domain services (MCP tools, employer tools). */
export interface JobRecord extends Omit<StoredJob, 'descParts'> {
  description: string;
}

/** The public Job: exactly the 14 fields of the specification (the contract's `Job`). */
export type { Job as JobView } from '../../contract/types.js';

export interface SearchParams {
  q?: string;
  location?: string;
  remote_type?: RemoteType;
  job_type?: JobType;
  opportunity_type?: OpportunityType;
  limit: number;
  offset: number;
  locale?: Locale;
}

export type { SearchResponse, ApplyRequest as ApplyBody } from '../../contract/types.js';

/** An application submitted into the curation queue (employer-contact jobs). */
export interface Application {
  applicationId: string;
  tenantId: string;
  jobId: string;
  jobTitle: string;
  company: string;
  candidate_name: string;
  candidate_email: string;
  message: string;
  resume_url: string | null;
  locale: string | null;
  status: 'queued';
  channel: Channel;
  createdAt: string;
}

export interface PayStats {
  median: number;
  p25: number;
  p75: number;
}

// Response shapes are the contract's own (generated from contracts/jobs.openapi.yaml).
export type { ApplyResult, Me, SalaryBenchmarks, RoleList, RoleReport, SkillList } from '../../contract/types.js';

// The value lists above drive the corpus generator; these lines fail the typecheck if they ever drift
// from the contract's enums.
export const ENUMS_MATCH_CONTRACT: [
  Same<RemoteType, import('../../contract/types.js').RemoteType>,
  Same<JobType, import('../../contract/types.js').JobType>,
  Same<Locale, import('../../contract/types.js').Locale>,
] = [true, true, true];
