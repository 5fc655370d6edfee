// The audit export: `limit` bounds (1..500; 0, 501, non-integers refused), page sizes, cursor walks that
// return every row exactly once and in the same order while rows keep arriving, `since` seeding only
// the first page, and rows that never change once exported.

import fc from 'fast-check';
import type { Check, CheckContext } from '../check.js';
import { bodyGenerators, queryGenerators } from '../arbitraries/requests.js';
import { Violation, violation } from '../failure.js';
import { jsonOf, type Exchange } from '../target/http.js';
import type { TenantHandle } from '../target/tenants.js';
import { assertLedger, walkAudit, type AuditRow } from './ledger.js';
import { roomyTenant } from './screening-submit.js';
import { expectCode, expectStatus, nonce, policyOnce, screening, sinceOf, uniqueKey } from './support.js';

/** A tenant with `n` submitted requests (a few ledger rows each). */
async function tenantWithHistory(
  ctx: CheckContext,
  n: number,
): Promise<{ t: TenantHandle; submit: () => Promise<void>; since: string | undefined }> {
  const gen = bodyGenerators(ctx.contract, ctx.validator, 'submitScreen');
  const t = await roomyTenant(ctx);
  const prefix = nonce('audit');
  let i = 0;
  let first: Exchange | undefined;
  const submit = async () => {
    const ex = await screening(ctx).submit(t.apiKey, uniqueKey(gen.examples[i % 2], `${prefix}-${i++}`));
    first ??= ex;
    expectStatus(ex, 201, 'SCR-SUBMIT-1', 'a submission building audit history');
  };
  for (let k = 0; k < n; k++) await submit();
  // a fixed key's ledger holds every earlier run: walks start shortly before this history (target clock)
  return { t, submit, since: t.fresh || !first ? undefined : sinceOf(first) };
}

const params: Check = {
  id: 'screening.audit.params',
  title:
    'Audit `limit` 1..500 is honoured (pages never exceed it); 0, 501, non-integers and a non-date-time `since` are refused with 400',
  requirements: ['SCR-AUDIT-1', 'SCR-AUDIT-2', 'SCR-AUDIT-6', 'POL-AUDIT-2', 'POL-AUDIT-3', 'POL-USAGE-3'],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const { t } = await tenantWithHistory(ctx, 3);
    const api = screening(ctx);
    const q = queryGenerators(ctx.contract, 'getAudit');
    await ctx.property({
      name: 'valid limits',
      arbitrary: fc.integer({ min: 1, max: 500 }),
      examples: [1, 500, 2],
      runs: ctx.runs(0.5),
      predicate: async (limit) => {
        const ex = await api.audit(t.apiKey, { limit });
        expectStatus(ex, 200, 'SCR-AUDIT-2', `GET /audit?limit=${limit}`);
        const n = jsonOf(ex)?.events?.length;
        if (!(n <= limit)) throw violation('SCR-AUDIT-2', `a page of limit ${limit} holds ${n} events`, ex);
      },
    });
    if (!ctx.capabilities.negativeInput) return;
    for (const bad of ['0', '501', '-1', '1.5', 'abc', '']) {
      await ctx.failures.step(async () => {
        const ex = await api.audit(t.apiKey, { limit: bad });
        expectStatus(ex, 400, 'SCR-AUDIT-2', `GET /audit?limit=${bad}`);
        expectCode(ex, 'invalid_request', 'SCR-AUDIT-2', `GET /audit?limit=${bad}`);
      });
    }
    await ctx.property({
      name: 'invalid parameters',
      arbitrary: q.invalid(false, { cursor: fc.constant(undefined) }).filter((m) => m.param !== 'cursor'),
      examples: q.invalidExamples(false).filter((m) => m.param !== 'cursor'),
      runs: ctx.runs(0.5),
      predicate: async (m) => {
        const query = Object.fromEntries(
          Object.entries(m.query).filter(([k, v]) => k !== 'cursor' && v !== undefined && v !== 'undefined'),
        );
        const ex = await api.audit(t.apiKey, query);
        const req = m.param === 'since' ? 'SCR-AUDIT-6' : 'SCR-AUDIT-2';
        expectStatus(ex, 400, req, `GET /audit with ${m.description}`);
      },
    });
    // policy: unknown and repeated audit parameters are refused, usage ignores its parameters
    for (const [what, query] of [
      ['an unknown parameter', { unexpected_param: '1' }],
      ['a repeated limit', 'limit=5&limit=6'],
    ] as const) {
      const ex = await api.audit(t.apiKey, query, { policyProbe: true });
      if (ex.response?.status !== 400)
        ctx.failures.add('POL-AUDIT-2', `GET /audit with ${what} answered ${ex.response?.status}, not 400`, ex);
    }
    const usage = await api.usage(t.apiKey, { query: { unexpected_param: '1' }, policyProbe: true });
    if (usage.response?.status !== 200)
      ctx.failures.add(
        'POL-USAGE-3',
        `GET /usage with an unknown parameter answered ${usage.response?.status}, not 200 (usage ignores its parameters)`,
        usage,
      );
    const keyed = await api.usage(t.apiKey, { query: { api_key: t.apiKey }, policyProbe: true });
    if (keyed.response?.status !== 401)
      ctx.failures.add(
        'POL-USAGE-3',
        `GET /usage with a key in the query string answered ${keyed.response?.status}, not 401`,
        keyed,
      );
    // policy: garbage cursors and a malformed since next to a cursor are refused
    const page = await api.audit(t.apiKey, { limit: 1 });
    const cursor = jsonOf(page)?.nextCursor;
    for (const [what, query] of [
      ['a cursor this deployment never issued', { cursor: 'zz-not-a-cursor' }],
      ...(typeof cursor === 'string'
        ? ([['a malformed since next to a valid cursor', { cursor, since: 'yesterday' }]] as const)
        : []),
    ] as const) {
      const ex = await api.audit(t.apiKey, query, { policyProbe: true });
      if (ex.response?.status !== 400)
        ctx.failures.add('POL-AUDIT-3', `GET /audit with ${what} answered ${ex.response?.status}, not 400`, ex);
    }
  },
};

