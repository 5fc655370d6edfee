// Submitting a candidate. The idempotency lookup, the charge and the insert run in one synchronous
// step, so concurrent submits with the same key cannot both create a request or both be charged.
// The submission arrives validated by the contract (the one validation pass); nothing here parses it
// again. Requirements: SCR-SUBMIT-1, SCR-IDEMP-1, SCR-IDEMP-2, SCR-IDEMP-3, SCR-IDEMP-4, SCR-IDEMP-5,
// SCR-CREDIT-1, SCR-CREDIT-2, SCR-CREDIT-3, SCR-CREDIT-4; decisions D-05, D-12, D-85.

import { invalid } from '../../errors/errors.js';
import type { CoreContext } from '../context.js';
import { limits } from '../plans.js';
import type { Tenant } from '../tenants.js';
import type { Pipeline } from './pipeline.js';
import type { RequestStore } from './requests.js';
import type { ScreeningState, Submission } from './types.js';
import { walletExhausted } from './usage.js';

export interface SubmitOutcome {
  requestId: string;
  /** The state when the answer was computed. */
  state: ScreeningState;
  /** True when the idempotency key was already used by this tenant. */
  replayed: boolean;
}

export function submit(
  ctx: CoreContext,
  requests: RequestStore,
  pipeline: Pipeline,
  tenant: Tenant,
  submission: Submission,
): SubmitOutcome {
  const { salaryBandMinIdr: min, salaryBandMaxIdr: max } = submission.jobSpec;
  // an inverted band would score against nothing (D-85); the one rule no schema keyword can state
  if (min !== undefined && max !== undefined && min > max) {
    throw invalid(
      `jobSpec.salaryBandMinIdr (${min}) is greater than jobSpec.salaryBandMaxIdr (${max}); the band's minimum must not exceed its maximum`,
      'jobSpec.salaryBandMinIdr',
    );
  }
  ctx.faults.planted.readFirstMustHave(submission.jobSpec.mustHaves);
  const now = tenant.clock.now();
  const existing = requests.findByKey(tenant.id, submission.idempotencyKey);
  if (existing) {
    ctx.faults.planted.chargeOnReplay(() => tenant.screeningWallet.tryCharge(limits.spec.creditsPerScreen, now));
    return { requestId: existing.id, state: existing.state, replayed: true };
  }
  if (!tenant.screeningWallet.tryCharge(limits.spec.creditsPerScreen, now)) throw walletExhausted(ctx, tenant);
  const req = pipeline.admit(ctx.ids.nextOf(tenant.id, 'scr'), tenant.id, submission, now);
  return { requestId: req.id, state: req.state, replayed: false };
}
