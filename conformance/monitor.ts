// The response monitor: every exchange any check makes with the screening or jobs API is validated
// against the contract — documented status, body schema, documented headers, the error envelope and
// its code/status pairing, the X-RateLimit-* trio on every /api/v1 response — whatever the check was
// looking at. Problems become failures of the running check under the requirement they break; repeats
// of the same problem are folded into one failure with a count.

import type { OperationSpec } from './contract.js';
import type { Failure } from './failure.js';
import type { Exchange } from './target/http.js';
import { retryAfterMs } from './target/rate-governor.js';
import type { CallSpec, Surface } from './target/target.js';
import type { ContractValidator, Problem } from './validation.js';
import type { Answer } from './json.js';

const ERROR_STATUS: Record<string, number> = {
  unauthorized: 401,
  forbidden: 403,
  payment_required: 402,
  not_found: 404,
  invalid_request: 400,
  rate_limited: 429,
  service_disabled: 503,
  internal: 500,
};

/**
 * Statuses the screening document itself lists per endpoint (section 7), plus the statuses of its error
 * table that belong to no request in particular: 429 rate_limited (a deployment's own limits), 503
 * service_disabled and 500 internal. A 500 answering bad input is still caught by the checks that
 * expect the 400.
 */
const ANY_REQUEST = [429, 500, 503];
export const SCREENING_STATUSES: Record<string, number[]> = {
  submitScreen: [200, 201, 400, 401, 402, 403, ...ANY_REQUEST],
  getUsage: [200, 401, 403, ...ANY_REQUEST],
  getAudit: [200, 400, 401, 403, ...ANY_REQUEST],
};
/**
 * The jobs document lists error codes without statuses per endpoint: any of its table's statuses; which
 * success status an apply answers is not fixed either (a submitted or queued application may be 201 or 202).
 */
const JOBS_STATUSES = [200, ...Object.values(ERROR_STATUS)];
const JOBS_STATUSES_BY_OP: Record<string, number[]> = { applyToJob: [200, 201, 202, ...Object.values(ERROR_STATUS)] };

const MARKET_MUST: Record<string, string> = {
  getSalaryBenchmarks: 'JOB-MKT-1',
  listRoles: 'JOB-MKT-2',
  getRoleReport: 'JOB-MKT-3',
  listSkills: 'JOB-MKT-4',
};

function mustId(op: OperationSpec, status: number, p: Problem): string {
  if (p.at === 'status') return op.api === 'screening' ? 'SCR-ERR-3' : 'JOB-ERR-1';
  if (p.at.startsWith('header:'))
    return /retry-after/i.test(p.at)
      ? 'JOB-RATE-3'
      : /x-ratelimit/i.test(p.at)
        ? 'JOB-RATE-1'
        : op.api === 'screening'
          ? 'SCR-ERR-3'
          : 'JOB-ERR-1';
  if (status >= 400) {
    if (op.operationId === 'submitScreen' && status === 402) return 'SCR-CREDIT-5';
    return op.api === 'screening' ? 'SCR-ERR-1' : 'JOB-ERR-1';
  }
  switch (op.operationId) {
    case 'submitScreen':
      return 'SCR-SUBMIT-2';
    case 'getUsage':
      if (/freeScreenCap|must NOT|"then"|"else"/.test(p.message) || p.at === '/freeScreenCap') return 'SCR-USAGE-5';
      if (p.at === '/usagePercent') return 'SCR-USAGE-3';
      if (p.at === '/resetAt') return 'SCR-USAGE-6';
      if (['/planTier', '/creditsRemaining', '/creditsCap'].includes(p.at)) return 'SCR-USAGE-2';
      return 'SCR-USAGE-1';
    case 'getAudit':
      if (/^\/events\/\d+\/(toState|fromState)/.test(p.at)) return 'SCR-STATE-1';
      if (/^\/events\/\d+\/actor/.test(p.at)) return 'SCR-LEDGER-3';
      return p.at.startsWith('/events/') ? 'SCR-LEDGER-5' : 'SCR-AUDIT-1';
    case 'searchJobs':
      return p.at.startsWith('/jobs/') ? 'JOB-SEARCH-2' : p.at === '/tier' ? 'JOB-TIER-1' : 'JOB-SEARCH-1';
    case 'getJob':
      return 'JOB-GET-1';
    case 'applyToJob':
      return 'JOB-APPLY-5';
    case 'getMe':
      return 'JOB-ME-1';
    default:
      return MARKET_MUST[op.operationId] ?? (op.api === 'screening' ? 'SCR-ERR-3' : 'JOB-ERR-1');
  }
}

function policyId(op: OperationSpec, status: number, p: Problem): string {
  if (/idempotent-replayed/i.test(p.at)) return 'POL-IDEMP-2';
  if (/x-ratelimit-reset|retry-after/i.test(p.at)) return 'POL-RATE-1';
  if (op.operationId === 'searchJobs' && status === 402) return 'POL-TIER-1';
  if (op.operationId === 'applyToJob' && status === 402) return 'POL-APPLY-2';
  if (op.operationId === 'getMe' && status === 200) return 'POL-ME-1';
  if (op.operationId === 'applyToJob' && status === 200) return 'POL-APPLY-1';
  if (MARKET_MUST[op.operationId] && status === 200) return 'POL-MKT-1';
  if (op.operationId === 'getUsage' && p.at === '/resetAt') return 'POL-USAGE-2';
  return 'POL-ERR-1';
}

