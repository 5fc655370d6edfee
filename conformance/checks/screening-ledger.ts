// The ledger of one request through its life: an intake row, a scoring row, a wait in human review
// (never delivered straight from the model), the reviewer's decision as its own row naming the
// reviewer; rows that chain state to state; a replay reporting the request's current state.

import type { Check, CheckContext } from '../check.js';
import { skip, violation } from '../failure.js';
import { jsonOf, type Exchange } from '../target/http.js';
import type { TenantHandle } from '../target/tenants.js';
import { assertLedger, ledgerProblems, settledLedger, type AuditRow } from './ledger.js';
import { roomyTenant } from './screening-submit.js';
import { expectStatus, poll, screening, sinceOf, uniqueKey } from './support.js';

export const REVIEWER = { reviewerId: 'conformance-reviewer', reviewerRole: 'qa' };
const REVIEW_STATES = ['pending_review', 'approved', 'rejected', 'edited', 'delivered', 'expired'];

/** Submits a structured candidate and returns its requestId and the submit exchange. */
export async function submitOne(ctx: CheckContext, t: TenantHandle) {
  const body = uniqueKey({
    idempotencyKey: 'lifecycle',
    candidate: {
      kind: 'structured',
      fullName: 'Conformance Candidate',
      skills: ['TypeScript', 'PostgreSQL'],
      summary: 'Backend engineer, five years of TypeScript.',
      experienceYears: 5,
    },
    jobSpec: { title: 'Backend Engineer', mustHaves: ['TypeScript'], niceToHaves: ['Kubernetes'] },
  });
  // the fixed body must be valid for the contract this target is judged by
  if (ctx.validator.schema('SubmitRequest', body).must.length)
    throw new Error('the lifecycle body is not a valid SubmitRequest');
  const ex = await screening(ctx).submit(t.apiKey, body);
  expectStatus(ex, 201, 'SCR-SUBMIT-1', 'submitting a structured candidate');
  return { requestId: jsonOf(ex).requestId as string, body, exchange: ex };
}

export const rowsOf = (rows: AuditRow[], requestId: string) => rows.filter((r) => r.requestId === requestId);

/** Walks the ledger (from shortly before `after`, by the target's Date header) until the request's rows reach one of `states`. */
export async function untilState(
  ctx: CheckContext,
  t: TenantHandle,
  requestId: string,
  states: string[],
  timeoutMs: number,
  after?: Exchange,
) {
  return settledLedger(
    ctx,
    t.apiKey,
    (rows) => rowsOf(rows, requestId).some((r) => states.includes(r.toState)),
    timeoutMs,
    after ? sinceOf(after) : undefined,
  );
}

const DECIDED = ['approved', 'rejected', 'edited'];
const sorted = (r: AuditRow) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
const chain = (rows: AuditRow[]) => rows.map((r) => r.toState).join(' → ');

