// Authentication and tenant scoping of the screening API: no key, a malformed or unknown key → 401;
// a key without the scope or of a disabled tenant → 403 (policy); usage and audit never show another
// tenant's data, whatever the interleaving of several tenants' submissions.

import fc from 'fast-check';
import type { Check, CheckContext } from '../check.js';
import { bodyGenerators } from '../arbitraries/requests.js';
import { violation } from '../failure.js';
import { jsonOf, type Exchange } from '../target/http.js';
import type { CallSpec } from '../target/target.js';
import { SCREENING_STATUSES } from '../monitor.js';
import { walkAudit, type AuditRow } from './ledger.js';
import {
  expectCode,
  expectStatus,
  keyPrefix,
  nonce,
  policyOnce,
  readUsage,
  SCREENING,
  sinceOf,
  uniqueKey,
} from './support.js';
import type { Answer } from '../json.js';

/** The three endpoints, each called with the given credentials (submit with a valid body). */
function endpoints(
  ctx: CheckContext,
  body: unknown,
): { name: string; operationId: string; call: (auth: Partial<CallSpec>) => Promise<Exchange> }[] {
  const call = (spec: CallSpec) => ctx.target.call('screening', spec);
  return [
    {
      name: 'POST /screen',
      operationId: 'submitScreen',
      call: (auth) => call({ method: 'POST', path: `${SCREENING}/screen`, json: uniqueKey(body), ...auth }),
    },
    { name: 'GET /usage', operationId: 'getUsage', call: (auth) => call({ path: `${SCREENING}/usage`, ...auth }) },
    { name: 'GET /audit', operationId: 'getAudit', call: (auth) => call({ path: `${SCREENING}/audit`, ...auth }) },
  ];
}

/** SCR-ERR-3 on an answer the monitor takes as a policy probe: its status is one the endpoint documents. */
function documentedStatus(ep: { name: string; operationId: string }, ex: Exchange, who: string): void {
  const status = ex.response?.status;
  const documented = SCREENING_STATUSES[ep.operationId] ?? [];
  if (status !== undefined && !documented.includes(status))
    throw violation(
      'SCR-ERR-3',
      `${ep.name} with ${who} answered ${status}, which is none of its documented statuses (${documented.join(', ')})`,
      ex,
    );
}

const unauthenticated: Check = {
  id: 'screening.auth.unauthenticated',
  title: 'Every screening endpoint refuses a missing, malformed or unknown bearer key with 401 `unauthorized`',
  requirements: ['SCR-AUTH-1', 'SCR-AUTH-2'],
  appliesTo: { surface: 'screening', needs: ['negativeInput'] },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const eps = endpoints(ctx, gen.examples[1]);
    for (const ep of eps) {
      await ctx.failures.step(async () => {
        const ex = await ep.call({ key: null });
        expectStatus(ex, 401, 'SCR-AUTH-1', `${ep.name} without Authorization`);
        expectCode(ex, 'unauthorized', 'SCR-AUTH-1', `${ep.name} without Authorization`);
      });
    }
    const malformed = fc.oneof(
      fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Token rjk_live_0000', 'bearer', 'Bearer a b'),
      fc.stringMatching(/^[A-Za-z0-9_]{1,40}$/).map((k) => `Bearer ${k}`),
      fc.stringMatching(/^[a-zA-Z0-9]{32}$/).map((k) => `Bearer rjk_live_${k}`),
      fc.stringMatching(/^[a-zA-Z0-9]{32}$/).map((k) => `Bearer ${keyPrefix(ctx)}${k}`),
    );
    await ctx.property({
      name: 'unknown or malformed keys',
      arbitrary: fc.tuple(malformed, fc.integer({ min: 0, max: eps.length - 1 })),
      runs: ctx.runs(0.5),
      predicate: async ([authorization, i]) => {
        const ex = await eps[i].call({ authorization });
        expectStatus(ex, 401, 'SCR-AUTH-2', `${eps[i].name} with Authorization: ${authorization}`);
        expectCode(ex, 'unauthorized', 'SCR-AUTH-2', `${eps[i].name} with Authorization: ${authorization}`);
      },
    });
  },
};

