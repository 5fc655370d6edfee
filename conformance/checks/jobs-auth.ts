// Authentication of the jobs REST API: every /api/v1 endpoint refuses a missing or unknown key with 401;
// issued keys carry a prefix ending in `_live_`; a key lacking the scope gets 403 and a key in the
// query string 401 (policy).

import fc from 'fast-check';
import type { Check, CheckContext } from '../check.js';
import { violation } from '../failure.js';
import type { Exchange } from '../target/http.js';
import type { CallSpec } from '../target/target.js';
import { expectCode, expectStatus, JOBS, keyPrefix } from './support.js';

const APPLY_BODY = {
  candidate_name: 'Conformance Applicant',
  candidate_email: 'applicant@example.com',
  message:
    'I would like to apply for this role; I have relevant experience and can start within a month of an offer being made.',
};

/** One call per REST endpoint (job-specific ones against a fixed, possibly unknown id). */
export function jobsEndpoints(
  ctx: CheckContext,
  jobId = 'job_conformance_probe',
): { name: string; call: (auth: Partial<CallSpec>) => Promise<Exchange> }[] {
  const call = (spec: CallSpec) => ctx.target.call('jobs', spec);
  return [
    { name: 'GET /jobs', call: (a) => call({ path: `${JOBS}/jobs`, ...a }) },
    { name: 'GET /jobs/{id}', call: (a) => call({ path: `${JOBS}/jobs/${jobId}`, ...a }) },
    {
      name: 'POST /jobs/{id}/apply',
      call: (a) => call({ method: 'POST', path: `${JOBS}/jobs/${jobId}/apply`, json: APPLY_BODY, ...a }),
    },
    { name: 'GET /me', call: (a) => call({ path: `${JOBS}/me`, ...a }) },
    { name: 'GET /market/salary', call: (a) => call({ path: `${JOBS}/market/salary`, ...a }) },
    { name: 'GET /market/roles', call: (a) => call({ path: `${JOBS}/market/roles`, ...a }) },
    { name: 'GET /market/roles/{role}', call: (a) => call({ path: `${JOBS}/market/roles/backend-engineering`, ...a }) },
    { name: 'GET /market/skills', call: (a) => call({ path: `${JOBS}/market/skills`, ...a }) },
  ];
}

const unauthenticated: Check = {
  id: 'jobs.auth.unauthenticated',
  title: 'Every /api/v1 endpoint refuses a missing or unknown bearer key with 401 `unauthorized`',
  requirements: ['JOB-AUTH-1', 'JOB-AUTH-2'],
  appliesTo: { surface: 'jobs', needs: ['negativeInput'] },
  async run(ctx) {
    const eps = jobsEndpoints(ctx);
    for (const ep of eps) {
      await ctx.failures.step(async () => {
        const ex = await ep.call({ key: null });
        expectStatus(ex, 401, 'JOB-AUTH-1', `${ep.name} without Authorization`);
        expectCode(ex, 'unauthorized', 'JOB-AUTH-1', `${ep.name} without Authorization`);
      });
    }
    // a key in the query string and no Authorization header is still a call without the bearer header
    const t = await ctx.tenants.get('pro').catch(() => null);
    if (t) {
      for (const param of ['api_key', 'key', 'token', 'access_token']) {
        await ctx.failures.step(async () => {
          const ex = await eps[3].call({ key: null, query: { [param]: t.apiKey } });
          // refused either way: 401 for the missing header, or 400 for the key where it must never be
          expectStatus(ex, [400, 401], 'JOB-AUTH-1', `GET /me?${param}=<valid key> without Authorization`);
        });
      }
    }
    await ctx.property({
      name: 'unknown keys',
      // unknown keys that look issued: the deployment's own prefix, or ours
      arbitrary: fc.tuple(
        fc.oneof(
          fc.stringMatching(/^[a-zA-Z0-9]{32}$/).map((k) => `${keyPrefix(ctx)}${k}`),
          fc.stringMatching(/^[a-zA-Z0-9]{32}$/).map((k) => `rjk_live_${k}`),
          fc.stringMatching(/^[A-Za-z0-9_-]{1,48}$/),
        ),
        fc.integer({ min: 0, max: eps.length - 1 }),
      ),
      examples: [[`${keyPrefix(ctx)}${'0'.repeat(32)}`, 3] as [string, number]],
      runs: ctx.runs(0.5),
      predicate: async ([key, i]) => {
        const ex = await eps[i].call({ key });
        expectStatus(ex, 401, 'JOB-AUTH-2', `${eps[i].name} with an unknown key`);
        expectCode(ex, 'unauthorized', 'JOB-AUTH-2', `${eps[i].name} with an unknown key`);
      },
    });
  },
};

const keysAndScopes: Check = {
  id: 'jobs.auth.keys-and-scopes',
  title:
    'Issued keys carry a prefix ending in `_live_`; a key without the jobs scope gets 403; a key in the query string gets 401',
  requirements: ['JOB-AUTH-3', 'POL-AUTH-1', 'POL-AUTH-2', 'POL-AUTH-3'],
  appliesTo: { surface: 'jobs' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    if (!/^[A-Za-z0-9]+_live_\S+$/.test(t.apiKey))
      throw violation(
        'JOB-AUTH-3',
        `an issued key starts '${t.apiKey.slice(0, 12)}…', not with a prefix ending in _live_`,
      );
    if (t.fresh && !/^rjk_live_[A-Za-z0-9]{32}$/.test(t.apiKey))
      ctx.failures.add(
        'POL-AUTH-3',
        `an issued key does not look like rjk_live_<32 characters> (${t.apiKey.slice(0, 12)}…, ${t.apiKey.length} characters)`,
      );
    const me = await ctx.target.call('jobs', {
      path: `${JOBS}/me`,
      key: t.apiKey,
      query: { api_key: t.apiKey },
      policyProbe: true,
    });
    if (me.response?.status !== 401)
      ctx.failures.add('POL-AUTH-2', `GET /me?api_key=<key> answered ${me.response?.status ?? me.error}, not 401`, me);
    if (!ctx.capabilities.noScopeKey) return;
    const n = await ctx.tenants.withoutScope('jobs');
    for (const ep of jobsEndpoints(ctx).filter((e) => ['GET /jobs', 'GET /jobs/{id}', 'GET /me'].includes(e.name))) {
      const ex = await ep.call({ key: n.apiKey, policyProbe: true });
      if (ex.response?.status !== 403)
        ctx.failures.add(
          'POL-AUTH-1',
          `${ep.name} with a key lacking the jobs scope answered ${ex.response?.status ?? ex.error}, not 403`,
          ex,
        );
    }
  },
};

export const jobsAuthChecks = [unauthenticated, keysAndScopes];
