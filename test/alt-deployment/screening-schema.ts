// Closed request schemas of the screening API (SubmitRequest, CandidateBlob, JobSpec), written from the document.
import { z } from 'zod';
import { fail } from './http.js';

/** Faults the planted violations put into the schemas (none on a clean deployment). */
export interface SchemaFaults {
  openJobSpec?: boolean;
  openCandidate?: boolean;
  anyTypes?: boolean;
}

function candidateBlob(f: SchemaFaults = {}) {
  const close = <T extends z.ZodRawShape>(o: z.ZodObject<T>) => (f.openCandidate ? o.passthrough() : o.strict());
  const ResumeRef = close(
    z.object({ kind: z.literal('resume_ref'), resumeRef: z.string(), filename: z.string().optional() }),
  );
  const Structured = close(
    z.object({
      kind: z.literal('structured'),
      fullName: z.string(),
      email: z.string().optional(),
      phone: z.string().optional(),
      summary: z.string().optional(),
      skills: f.anyTypes ? z.array(z.any()).optional() : z.array(z.string()).optional(),
      experienceYears: f.anyTypes ? z.any() : z.number().optional(),
    }),
  );
  return z.discriminatedUnion('kind', [ResumeRef as any, Structured as any]);
}

export const CandidateBlob = candidateBlob();

const jobSpecShape = {
  title: z.string(),
  mustHaves: z.array(z.string()),
  niceToHaves: z.array(z.string()).optional(),
  salaryBandMinIdr: z.number().optional(),
  salaryBandMaxIdr: z.number().optional(),
  description: z.string().optional(),
};
const JobSpecClosed = z.object(jobSpecShape).strict();
const JobSpecOpen = z.object(jobSpecShape).passthrough();

/** Unknown top-level properties are ignored (the document closes only the candidate and the job spec); empty
 * strings and negative amounts are accepted, as the document bounds neither; idempotency keys hold up to 255 characters. */
const submitRequest = (jobSpec: z.ZodTypeAny, candidate: z.ZodTypeAny = CandidateBlob) =>
  z.object({ idempotencyKey: z.string().max(255), candidate, jobSpec });

const SubmitClosed = submitRequest(JobSpecClosed);

export type CandidateBlob =
  | { kind: 'resume_ref'; resumeRef: string; filename?: string }
  | {
      kind: 'structured';
      fullName: string;
      email?: string;
      phone?: string;
      summary?: string;
      skills?: string[];
      experienceYears?: number;
    };
export type JobSpec = z.infer<typeof JobSpecClosed>;
export interface SubmitRequest {
  idempotencyKey: string;
  candidate: CandidateBlob;
  jobSpec: JobSpec;
}

function describe(issue: z.ZodIssue): string {
  const at = issue.path.length ? issue.path.join('.') : 'body';
  if (issue.code === 'unrecognized_keys')
    return `${at}: unknown propert${issue.keys.length > 1 ? 'ies' : 'y'} ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_union_discriminator') return `${at}.kind: must be "resume_ref" or "structured"`;
  return `${at}: ${issue.message}`;
}

/** Parses a submit body or throws a 400 naming the first offending field. */
export function parseSubmit(body: unknown, faults: SchemaFaults = {}): SubmitRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw fail(400, 'body: must be a JSON object');
  const faulty = faults.openJobSpec || faults.openCandidate || faults.anyTypes;
  const schema = faulty
    ? submitRequest(faults.openJobSpec ? JobSpecOpen : JobSpecClosed, candidateBlob(faults))
    : SubmitClosed;
  const result = schema.safeParse(body);
  if (!result.success) throw fail(400, describe(result.error.issues[0]));
  return result.data as SubmitRequest;
}