const forbidden: Check = {
  id: 'screening.auth.forbidden',
  title:
    'A key without the screening scope, or of a disabled tenant, is refused with 403 `forbidden` and charged nothing',
  requirements: ['SCR-AUTH-3', 'POL-AUTH-1', 'SCR-CREDIT-2'],
  appliesTo: { surface: 'screening', needs: ['noScopeKey'] },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const t = await ctx.tenants.withoutScope('screening');
    for (const ep of endpoints(ctx, gen.examples[1])) {
      await ctx.failures.step(async () => {
        const ex = await ep.call({ key: t.apiKey, policyProbe: true });
        if (ex.response?.status === 403) expectCode(ex, 'forbidden', 'SCR-AUTH-3', `${ep.name} answered 403`);
        else {
          // whether such a key is refused is policy; whatever it is answered is still one of the endpoint's statuses
          documentedStatus(ep, ex, 'a key lacking the screening scope');
          ctx.failures.add(
            'POL-AUTH-1',
            `${ep.name} with a key lacking the screening scope answered ${ex.response?.status ?? ex.error}, not 403`,
            ex,
          );
        }
      });
    }
    if (!ctx.capabilities.creditControl) return;
    const d = await ctx.tenants.fresh('pro');
    const before = await readUsage(ctx, d.apiKey);
    await ctx.tenants.patch(d, { disabled: true });
    for (const ep of endpoints(ctx, gen.examples[1])) {
      await ctx.failures.step(async () => {
        const ex = await ep.call({ key: d.apiKey, policyProbe: true });
        if (ex.response?.status === 403) expectCode(ex, 'forbidden', 'SCR-AUTH-3', `${ep.name} answered 403`);
        else {
          documentedStatus(ep, ex, 'the key of a disabled tenant');
          ctx.failures.add(
            'POL-AUTH-1',
            `${ep.name} with the key of a disabled tenant answered ${ex.response?.status ?? ex.error}, not 403`,
            ex,
          );
        }
      });
    }
    await ctx.tenants.patch(d, { disabled: false });
    const after = await readUsage(ctx, d.apiKey);
    if (after.creditsRemaining !== before.creditsRemaining)
      throw violation(
        'SCR-CREDIT-2',
        `a refused submission by a disabled tenant changed creditsRemaining ${before.creditsRemaining} → ${after.creditsRemaining}`,
        after.exchange,
      );
  },
};

const keyInQuery: Check = {
  id: 'screening.auth.key-in-query',
  title: 'A request carrying an API key in its query string is refused with 401, even with a valid header',
  requirements: ['POL-AUTH-2'],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    for (const param of ['api_key', 'key', 'token']) {
      const ex = await ctx.target.call('screening', {
        path: `${SCREENING}/usage`,
        key: t.apiKey,
        query: { [param]: t.apiKey },
        policyProbe: true,
      });
      if (ex.response?.status !== 401)
        ctx.failures.add(
          'POL-AUTH-2',
          `GET /usage?${param}=<key> answered ${ex.response?.status ?? ex.error}, not 401`,
          ex,
        );
    }
  },
};

