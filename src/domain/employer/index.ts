// The employer tools (candidate pool, match_candidates, talent_search, post_job, hire with its scam
// check and outbox) and the seeker's draft_application with its grounding check and monthly quota.
// Everything is in memory, generated from the seed, and emptied by reset().
// Requirements: MCP-TOOL-4, MCP-TOOL-8, MCP-TOOL-9, MCP-TOOL-10, MCP-TOOL-11, MCP-TOOL-12, MCP-TOOL-13 (through
// the modules it wires); decisions D-31, D-32, D-47, D-48, D-49.

import type { CoreContext } from '../context.js';
import { notFound } from '../../errors/errors.js';
import type { JobsService } from '../jobs/index.js';
import { TenantRngs } from '../rng.js';
import { jobsTierOf, limits, upgradeUrlOf } from '../plans.js';
import type { Principal } from '../tenants.js';
import { generatePool } from './candidatePool.js';
import { curatedList } from './curatedList.js';
import { draftApplication, type DraftInput } from './drafting.js';
import { hire, type HireArgs } from './hire.js';
import { criteriaFrom, matchCandidates, type EmployerSearchArgs } from './matchCandidates.js';
import { postJob, type PostJobArgs } from './postJob.js';
import { orderView } from './postings.js';
import { resumeOf } from './seekerResumes.js';
import type { EmployerService, EmployerTenantState } from './service.js';
import { talentSearch } from './talentSearch.js';

/** Reply-to addresses route employer replies to the seeker; the sandbox only mints them. */
export const REPLY_DOMAIN = 'replies.remote-jobs.example';

export function createEmployer(ctx: CoreContext, jobs: JobsService): EmployerService {
  const pool = generatePool(ctx.config.seed);
  const rng = ctx.rng.fork('employer');
  // a tenant's reply tokens are drawn from its own stream (D-143)
  const rngs = new TenantRngs(rng.position);
  const { mail: outbox, postings, draftQuota: quota } = ctx.store;
  const replyTokens = new Map<string, string>();

  /** Paid tiers get a reply-to address, stable per tenant and job. */
  const replyTo = (principal: Principal, jobId: string): string | null => {
    if (jobsTierOf(principal.tenant.planTier) === 'free') return null;
    const k = `${principal.tenant.id}:${jobId}`;
    let token = replyTokens.get(k);
    if (!token) replyTokens.set(k, (token = rngs.of(principal.tenant.id).token(20)));
    return `reply+${token}@${REPLY_DOMAIN}`;
  };

  return {
    /** The whole pool, personal data included: for tests and fixtures only, never for output. */
    pool: () => pool,
    outbox,
    postings,

    matchCandidates: (args: EmployerSearchArgs & { limit?: number }) => matchCandidates(pool, args),

    /** 50 calls a day per key (limits.spec.talentSearchPerDay); a call with bad arguments is not counted. */
    talentSearch(principal: Principal, args: EmployerSearchArgs) {
      criteriaFrom(args);
      const d = ctx.rateLimits.takeTalentSearch(principal);
      const perDay = d.limit;
      const result = talentSearch(pool, args, limits.spec.talentSearchMaxCards);
      return {
        ...result,
        usage: { callsToday: perDay - d.remaining, limitPerDay: perDay, resetAt: new Date(d.resetAt).toISOString() },
      };
    },

    postJob(principal: Principal, args: PostJobArgs) {
      const order = postJob(postings, principal, args);
      const next =
        order.status === 'pending_payment'
          ? `Open checkoutUrl to pay ${order.amount.toLocaleString('en-US')} IDR; the listing goes live once paid.`
          : order.status === 'manual_review'
            ? 'The order waits for manual review; no payment is taken until it is approved.'
            : `The scam check rejected the posting (${order.scamCheck.rules.map((r) => r.id).join(', ')}); it will not be published.`;
      return { ...orderView(order), next };
    },

    hire: (principal: Principal, args: HireArgs) => hire(pool, postings, outbox, principal, args),

    draftApplication(principal: Principal, jobId: string, input: DraftInput) {
      const record = jobs.record(jobId);
      if (!record || !record.active) throw notFound(`job '${jobId}' does not exist or is no longer active`);
      const now = principal.tenant.clock.now();
      quota.assertAvailable(principal.tenant, now, upgradeUrlOf(ctx.config));
      const job = {
        id: record.id,
        title: record.title,
        company: record.company,
        applyUrl: record.applyUrl,
        skills: record.skills,
        description: record.description,
      };
      const draft = draftApplication(resumeOf(principal.tenant), job, input);
      const used = quota.consume(principal.tenant, now);
      return {
        jobId: job.id,
        jobTitle: job.title,
        company: job.company,
        apply_url: job.applyUrl,
        replyTo: replyTo(principal, job.id),
        submitted: false as const,
        tone: input.tone ?? 'professional',
        ...draft,
        quota: used,
        next: 'Review the draft with the seeker, then open apply_url to apply on the source site. Use apply_to_job only if the seeker wants the service to submit for them.',
      };
    },

    draftQuota: (principal: Principal) => quota.state(principal.tenant, principal.tenant.clock.now()),

    curatedList,

    /** The global generator's position (it draws nothing for a tenant any more; kept in a snapshot, D-137). */
    exportState: () => ({ rng: rng.position }),
    importState(state: { rng: number }): void {
      rng.moveTo(state.rng);
      rngs.clear();
    },
    /** A tenant's reply tokens, by job id, and its token stream's position (D-143). */
    exportTenant(tenantId: string): EmployerTenantState {
      const prefix = `${tenantId}:`;
      const tokens: Record<string, string> = {};
      for (const [k, token] of replyTokens) if (k.startsWith(prefix)) tokens[k.slice(prefix.length)] = token;
      return { tokens, rng: rngs.exportTenant(tenantId) };
    },
    importTenant(tenantId: string, state: EmployerTenantState): void {
      for (const [jobId, token] of Object.entries(state.tokens)) replyTokens.set(`${tenantId}:${jobId}`, token);
      rngs.importTenant(tenantId, state.rng);
    },
    forgetTenant(tenantId: string): void {
      for (const k of [...replyTokens.keys()]) if (k.startsWith(`${tenantId}:`)) replyTokens.delete(k);
      rngs.forgetTenant(tenantId);
    },

    reset() {
      outbox.clear();
      postings.clear();
      quota.clear();
      replyTokens.clear();
    },
  };
}

export type { EmployerService } from './service.js';
