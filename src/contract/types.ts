// Friendly names for the types generated from the contracts (*.gen.ts), so code reads `ScoreResultV1`
// rather than `components['schemas']['ScoreResultV1']`. Regenerate with `npm run gen:types`.

import type { components as J, operations as JobsOps } from './jobs.gen.js';
import type { components as S } from './screening.gen.js';

type ScreeningSchemas = S['schemas'];
/** `true` when two types are the same (a runtime list checked against the contract's enum fails the typecheck when they drift). */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
type JobsSchemas = J['schemas'];

// Screening API
export type SubmitRequest = ScreeningSchemas['SubmitRequest'];
export type CandidateBlob = ScreeningSchemas['CandidateBlob'];
export type ResumeRefCandidate = ScreeningSchemas['ResumeRefCandidate'];
export type StructuredCandidate = ScreeningSchemas['StructuredCandidate'];
export type JobSpec = ScreeningSchemas['JobSpec'];
export type ScreeningState = ScreeningSchemas['ScreeningState'];
export type ScreenAcceptedResult = ScreeningSchemas['ScreenAcceptedResult'];
export type ScreeningUsage = ScreeningSchemas['ScreeningUsage'];
export type AuditPage = ScreeningSchemas['AuditPage'];
export type AuditEvent = ScreeningSchemas['AuditEvent'];
export type ScoreDimension = ScreeningSchemas['ScoreDimension'];
export type ScoreResultV1 = ScreeningSchemas['ScoreResultV1'];
export type ReviewDecisionV1 = ScreeningSchemas['ReviewDecisionV1'];
export type ScoredDelivery = ScreeningSchemas['ScoredDelivery'];
export type ReviewDecidedDelivery = ScreeningSchemas['ReviewDecidedDelivery'];
export type WebhookDelivery = ScreeningSchemas['WebhookDelivery'];
export type ErrorCode = ScreeningSchemas['ErrorCode'];
export type ErrorEnvelope = ScreeningSchemas['ErrorEnvelope'];
export type PaymentRequiredEnvelope = ScreeningSchemas['PaymentRequiredEnvelope'];

// Jobs API and market data
export type Locale = JobsSchemas['Locale'];
export type RemoteType = JobsSchemas['RemoteType'];
export type JobType = JobsSchemas['JobType'];
export type JobsTier = JobsSchemas['JobsTier'];
export type Job = JobsSchemas['Job'];
export type SearchResponse = JobsSchemas['SearchResponse'];
export type SearchQuery = NonNullable<JobsOps['searchJobs']['parameters']['query']>;
export type ApplyRequest = JobsSchemas['ApplyRequest'];
export type ApplyResult = JobsSchemas['ApplyResult'];
export type ApplySubmitted = JobsSchemas['ApplySubmitted'];
export type ApplyExternal = JobsSchemas['ApplyExternal'];
export type Me = JobsSchemas['Me'];
export type MonthlyPay = JobsSchemas['MonthlyPay'];
export type SalaryBenchmarks = JobsSchemas['SalaryBenchmarks'];
export type RoleList = JobsSchemas['RoleList'];
export type RoleReport = JobsSchemas['RoleReport'];
export type SkillCount = JobsSchemas['SkillCount'];
export type SkillList = JobsSchemas['SkillList'];
export type JobsPaymentRequiredEnvelope = JobsSchemas['PaymentRequiredEnvelope'];

// MCP tool arguments and results
export type * from './mcp.gen.js';
