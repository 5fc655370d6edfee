// Builds every domain service from one set of resolved settings. Adapters (HTTP, MCP,
// control API, console) receive the Core and call into it; the Core knows nothing of them.
// Requirements: none of its own (the services it builds name theirs); decisions D-50 (reset).

import { loadContracts } from '../contract/index.js';
import type { CoreContext } from './context.js';
import { createEmployer } from './employer/index.js';
import { createJobs } from './jobs/index.js';
import { createRateLimits } from './ratelimit/rules.js';
import { IdFactory, Rng } from './rng.js';
import { createScreening } from './screening/index.js';
import { seedDemo, type DemoSeed } from './seed.js';
import type { Settings } from './settings.js';
import type { OpenStore } from './store.js';
import { CallLog } from './callLog.js';
import { createWebhooks } from './webhooks/index.js';

export async function createCore(config: Readonly<Settings>, openStore: OpenStore) {
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

  const core = {
    ...ctx,
    webhooks,
    screening,
    jobs,
    employer,
    /** The recent API and MCP calls, bounded (the console's request log). */
    callLog: new CallLog(),
    demo: null as DemoSeed | null,
    /** Empties every store, resets the clock offset's timers and re-seeds the demo data. */
    reset() {
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
      core.demo = config.seedDemo ? seedDemo(core) : null;
    },
  };
  core.demo = config.seedDemo ? seedDemo(core) : null;
  return core;
}

export type Core = Awaited<ReturnType<typeof createCore>>;
