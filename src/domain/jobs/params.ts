// Typed commands of the jobs domain from loosely typed input. Adapters validate against the contract
// first (which names the parameter); these checks are the domain's own guard, so every adapter (REST,
// MCP) gets the same 400 for the same bad input, whether values arrive as query strings or numbers.
// Requirements: JOB-SEARCH-3, JOB-SEARCH-4, JOB-MKT-4, JOB-MKT-5, POL-ERR-2; decisions D-07, D-39.

import { invalid } from '../../errors/errors.js';
import { limits } from '../plans.js';
import { JOB_TYPES, LOCALES, OPPORTUNITY_TYPES, REMOTE_TYPES, type Locale, type SearchParams } from './types.js';

export type RawParams = Record<string, unknown>;

const SEARCH_PARAMS = [
  'q',
  'location',
  'remote_type',
  'job_type',
  'opportunity_type',
  'limit',
  'offset',
  'locale',
] as const;

/** Refuses parameters outside `allowed`, naming the first unknown one. */
export function onlyParams(raw: RawParams, allowed: readonly string[], what = 'query parameter'): void {
  for (const k of Object.keys(raw)) {
    if (raw[k] !== undefined && !allowed.includes(k)) {
      throw invalid(
        `unknown ${what} '${k}'${allowed.length ? `; allowed: ${allowed.join(', ')}` : ': this endpoint takes none'}`,
        k,
      );
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
