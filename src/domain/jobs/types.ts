// The vocabulary of the jobs domain: enumerations, the internal job record, the public Job view and
// the shapes of search, apply, me and market results (as fixed in the contract, contracts/jobs.openapi.yaml).

import type { JobsTier } from '../plans.js';

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

/** A job as the corpus stores it. Only the 14 Job fields ever leave the sandbox (see toJobView). */
export interface StoredJob {
  id: string;
  title: string;
  company: string;
  location: string;
  payMin: number | null;
  payMax: number | null;
  payCurrency: Currency;
  payPeriod: PayPeriod;
  remoteType: RemoteType;
  jobType: JobType;
  postedAt: string;
  postedAtMs: number;
  url: string;
  applyUrl: string;
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

/** The public Job: exactly the 14 fields of the specification. */
export interface JobView {
  id: string;
  title: string;
  company: string;
  location: string;
  payMin: number | null;
  payMax: number | null;
  payCurrency: Currency;
  payPeriod: PayPeriod;
  remoteType: RemoteType;
  jobType: JobType;
  postedAt: string;
  url: string;
  applyUrl: string;
  sponsored: boolean;
}

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

export interface SearchResponse {
  tier: JobsTier;
  jobs: JobView[];
  page: number;
  hasMore: boolean;
}

export interface ApplyBody {
  candidate_name: string;
  candidate_email: string;
  message: string;
  resume_url?: string;
  locale?: Locale;
}

export type ApplyResult =
  | { status: 'submitted'; applicationId: string; jobId: string; creditsRemaining: number }
  | { status: 'external'; applyUrl: string; jobId: string; creditsRemaining: number };

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

export interface Me {
  tier: JobsTier;
  scopes: string[];
  applyCredits: { remaining: number; perMonth: number; resetAt: string | null };
  limits: {
    rateLimitPerMinute: number;
    maxPages: number;
    applyEnabled: boolean;
    adFree: boolean;
    talentSearchPerDay: number;
    draftApplicationPerMonth: number;
  };
}

export interface PayStats {
  median: number;
  p25: number;
  p75: number;
}

export interface SalaryBenchmarks {
  currency: 'IDR';
  period: 'month';
  sampleSize: number;
  generatedAt: string;
  rows: Array<{ roleFamily: string; seniority: Seniority; sampleSize: number; median: number; p25: number; p75: number; iqr: number }>;
}

export interface RoleList {
  locale: Locale;
  roles: Array<{ slug: string; name: string; jobCount: number }>;
}

export interface RoleReport {
  locale: Locale;
  slug: string;
  name: string;
  summary: string;
  jobCount: number;
  pay: ({ currency: 'IDR'; period: 'month' } & PayStats) | null;
  topSkills: Array<{ skill: string; mentions: number }>;
  seniorityMix: Array<{ seniority: Seniority; jobs: number }>;
  remoteTypeMix: Array<{ remoteType: RemoteType; jobs: number }>;
}

export interface SkillList {
  skills: Array<{ skill: string; mentions: number }>;
  totalJobs: number;
}