const walk: Check = {
  id: 'screening.audit.walk',
  title:
    'Cursor walks with any page size return every row exactly once, in one consistent order, while rows are appended between pages',
  requirements: ['SCR-AUDIT-4', 'SCR-LEDGER-4', 'SCR-LEDGER-2', 'POL-AUDIT-1'],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const { t, submit, since } = await tenantWithHistory(ctx, 4);
    const policy = policyOnce(ctx);
    await ctx.property({
      name: 'walks with appends',
      arbitrary: fc.record({
        limit: fc.integer({ min: 1, max: 7 }),
        appends: fc.array(fc.boolean(), { maxLength: 6 }),
      }),
      examples: [{ limit: 1, appends: [true, false, true] }],
      runs: ctx.runs(0.5),
      predicate: async ({ limit, appends }) => {
        const startWalk = await walkAudit(ctx, t.apiKey, { limit: 500, since });
        const existing = startWalk.rows;
        const w = await walkAudit(ctx, t.apiKey, {
          limit,
          since,
          between: async (page) => {
            if (appends[page]) await submit();
          },
        });
        const reference = (await walkAudit(ctx, t.apiKey, { limit: 500, since })).rows;
        const last = w.pages[w.pages.length - 1];
        const seen = new Set(w.rows.map((r) => r.id));
        const gap = existing.find((r) => !seen.has(r.id));
        const gone = existing.find((r) => !reference.some((x) => x.id === r.id));
        if (gone)
          throw violation(
            'SCR-LEDGER-4',
            `row ${gone.id} (${gone.requestId} → ${gone.toState}) was exported, then is missing from later exports: rows were removed from the ledger`,
            last,
          );
        if (gap)
          throw violation(
            'SCR-AUDIT-4',
            `a walk with limit ${limit} skipped row ${gap.id} (${gap.requestId} → ${gap.toState}), which existed before the walk began`,
            last,
          );
        const refIndex = new Map(reference.map((r, i) => [r.id, i]));
        for (let i = 1; i < w.rows.length; i++) {
          if ((refIndex.get(w.rows[i].id) ?? -1) < (refIndex.get(w.rows[i - 1].id) ?? -1)) {
            throw violation(
              'SCR-AUDIT-4',
              `a walk with limit ${limit} returned row ${w.rows[i].id} after ${w.rows[i - 1].id}, the reverse of the full export's order`,
              last,
            );
          }
        }
        for (const r of w.rows) {
          const ref = reference[refIndex.get(r.id) ?? -1];
          if (!ref)
            throw violation('SCR-LEDGER-4', `row ${r.id} returned by a walk is missing from a later export`, last);
          if (JSON.stringify(canonical(ref)) !== JSON.stringify(canonical(r)))
            throw violation(
              'SCR-LEDGER-4',
              `row ${r.id} changed between exports: ${JSON.stringify(r)} then ${JSON.stringify(ref)}`,
              last,
            );
        }
        assertLedger(reference, since === undefined, last);
        for (let i = 1; i < reference.length; i++) {
          if (Date.parse(reference[i].createdAt) < Date.parse(reference[i - 1].createdAt)) {
            policy(
              'POL-AUDIT-1',
              `rows are not oldest first: ${reference[i - 1].id} (${reference[i - 1].createdAt}) precedes ${reference[i].id} (${reference[i].createdAt})`,
              last,
            );
            break;
          }
        }
      },
    });
  },
};

