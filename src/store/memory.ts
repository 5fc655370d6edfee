// The in-memory store: the embedded default, what `npm start` runs. Every holder is a plain
// structure in this process, read and written synchronously, so the hot paths pay for no promise
// and the idempotency check-and-insert cannot interleave with another request. The shared store
// (postgres/) keeps the same holders and puts its hooks in through `MemoryHooks`.

import { randomBytes } from 'node:crypto';
import { AccountService } from '../domain/accounts.js';
import { Clock } from '../domain/clock.js';
import { DraftQuota } from '../domain/employer/draftQuota.js';
import { Outbox } from '../domain/employer/outbox.js';
import { Postings } from '../domain/employer/postings.js';
import { Faults } from '../domain/faults.js';
import { ApplicationQueue } from '../domain/jobs/applications.js';
import { FixedWindowLimiter } from '../domain/ratelimit/limiter.js';
import { isAddressBucket } from '../domain/ratelimit/rules.js';
import { firstSeqAt, Ledger } from '../domain/screening/ledger.js';
import { RequestStore } from '../domain/screening/requests.js';
import type { Store, StoreDeps } from '../domain/store.js';
import { TenantService } from '../domain/tenants.js';
import { DeliveryStore } from '../domain/webhooks/delivery.js';
import type { ResumeWebhook, SendWebhook } from '../domain/webhooks/sender.js';

export interface MemoryHooks {
  kind: string;
  /** The clock's source of real time. */
  realNow: () => number;
  cursorSecret: Buffer;
  /** Where this sandbox's ledger numbering starts (firstSeqAt of its first start). */
  ledgerFirstSeq: number;
  sendWebhook: SendWebhook;
  resumeWebhook: ResumeWebhook;
  close: () => Promise<void>;
  report: Store['report'];
}

export function openMemoryStore({ config, rng, ids }: StoreDeps, hooks: Partial<MemoryHooks> = {}): Store {
  const clock = new Clock(hooks.realNow);
  const deps = { config, ids, clock };
  const tenants = new TenantService(ids, (tenantId) => clock.of(tenantId));
  return {
    kind: hooks.kind ?? 'memory',
    clock,
    tenants,
    accounts: new AccountService(ids, () => clock.now(), tenants),
    requests: new RequestStore(),
    ledger: new Ledger(hooks.ledgerFirstSeq ?? firstSeqAt(clock.now())),
    deliveries: new DeliveryStore(),
    applications: new ApplicationQueue(),
    postings: new Postings(deps),
    mail: new Outbox(deps),
    draftQuota: new DraftQuota(),
    perMinute: FixedWindowLimiter.perMinute(isAddressBucket),
    perDay: FixedWindowLimiter.perUtcDay(isAddressBucket),
    cursorSecret: hooks.cursorSecret ?? randomBytes(32),
    faults: new Faults(rng.fork('faults'), () => clock.iso(), config.bugs),
    ...(hooks.sendWebhook ? { sendWebhook: hooks.sendWebhook } : {}),
    ...(hooks.resumeWebhook ? { resumeWebhook: hooks.resumeWebhook } : {}),
    ...(hooks.report ? { report: hooks.report } : {}),
    close: async () => {
      // the shared store's close writes a snapshot at stop (D-138): the timers are part of it, so they go after
      await hooks.close?.();
      clock.clear();
    },
  };
}
