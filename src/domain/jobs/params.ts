// Typed commands of the jobs domain from loosely typed input. Adapters validate against the contract
// first (which names the parameter); these checks are the domain's own guard, so every adapter (REST,
// MCP) gets the same 400 for the same bad input, whether values arrive as query strings or numbers.

import { invalid } from '../../errors/errors.js';
import { limits } from '../plans.js';
import { JOB_TYPES, LOCALES, OPPORTUNITY_TYPES, REMOTE_TYPES, type ApplyBody, type Locale, type SearchParams } from './types.js';

export type RawParams = Record<string, unknown>;

const SEARCH_PARAMS = ['q', 'location', 'remote_type', 'job_type', 'opportunity_type', 'limit', 'offset', 'locale'] as const;
const APPLY_FIELDS = ['candidate_name', 'candidate_email', 'message', 'resume_url', 'locale'] as const;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Refuses parameters outside `allowed`, naming the first unknown one. */
export function onlyParams(raw: RawParams, allowed: readonly string[], what = 'query parameter'): void {
  for (const k of Object.keys(raw)) {
    if (raw[k] !== undefined && !allowed.includes(k)) {
      throw invalid(`unknown ${what} '${k}'${allowed.length ? `; allowed: ${allowed.join(', ')}` : ': this endpoint takes none'}`, k);
    }
  }
}

function single(raw: RawParams, name: string): unknown {
  const v = raw[name];
  if (Array.isArray(v)) throw invalid(`${name} must be given at most once`, name);
  return v;
}

export function intParam(raw: RawParams, name: string, min: number, max: number | undefined, def: number): number {
  const v = single(raw, name);
  if (v === undefined || v === null) return def;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  const range = max === undefined ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
    throw invalid(`${name} must be ${range} (got ${JSON.stringify(v)})`, name);
  }
  return n;
}

export function enumParam<T extends string>(raw: RawParams, name: string, values: readonly T[]): T | undefined {
  const v = single(raw, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw invalid(`${name} must be one of ${values.join(', ')} (got ${JSON.stringify(v)})`, name);
  }
  return v as T;
}

/** A free-text parameter; empty or blank reads as absent. */
export function textParam(raw: RawParams, name: string): string | undefined {
  const v = single(raw, name);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`${name} must be a string`, name);
  const max = limits.policy.stringMaxLength;
  if (v.length > max) throw invalid(`${name} must be at most ${max} characters`, name);
  return v.trim() === '' ? undefined : v;
}

export function parseSearchParams(raw: RawParams): SearchParams {
  onlyParams(raw, SEARCH_PARAMS);
  const { min, max, default: def } = limits.spec.searchLimit;
  return {
    q: textParam(raw, 'q'),
    location: textParam(raw, 'location'),
    remote_type: enumParam(raw, 'remote_type', REMOTE_TYPES),
    job_type: enumParam(raw, 'job_type', JOB_TYPES),
    opportunity_type: enumParam(raw, 'opportunity_type', OPPORTUNITY_TYPES),
    limit: intParam(raw, 'limit', min, max, def ?? min),
    offset: intParam(raw, 'offset', 0, undefined, 0),
    locale: enumParam(raw, 'locale', LOCALES),
  };
}

export function parseLocale(raw: RawParams, def: Locale = 'en'): Locale {
  return enumParam(raw, 'locale', LOCALES) ?? def;
}

export function parseSkillsLimit(raw: RawParams): number {
  const { min, max, default: def } = limits.spec.skillsLimit;
  return intParam(raw, 'limit', min, max, def ?? max);
}

function requiredString(body: RawParams, name: string): string {
  const v = body[name];
  if (v === undefined || v === null) throw invalid(`${name} is required`, name);
  if (typeof v !== 'string') throw invalid(`${name} must be a string`, name);
  const max = limits.policy.stringMaxLength;
  if (v.length === 0 || v.length > max) throw invalid(`${name} must be a non-empty string of at most ${max} characters`, name);
  return v;
}

function optionalString(body: RawParams, name: string): string | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  const max = limits.policy.stringMaxLength;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw invalid(`${name} must be a non-empty string of at most ${max} characters`, name);
  return v;
}

export function parseApplyBody(body: unknown): ApplyBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('request body must be a JSON object', 'body');
  const b = body as RawParams;
  onlyParams(b, APPLY_FIELDS, 'field');
  const candidate_name = requiredString(b, 'candidate_name');
  const candidate_email = requiredString(b, 'candidate_email');
  if (!EMAIL.test(candidate_email)) throw invalid('candidate_email must be an email address', 'candidate_email');
  const message = requiredString(b, 'message');
  const { min, max } = limits.spec.applyMessageLength;
  const length = [...message].length;
  if (length < min || length > max) throw invalid(`message must be ${min} to ${max} characters (got ${length})`, 'message');
  const resume_url = optionalString(b, 'resume_url');
  if (resume_url !== undefined && !URL.canParse(resume_url)) throw invalid('resume_url must be an absolute URL', 'resume_url');
  const locale = enumParam(b, 'locale', LOCALES);
  return { candidate_name, candidate_email, message, ...(resume_url ? { resume_url } : {}), ...(locale ? { locale } : {}) };
}
