// What every domain service is built from: config, the sandbox clock, the seeded generator, ids,
// tenants, fault switches and the shared rate limiters. Services never import each other's state
// except through the Core they are handed.

import type { Contracts } from '../contract/index.js';
import type { Faults } from './faults.js';
import type { Clock } from './clock.js';
import type { FixedWindowLimiter } from './ratelimit/limiter.js';
import type { IdFactory, Rng } from './rng.js';
import type { Settings } from './settings.js';
import type { Store } from './store.js';
import type { TenantService } from './tenants.js';

export interface CoreContext {
  readonly config: Readonly<Settings>;
  /** Every holder of state; the fields below are its most used holders, named for short access. */
  readonly store: Store;
  /** The compiled contracts (loaded once). */
  readonly contracts: Contracts;
  readonly clock: Clock;
  readonly rng: Rng;
  readonly ids: IdFactory;
  readonly tenants: TenantService;
  readonly faults: Faults;
  /** Per-minute window per API key, shared by the jobs REST API and the keyed MCP server. */
  readonly perMinute: FixedWindowLimiter;
  /** Per-UTC-day windows: anonymous MCP per client IP, talent_search per key. */
  readonly perDay: FixedWindowLimiter;
}

/** Every stateful service can be emptied by POST /sandbox/v1/reset. */
export interface Resettable {
  reset(): void;
}
