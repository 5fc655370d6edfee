// Builds every domain service from one set of resolved settings. Adapters (HTTP, MCP,
// control API, console) receive the Core and call into it; the Core knows nothing of them.
// Requirements: none of its own (the services it builds name theirs); decisions D-50 (reset).

import { loadContracts } from '../contract/index.js';
import type { CoreContext, Resettable } from './context.js';
import { createEmployer, type EmployerService } from './employer/index.js';
import { createJobs, type JobsService } from './jobs/index.js';
import { createRateLimits } from './ratelimit/rules.js';
import { IdFactory, Rng } from './rng.js';
import { createScreening, type ScreeningService } from './screening/index.js';
import { seedDemo, type DemoSeed } from './seed.js';
import type { Settings } from './settings.js';
import type { OpenStore } from './store.js';
import { CallLog } from './callLog.js';
import { createWebhooks, type WebhookService } from './webhooks/index.js';

/** Every domain service, built on one context; what the adapters and the composition root are handed. */
export interface Core extends CoreContext, Resettable {
  /** The webhook outbox: signed deliveries of screening events with their retries (webhooks/service.ts). */
  readonly webhooks: WebhookService;
  /** Screening submissions, usage, the audit ledger and review decisions (screening/service.ts). */
  readonly screening: ScreeningService;
  /** The jobs corpus, search, apply, /me, market data and the per-key rate window (jobs/service.ts). */
  readonly jobs: JobsService;
  /** The employer tools and draft_application (employer/service.ts). */
  readonly employer: EmployerService;
  /** The recent API and MCP calls, bounded (the console's request log). */
  readonly callLog: CallLog;
  /** The demo tenants seeded at start and at every reset, or null when the demo is off. */
  demo: DemoSeed | null;
  /** Empties every store and cancels every timer, seeding nothing (a snapshot is imported into this). */
  clear(): void;
  /** clear(), then re-seeds the demo data. */
  reset(): void;
}

export async function createCore(config: Readonly<Settings>, openStore: OpenStore): Promise<Core> {
  const rng = new Rng(config.seed);
  const ids = new IdFactory(rng.fork('ids'));
  const store = await openStore({ config, rng, ids });
  const { clock } = store;
  const ctx: CoreContext = {
    config,
    store,
    contracts: await loadContracts(),
    clock,
    rng,
    ids,
    tenants: store.tenants,
    faults: store.faults,
    rateLimits: createRateLimits(clock, config.noRateLimits, store),
  };
  const webhooks = createWebhooks(ctx);
  const screening = createScreening(ctx, webhooks);
  const jobs = createJobs(ctx);
  const employer = createEmployer(ctx, jobs);

  const core: Core = {
    ...ctx,
    webhooks,
    screening,
    jobs,
    employer,
    callLog: new CallLog(),
    demo: null,
    clear() {
      clock.clear();
      ctx.tenants.clear();
      store.accounts.clear();
      ctx.faults.reset();
      ctx.rateLimits.reset();
      webhooks.reset();
      screening.reset();
      jobs.reset();
      employer.reset();
      core.callLog.clear();
      core.demo = null;
    },
    reset() {
      core.clear();
      core.demo = config.seedDemo ? seedDemo(core) : null;
    },
  };
  core.demo = config.seedDemo ? seedDemo(core) : null;
  return core;
}
