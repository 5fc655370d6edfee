// Hono environment shared by every route module.

import type { Core } from '../domain/core.js';
import type { Principal } from '../domain/tenants.js';

export type AppEnv = {
  Variables: {
    principal: Principal;
    core: Core;
  };
};
