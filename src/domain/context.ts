// What every domain service is built from: config, the sandbox clock, the seeded generator, ids,
// tenants, fault switches and the rate limits. Services never import each other's state
// except through the Core they are handed.
// Requirements: none of its own (the services it feeds name theirs).

import type { Contracts } from '../contract/index.js';
import type { Faults } from './faults.js';
import type { Clock } from './clock.js';
import type { RateLimits } from './ratelimit/rules.js';
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
  /** Every rate limit, in one place (ratelimit/rules.ts). */
  readonly rateLimits: RateLimits;
}

/** Every stateful service can be emptied by POST /sandbox/v1/reset. */
export interface Resettable {
  reset(): void;
}