const isolation: Check = {
  id: 'screening.tenant-isolation',
  keysOnly: 'two tenants',
  title:
    "Interleaved submissions by several tenants: each tenant's usage and audit show only its own requests and wallet",
  requirements: ['SCR-AUTH-4', 'SCR-AUDIT-3', 'POL-AUDIT-1'],
  // fresh tenants, or the fixed keys of two tenants (pro and starter) whose ledgers are read from this run on
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
    const policy = policyOnce(ctx);
    await ctx.property({
      name: 'interleavings',
      arbitrary: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 8 }),
      examples: [[0, 1, 0, 2]],
      runs: ctx.runs(0.25),
      predicate: async (order) => {
        const tiers = ctx.tenants.canProvision ? (['pro', 'starter', 'pro'] as const) : (['pro', 'starter'] as const);
        const tenants = await Promise.all(tiers.map((tier) => ctx.tenants.get(tier)));
        const start = await Promise.all(tenants.map((t) => readUsage(ctx, t.apiKey)));
        if (!ctx.tenants.canProvision && start[0].body.tenantId === start[1].body.tenantId)
          throw violation(
            'SCR-AUTH-4',
            `the pro and starter keys (two tenants) both read tenantId ${start[0].body.tenantId}`,
            start[0].exchange,
            start[1].exchange,
          );
        const since = start[0].exchange.response?.headers.date ? sinceOf(start[0].exchange) : undefined;
        const submitted = new Set<string>();
        const mine = tenants.map(() => new Set<string>());
        const sharedKey = nonce('same');
        for (const [n, pick] of order.entries()) {
          const who = pick % tenants.length;
          const ex = await ctx.target.call('screening', {
            method: 'POST',
            path: `${SCREENING}/screen`,
            key: tenants[who].apiKey,
            json: uniqueKey(gen.examples[n % 2], `${sharedKey}-${n}`),
          });
          expectStatus(ex, 201, 'SCR-SUBMIT-1', `submission ${n + 1} (tenant ${who + 1})`);
          mine[who].add(jsonOf(ex).requestId);
          submitted.add(jsonOf(ex).requestId);
        }
        for (const [i, t] of tenants.entries()) {
          const u = await readUsage(ctx, t.apiKey);
          if (t.tenantId ? u.body.tenantId !== t.tenantId : u.body.tenantId !== start[i].body.tenantId)
            throw violation(
              'SCR-AUTH-4',
              `tenant ${t.tenantId ?? start[i].body.tenantId}'s usage reports tenantId ${u.body.tenantId}`,
              u.exchange,
            );
          const spent = start[i].creditsRemaining - u.creditsRemaining;
          if (spent !== mine[i].size)
            throw violation(
              'SCR-AUTH-4',
              `tenant ${i + 1} made ${mine[i].size} submissions but its usage shows ${spent} credits spent (another tenant's wallet?)`,
              start[i].exchange,
              u.exchange,
            );
          // a fresh tenant owns exactly what it submitted; a fixed key also owns its history, so there a
          // foreign row is one of the requests the other tenants submitted in this run
          const owns = (r: AuditRow) =>
            t.fresh ? mine[i].has(r.requestId) : !submitted.has(r.requestId) || mine[i].has(r.requestId);
          const walk = await walkAudit(ctx, t.apiKey, {
            limit: t.fresh ? 3 : 100,
            owns,
            since: t.fresh ? undefined : since,
          });
          const foreign = walk.rows.find((r) => !owns(r));
          if (foreign)
            throw violation(
              'SCR-AUDIT-3',
              `tenant ${i + 1}'s audit export contains row ${foreign.id} of request ${foreign.requestId}, which it never submitted`,
              ...walk.pages.slice(-1),
            );
          const missing = [...mine[i]].find(
            (id) => !walk.rows.some((r) => r.requestId === id && r.toState === 'received'),
          );
          if (missing)
            throw violation(
              'SCR-AUDIT-4',
              `tenant ${i + 1}'s audit export lacks the intake row of its request ${missing}`,
              ...walk.pages.slice(-1),
            );
        }
        // another tenant's cursor: never the first tenant's rows (whatever the cursor is: a position, a
        // token); policy says 400. With fixed keys the cursor is taken from the first page at this run's
        // history, so the rows after it include the ones this run submitted.
        const owner = tenants.findIndex((_, i) => mine[i].size > 0);
        const page = await ctx.target.call('screening', {
          path: `${SCREENING}/audit`,
          key: tenants[owner].apiKey,
          query: { limit: 1, ...(since && !tenants[owner].fresh ? { since } : {}) },
        });
        const cursor = jsonOf(page)?.nextCursor;
        if (typeof cursor === 'string') {
          const other = tenants[(owner + 1) % tenants.length];
          const ex = await ctx.target.call('screening', {
            path: `${SCREENING}/audit`,
            key: other.apiKey,
            query: { cursor, limit: 500 },
          });
          const leaked = (jsonOf(ex)?.events ?? []).find((r: Answer) => mine[owner].has(r.requestId));
          if (leaked)
            throw violation(
              'SCR-AUDIT-3',
              `another tenant's cursor returned row ${leaked.id} of tenant ${owner + 1}`,
              page,
              ex,
            );
          if (ex.response?.status !== 400 && tenants.every((t) => t.fresh))
            policy('POL-AUDIT-1', `another tenant's cursor answered ${ex.response?.status}, not 400`, ex);
        }
      },
    });
  },
};

export const authChecks = [unauthenticated, forbidden, keyInQuery, isolation];
