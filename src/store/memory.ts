// The in-memory store: the embedded default, what `npm start` runs. Every holder is a plain
// structure in this process, read and written synchronously, so the hot paths pay for no promise
// and the idempotency check-and-insert cannot interleave with another request.

import { randomBytes } from 'node:crypto';
import { Clock } from '../domain/clock.js';
import { DraftQuota } from '../domain/employer/draftQuota.js';
import { Outbox } from '../domain/employer/outbox.js';
import { Postings } from '../domain/employer/postings.js';
import { Faults } from '../domain/faults.js';
import { ApplicationQueue } from '../domain/jobs/applications.js';
import { FixedWindowLimiter } from '../domain/ratelimit/limiter.js';
import { firstSeqAt, Ledger } from '../domain/screening/ledger.js';
import { RequestStore } from '../domain/screening/requests.js';
import type { Store, StoreDeps } from '../domain/store.js';
import { TenantService } from '../domain/tenants.js';
import { DeliveryStore } from '../domain/webhooks/delivery.js';

export function openMemoryStore({ config, rng, ids }: StoreDeps): Store {
  const clock = new Clock();
  const deps = { config, ids, clock };
  return {
    kind: 'memory',
    clock,
    tenants: new TenantService(ids, () => clock.now()),
    requests: new RequestStore(),
    ledger: new Ledger(firstSeqAt(clock.now())),
    deliveries: new DeliveryStore(),
    applications: new ApplicationQueue(),
    postings: new Postings(deps),
    mail: new Outbox(deps),
    draftQuota: new DraftQuota(),
    perMinute: FixedWindowLimiter.perMinute(),
    perDay: FixedWindowLimiter.perUtcDay(),
    cursorSecret: randomBytes(32),
    faults: new Faults(rng.fork('faults'), () => clock.iso(), config.bugs),
    close: async () => clock.clear(),
  };
}
