// The read side of the webhook outbox: deliveries by id, by tenant and by request, in creation order for
// keyset paging, each endpoint's attempts and success rate, and whether a tenant's events have somewhere
// to go. Nothing here starts an attempt or changes a delivery.
// Requirements: SCR-HOOK-8, POL-HOOK-2; decisions D-10, D-100, D-109, D-119.

import type { Delivery } from './delivery.js';
import { tenantOf, viaListener, type Outbox } from './outbox.js';
import type { EndpointStats } from './stats.js';

export interface DeliveryFilter {
  tenantId?: string;
  requestId?: string;
}

/** The outbox as the control API, the console and the dashboard read it. */
export interface WebhookReader {
  /** Creation order, read only (keyset paging in the control API). */
  ordered(filter?: DeliveryFilter): readonly Delivery[];
  /** Attempts and success rate per endpoint (tenant + URL), most recently used first. */
  endpoints(tenantId?: string): EndpointStats[];
  get(id: string): Delivery | undefined;
  list(filter?: DeliveryFilter): Delivery[];
  /** Whether the tenant's events have somewhere to go now: a webhookUrl, or a connected listener (D-119). */
  hasDestination(tenantId: string): boolean;
}

export function webhookReader(o: Outbox): WebhookReader {
  return {
    ordered: (filter = {}) => o.deliveries.ordered(filter),
    endpoints: (tenantId) => o.stats.list(tenantId),
    get: (id) => o.deliveries.get(id),
    list: (filter = {}) => o.deliveries.list(filter),
    hasDestination: (tenantId) => !!tenantOf(o, tenantId)?.webhookUrl || viaListener(o, tenantId),
  };
}
