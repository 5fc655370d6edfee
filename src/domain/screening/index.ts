// Screening domain: submissions, idempotency, the pipeline, review decisions and the audit ledger.
// (Skeleton; filled in by the screening work.)

import type { CoreContext } from '../context.js';
import type { WebhookService } from '../../webhooks/index.js';

export function createScreening(_ctx: CoreContext, _webhooks: WebhookService) {
  return {
    reset() {},
  };
}

export type ScreeningService = ReturnType<typeof createScreening>;