/** A row with its keys in a fixed order, for comparisons. */
const canonical = (r: AuditRow) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));

const since: Check = {
  id: 'screening.audit.since',
  title:
    '`since` seeds only the first page: a walk that keeps sending `since` with the cursor returns the same rows as one that sends it once',
  requirements: ['SCR-AUDIT-5', 'SCR-AUDIT-4', 'POL-AUDIT-1'],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const { t, since: historySince } = await tenantWithHistory(ctx, 4);
    const policy = policyOnce(ctx);
    // rows keep arriving while the deployment works (scorer, reviewers): walks made one after another
    // agree on the rows the earlier one saw, and the later one may hold more at its end
    const rows = (await walkAudit(ctx, t.apiKey, { limit: 500, since: historySince })).rows;
    // a `since` among the newest rows keeps the walks short on a key with a long history
    const first = Math.max(0, rows.length - 30);
    await ctx.property({
      name: 'since walks',
      arbitrary: fc.record({
        from: fc.integer({ min: first, max: Math.max(first, rows.length - 1) }),
        limit: fc.integer({ min: 1, max: 5 }),
      }),
      examples: [{ from: Math.floor((first + rows.length) / 2), limit: 2 }],
      runs: ctx.runs(0.5),
      predicate: async ({ from, limit }) => {
        const sinceValue = rows[from].createdAt;
        // generous: the rows since then, plus what may arrive during the walks
        const maxPages = Math.ceil((rows.length - from + 500) / limit);
        const once = await walkAudit(ctx, t.apiKey, { limit, since: sinceValue, maxPages });
        const kept = await walkAudit(ctx, t.apiKey, {
          limit,
          since: sinceValue,
          sinceOnEveryPage: true,
          maxPages,
        }).catch((e) => {
          // a walk that breaks only because since came with the cursor breaks "cursor takes precedence"
          if (e instanceof Violation && e.requirement === 'SCR-AUDIT-4')
            throw violation(
              'SCR-AUDIT-5',
              `with since=${sinceValue} sent alongside the cursor (limit ${limit}): ${e.why}`,
              ...e.evidence,
            );
          throw e;
        });
        const a = once.rows.map((r) => r.id);
        const b = kept.rows.map((r) => r.id);
        if (b.length < a.length || b.slice(0, a.length).join() !== a.join()) {
          throw violation(
            'SCR-AUDIT-5',
            `with since=${sinceValue} and limit ${limit}, a walk that keeps sending since returned ${b.length} rows [${b.slice(0, 6).join(', ')}…] but the walk sending it once returned ${a.length} [${a.slice(0, 6).join(', ')}…]: since was applied again on cursor pages`,
            kept.pages[kept.pages.length - 1],
          );
        }
        const expected = rows.filter((r) => Date.parse(r.createdAt) >= Date.parse(sinceValue)).map((r) => r.id);
        if (a.slice(0, expected.length).join() !== expected.join())
          policy(
            'POL-AUDIT-1',
            `since=${sinceValue} kept ${a.length} rows, not the ${expected.length} rows created at or after it`,
            once.pages[0],
          );
      },
    });
  },
};

export const auditChecks = [params, walk, since];
