// Applying to a job (REST POST /jobs/{id}/apply and the MCP apply_to_job tool share this, and so the
// same wallet). The body arrives validated by the contract (ApplyRequest, which apply_to_job's arguments
// share); the checks here run in a fixed order: job exists and is active, tier, credit; nothing is
// charged or recorded unless every check passes. Requirements: JOB-APPLY-1, JOB-APPLY-2, JOB-APPLY-3, JOB-APPLY-4,
// JOB-APPLY-5, JOB-APPLY-6, MCP-KEYED-5, MCP-TOOL-6;
// decisions D-19, D-23, D-28.

import type { CoreContext } from '../context.js';
import { notFound, paymentRequired } from '../../errors/errors.js';
import { jobsLimitsOf, jobsTierOf, limits, upgradeUrlOf } from '../plans.js';
import type { Principal } from '../tenants.js';
import type { ApplicationQueue } from './applications.js';
import type { Application, ApplyBody, ApplyResult, Channel, StoredJob } from './types.js';

export class ApplyDesk {
  constructor(
    private readonly ctx: Pick<CoreContext, 'clock' | 'ids' | 'config'>,
    private readonly byId: ReadonlyMap<string, StoredJob>,
    private readonly queue: ApplicationQueue,
  ) {}

  apply(principal: Principal, jobId: string, input: ApplyBody, channel: Channel): ApplyResult {
    const job = this.byId.get(jobId);
    if (!job || !job.active) throw notFound(`job '${jobId}' does not exist or is no longer active`);
    const { tenant } = principal;
    const tier = jobsTierOf(tenant.planTier);
    const upsell = { upgradeUrl: upgradeUrlOf(this.ctx.config) };
    if (!jobsLimitsOf(tenant.planTier).applyEnabled) {
      throw paymentRequired(
        `applying needs a paid tier (starter or pro); the ${tier} tier can search and read jobs but not apply`,
        upsell,
      );
    }
    const now = tenant.clock.now();
    const wallet = tenant.applyWallet;
    if (!wallet.tryCharge(limits.spec.creditsPerApply, now)) {
      const refill =
        wallet.resetAt === null ? 'they do not refill' : `they refill on ${new Date(wallet.resetAt).toISOString()}`;
      throw paymentRequired(
        `no apply credits left (each apply spends ${limits.spec.creditsPerApply}); ${refill}`,
        upsell,
      );
    }
    if (!job.employerContact) {
      return { status: 'external', applyUrl: job.applyUrl, jobId: job.id, creditsRemaining: wallet.remaining };
    }
    const application: Application = {
      applicationId: this.ctx.ids.nextOf(tenant.id, 'app'),
      tenantId: tenant.id,
      jobId: job.id,
      jobTitle: job.title,
      company: job.company,
      candidate_name: input.candidate_name,
      candidate_email: input.candidate_email,
      message: input.message,
      resume_url: input.resume_url ?? null,
      locale: input.locale ?? null,
      status: 'queued',
      channel,
      createdAt: new Date(now).toISOString(),
    };
    this.queue.push(application);
    return {
      status: 'submitted',
      applicationId: application.applicationId,
      jobId: job.id,
      creditsRemaining: wallet.remaining,
    };
  }
}
