// Employer tools and draft_application over fixture pools. (Skeleton; filled in by the MCP work.)

import type { CoreContext } from '../context.js';
import type { JobsService } from '../jobs/index.js';

export function createEmployer(_ctx: CoreContext, _jobs: JobsService) {
  return {
    reset() {},
  };
}

export type EmployerService = ReturnType<typeof createEmployer>;
