// Turns a submit body into a typed Submission. The HTTP adapter validates the body against the
// contract first; this parse is the domain's own guard, so that no caller can put a value in the
// store that would break scoring, views or deliveries. Every refusal names the field by its path.

import { invalid } from '../../errors/errors.js';
import { limits } from '../plans.js';
import type { CandidateBlob, JobSpec, Submission } from './types.js';

type Obj = Record<string, unknown>;

const MAX_STRING = limits.policy.stringMaxLength;
const MAX_ITEMS = limits.policy.arrayMaxItems;

function object(v: unknown, path: string, allowed: readonly string[]): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid(`${path} must be a JSON object`, path);
  for (const k of Object.keys(v)) {
    if (!allowed.includes(k)) throw invalid(`${path === 'body' ? '' : `${path}.`}${k} is not an allowed property; allowed: ${allowed.join(', ')}`, k);
  }
  return v as Obj;
}

function str(o: Obj, key: string, path: string, required: true): string;
function str(o: Obj, key: string, path: string, required?: false): string | undefined;
function str(o: Obj, key: string, path: string, required = false): string | undefined {
  const v = o[key];
  const at = `${path}${key}`;
  if (v === undefined) {
    if (required) throw invalid(`${at} is required`, at);
    return undefined;
  }
  if (typeof v !== 'string') throw invalid(`${at} must be a string`, at);
  if (v.length > MAX_STRING) throw invalid(`${at} is ${v.length} characters; at most ${MAX_STRING} are allowed`, at);
  return v;
}

function strArray(o: Obj, key: string, path: string, required = false): string[] | undefined {
  const v = o[key];
  const at = `${path}${key}`;
  if (v === undefined) {
    if (required) throw invalid(`${at} is required (an array of strings; it may be empty)`, at);
    return undefined;
  }
  if (!Array.isArray(v)) throw invalid(`${at} must be an array of strings`, at);
  if (v.length > MAX_ITEMS) throw invalid(`${at} has ${v.length} items; at most ${MAX_ITEMS} are allowed`, at);
  v.forEach((item, i) => {
    if (typeof item !== 'string') throw invalid(`${at}[${i}] must be a string`, at);
    if (item.length > MAX_STRING) throw invalid(`${at}[${i}] is longer than ${MAX_STRING} characters`, at);
  });
  return v as string[];
}

function nonNegative(o: Obj, key: string, path: string): number | undefined {
  const v = o[key];
  const at = `${path}${key}`;
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw invalid(`${at} must be a non-negative number`, at);
  return v;
}

function candidate(v: unknown): CandidateBlob {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalid('candidate must be a JSON object', 'candidate');
  const kind = (v as Obj).kind;
  if (kind === 'resume_ref') {
    const o = object(v, 'candidate', ['kind', 'resumeRef', 'filename']);
    const resumeRef = str(o, 'resumeRef', 'candidate.', true);
    const filename = str(o, 'filename', 'candidate.');
    return { kind, resumeRef, ...(filename !== undefined ? { filename } : {}) };
  }
  if (kind === 'structured') {
    const o = object(v, 'candidate', ['kind', 'fullName', 'email', 'phone', 'summary', 'skills', 'experienceYears']);
    const out: CandidateBlob = { kind, fullName: str(o, 'fullName', 'candidate.', true) };
    const email = str(o, 'email', 'candidate.');
    const phone = str(o, 'phone', 'candidate.');
    const summary = str(o, 'summary', 'candidate.');
    const skills = strArray(o, 'skills', 'candidate.');
    const experienceYears = nonNegative(o, 'experienceYears', 'candidate.');
    if (email !== undefined) out.email = email;
    if (phone !== undefined) out.phone = phone;
    if (summary !== undefined) out.summary = summary;
    if (skills !== undefined) out.skills = skills;
    if (experienceYears !== undefined) out.experienceYears = experienceYears;
    return out;
  }
  throw invalid(`candidate.kind must be 'resume_ref' or 'structured'`, 'candidate.kind');
}

function jobSpec(v: unknown): JobSpec {
  const o = object(v, 'jobSpec', ['title', 'mustHaves', 'niceToHaves', 'salaryBandMinIdr', 'salaryBandMaxIdr', 'description']);
  const out: JobSpec = { title: str(o, 'title', 'jobSpec.', true), mustHaves: strArray(o, 'mustHaves', 'jobSpec.', true)! };
  const niceToHaves = strArray(o, 'niceToHaves', 'jobSpec.');
  const min = nonNegative(o, 'salaryBandMinIdr', 'jobSpec.');
  const max = nonNegative(o, 'salaryBandMaxIdr', 'jobSpec.');
  const description = str(o, 'description', 'jobSpec.');
  // an inverted band would score against nothing (D-85)
  if (min !== undefined && max !== undefined && min > max) {
    throw invalid(`jobSpec.salaryBandMinIdr (${min}) is greater than jobSpec.salaryBandMaxIdr (${max}); the band's minimum must not exceed its maximum`, 'jobSpec.salaryBandMinIdr');
  }
  if (niceToHaves !== undefined) out.niceToHaves = niceToHaves;
  if (min !== undefined) out.salaryBandMinIdr = min;
  if (max !== undefined) out.salaryBandMaxIdr = max;
  if (description !== undefined) out.description = description;
  return out;
}

export function parseSubmission(body: unknown): Submission {
  const o = object(body, 'body', ['idempotencyKey', 'candidate', 'jobSpec']);
  const idempotencyKey = str(o, 'idempotencyKey', '', true);
  if (idempotencyKey.length === 0) throw invalid('idempotencyKey must not be empty', 'idempotencyKey');
  if (o.candidate === undefined) throw invalid('candidate is required', 'candidate');
  if (o.jobSpec === undefined) throw invalid('jobSpec is required', 'jobSpec');
  return { idempotencyKey, candidate: candidate(o.candidate), jobSpec: jobSpec(o.jobSpec) };
}
