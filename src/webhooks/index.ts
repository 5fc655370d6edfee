// Webhook outbox, signer and delivery with retries. (Skeleton; filled in by the screening work.)

import type { CoreContext } from '../domain/context.js';

export function createWebhooks(_ctx: CoreContext) {
  return {
    reset() {},
  };
}

export type WebhookService = ReturnType<typeof createWebhooks>;