/** Finds the operation of a concrete path (templates like /api/v1/jobs/{id} become one-segment wildcards). */
export function operationMatcher(ops: OperationSpec[]) {
  const compiled = ops.map((op) => ({
    op,
    re: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}/?$`),
  }));
  return (method: string, path: string): OperationSpec | null =>
    compiled.find((c) => c.op.method === method.toUpperCase() && c.re.test(path))?.op ?? null;
}

export class ResponseMonitor {
  private readonly match: (method: string, path: string) => OperationSpec | null;
  /** Per check (checks run side by side), the problems seen so far, folded. */
  private readonly folded = new Map<string, Map<string, Failure>>();

  constructor(
    ops: OperationSpec[],
    private readonly validator: ContractValidator,
  ) {
    this.match = operationMatcher(ops);
  }

  /** What was collected for `check` (its exchanges, whenever they were made); forgets it. */
  drain(check: string): Failure[] {
    const out = [...(this.folded.get(check)?.values() ?? [])];
    this.folded.delete(check);
    return out;
  }

  private add(check: string, requirement: string, why: string, ex: Exchange): void {
    const k = `${requirement}\u0000${why}`;
    let mine = this.folded.get(check);
    if (!mine) this.folded.set(check, (mine = new Map()));
    const f = mine.get(k);
    if (f) f.occurrences = (f.occurrences ?? 1) + 1;
    else mine.set(k, { requirement, check, why, evidence: [ex], occurrences: 1 });
  }

  observe(check: string, ex: Exchange, surface: Surface, spec: CallSpec): void {
    if ((surface !== 'screening' && surface !== 'jobs') || !ex.response) return;
    const path = spec.path;
    const res = ex.response;
    const isJobs = path.startsWith('/api/v1/');
    if (isJobs) {
      const missing = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].filter(
        (h) => res.headers[h] === undefined,
      );
      if (missing.length)
        this.add(
          check,
          'JOB-RATE-1',
          `a ${res.status} response of ${spec.method ?? 'GET'} ${path.replace(/\/jobs\/[^/]+/, '/jobs/{id}')} lacks ${missing.join(', ')}`,
          ex,
        );
    }
    if (res.status >= 400) this.envelope(check, ex, isJobs ? 'JOB-ERR-1' : 'SCR-ERR');
    if (!isJobs && res.status === 200 && path.endsWith('/usage')) this.nearLimit(check, ex);
    const op = this.match(spec.method ?? 'GET', path);
    if (!op) return;
    const specStatuses =
      op.api === 'screening'
        ? (SCREENING_STATUSES[op.operationId] ?? [])
        : (JOBS_STATUSES_BY_OP[op.operationId] ?? JOBS_STATUSES);
    const verdict = this.validator.response(
      op.operationId,
      res.status,
      res.json,
      res.headers,
      spec.policyProbe ? [...specStatuses, res.status] : specStatuses,
    );
    for (const p of verdict.must) {
      if (isJobs && p.at.toLowerCase().startsWith('header:x-ratelimit') && / is missing$/.test(p.message)) continue; // reported above
      // the documents fix no form for Retry-After: HTTP's own HTTP-date form is as good as seconds
      if (/^header:retry-after$/i.test(p.at) && retryAfterMs(res.headers['retry-after']) !== null) {
        this.add(check, policyId(op, res.status, p), `${op.operationId} ${res.status}: ${p.message}`, ex);
        continue;
      }
      this.add(check, mustId(op, res.status, p), `${op.operationId} ${res.status}: ${p.message}`, ex);
    }
    for (const p of verdict.policy) {
      if (isJobs && p.at.toLowerCase().startsWith('header:x-ratelimit') && / is missing$/.test(p.message)) continue; // reported above
      this.add(check, policyId(op, res.status, p), `${op.operationId} ${res.status}: ${p.message}`, ex);
    }
  }

  /** Every usage reading, of any key: nearLimit is true exactly when 80% or more of creditsCap is used. */
  private nearLimit(check: string, ex: Exchange): void {
    const b = ex.response?.json as Answer;
    if (
      !Number.isInteger(b?.creditsCap) ||
      !Number.isInteger(b?.creditsRemaining) ||
      b.creditsCap <= 0 ||
      typeof b?.nearLimit !== 'boolean'
    )
      return;
    const used = b.creditsCap - b.creditsRemaining;
    if (b.nearLimit !== used >= 0.8 * b.creditsCap)
      this.add(
        check,
        'SCR-USAGE-4',
        `nearLimit is ${b.nearLimit} with ${used} of ${b.creditsCap} credits used (${((100 * used) / b.creditsCap).toFixed(1)}%)`,
        ex,
      );
  }

  private envelope(check: string, ex: Exchange, area: 'JOB-ERR-1' | 'SCR-ERR'): void {
    const res = ex.response!;
    const err = (res.json as Answer)?.error;
    const shapeId = area === 'SCR-ERR' ? 'SCR-ERR-1' : 'JOB-ERR-1';
    const codeId = area === 'SCR-ERR' ? 'SCR-ERR-2' : 'JOB-ERR-1';
    if (typeof err !== 'object' || err === null || typeof err.code !== 'string' || typeof err.message !== 'string') {
      this.add(
        check,
        shapeId,
        `a ${res.status} response is not the error envelope {error:{code,message}}: ${res.body.slice(0, 120) || '(empty body)'}`,
        ex,
      );
      return;
    }
    const expected = ERROR_STATUS[err.code];
    if (expected === undefined)
      this.add(check, codeId, `error code '${err.code}' is not one of the documented codes`, ex);
    else if (expected !== res.status)
      this.add(check, codeId, `error code '${err.code}' belongs with status ${expected}, not ${res.status}`, ex);
  }
}