const lifecycle: Check = {
  id: 'screening.ledger.lifecycle',
  title:
    'A request is scored, waits in human review and is decided by a reviewer; each transition is its own chained ledger row',
  requirements: [
    'SCR-LEDGER-1',
    'SCR-LEDGER-2',
    'SCR-LEDGER-3',
    'SCR-LEDGER-4',
    'SCR-LEDGER-5',
    'SCR-STATE-1',
    'SCR-STATE-2',
    'SCR-REVIEW-1',
    'SCR-REVIEW-2',
    'SCR-IDEMP-1',
    'POL-STATE-1',
    'POL-HOOK-3',
  ],
  appliesTo: { surface: 'screening' },
  async run(ctx) {
    const { pipelineMs, reviewMs } = ctx.config.waits;
    const t = await roomyTenant(ctx);
    const { requestId, body, exchange } = await submitOne(ctx, t);
    let walk = await untilState(ctx, t, requestId, REVIEW_STATES, pipelineMs, exchange);
    let mine = rowsOf(walk.rows, requestId);
    const evidence = () => walk.pages[walk.pages.length - 1];
    if (mine.length === 0)
      throw violation(
        'SCR-LEDGER-1',
        `the ledger has no row for the accepted request ${requestId}`,
        exchange,
        evidence(),
      );
    // the invariants hold at every moment, whoever decides and however fast (a reviewer may already have decided)
    for (const p of ledgerProblems(mine, true)) ctx.failures.add(p.requirement, p.why, evidence());
    for (const r of mine)
      if (ctx.contract.validate('ScreeningState', r.toState).length)
        throw violation(
          'SCR-STATE-1',
          `row ${r.id} moves to '${r.toState}', which is not a documented state`,
          evidence(),
        );
    if (mine[0].actor !== 'system')
      throw violation('SCR-LEDGER-3', `the intake row's actor is '${mine[0].actor}', not system`, evidence());
    const last = mine[mine.length - 1];
    if (last.toState === 'failed')
      throw violation('SCR-REVIEW-1', `a valid structured candidate ended in 'failed' before review`, evidence());
    if (!mine.some((r) => r.toState === 'pending_review'))
      throw violation(
        'SCR-REVIEW-1',
        `${requestId} did not enter human review within ${pipelineMs / 1000} s (waits.pipelineMs) (rows: ${chain(mine)})`,
        evidence(),
      );
    const scoredAt = mine.findIndex((r) => r.toState === 'scored');
    if (scoredAt < 0)
      ctx.failures.add(
        'SCR-LEDGER-1',
        `${requestId} reached review with no scoring row (rows: ${mine.map((r) => `${r.fromState ?? 'null'}→${r.toState}`).join(', ')})`,
        evidence(),
      );
    const upToReview = mine.slice(0, mine.findIndex((r) => r.toState === 'pending_review') + 1);
    const expectedPath = ['received', 'parsed', 'scored', 'pending_review'];
    if (chain(upToReview) !== chain(expectedPath.map((toState) => ({ toState }) as AuditRow)))
      ctx.failures.add(
        'POL-STATE-1',
        `the rows before review are ${chain(upToReview)}, not ${expectedPath.join(' → ')}`,
        evidence(),
      );
    // a replay reports the current state: one the request held between the walk before it and the walk after it
    const replay = await screening(ctx).submit(t.apiKey, body);
    expectStatus(replay, 200, 'SCR-IDEMP-1', 'a replay of a request waiting in review');
    const after = await untilState(ctx, t, requestId, [], 0, exchange);
    const afterRows = rowsOf(after.rows, requestId);
    const possible = afterRows.slice(mine.length - 1).map((r) => r.toState);
    if (!possible.includes(jsonOf(replay)?.state))
      throw violation(
        'SCR-IDEMP-1',
        `a replay reports state '${jsonOf(replay)?.state}' while the ledger went ${possible.join(' → ')} around it`,
        replay,
        after.pages[after.pages.length - 1],
      );

    if (ctx.capabilities.reviewDecisions && ctx.control) {
      const review = await poll(
        async () => (await ctx.control!.reviews(t.tenantId!)).find((r) => r.requestId === requestId),
        pipelineMs,
      );
      if (!review)
        throw violation('SCR-REVIEW-1', `${requestId} is in pending_review but not in the review queue`, evidence());
      await ctx.control.decide(requestId, { decision: 'approved', ...REVIEWER, note: 'conformance check' });
    }
    // the decision: ours through the control API, or the deployment's own reviewers'
    const early = mine;
    walk = await untilState(
      ctx,
      t,
      requestId,
      ['delivered', 'failed', ...(ctx.control ? [] : DECIDED)],
      ctx.control ? pipelineMs : reviewMs,
      exchange,
    );
    mine = rowsOf(walk.rows, requestId);
    // append-only: every row exported while the request waited is exported unchanged once it is decided
    for (const before of early) {
      const now = mine.find((r) => r.id === before.id);
      if (!now)
        throw violation(
          'SCR-LEDGER-4',
          `row ${before.id} (${before.fromState ?? 'null'} → ${before.toState}) of ${requestId}, exported earlier, is missing from a later export`,
          evidence(),
        );
      if (JSON.stringify(sorted(now)) !== JSON.stringify(sorted(before)))
        throw violation(
          'SCR-LEDGER-4',
          `row ${before.id} of ${requestId} changed between exports: ${JSON.stringify(before)} then ${JSON.stringify(now)}`,
          evidence(),
        );
    }
    assertLedger(mine, true, evidence());
    const decision = mine.find((r) => DECIDED.includes(r.toState));
    if (!decision) {
      if (ctx.control)
        throw violation(
          'SCR-LEDGER-1',
          `after a reviewer approved ${requestId} the ledger has no decision row (rows: ${chain(mine)})`,
          evidence(),
        );
      throw skip(
        `no reviewer of the deployment decided ${requestId} within ${reviewMs / 1000} s (waits.reviewMs): the decision row was not observed`,
      );
    }
    if (!/^reviewer:.+/.test(decision.actor))
      throw violation('SCR-LEDGER-3', `the decision row's actor is '${decision.actor}', not reviewer:<id>`, evidence());
    if (ctx.control && decision.actor !== `reviewer:${REVIEWER.reviewerId}`)
      throw violation(
        'SCR-LEDGER-3',
        `the decision row's actor is '${decision.actor}', not 'reviewer:${REVIEWER.reviewerId}'`,
        evidence(),
      );
    if (decision.fromState !== 'pending_review')
      throw violation(
        'SCR-REVIEW-2',
        `the decision row moves from '${decision.fromState}', not from pending_review`,
        evidence(),
      );
    if (ctx.control && !mine.some((r) => r.toState === 'delivered'))
      ctx.failures.add(
        'POL-HOOK-3',
        `a decided request of a tenant without a webhookUrl did not reach delivered (rows: ${chain(mine)})`,
        evidence(),
      );
  },
};

export const ledgerChecks = [lifecycle];
