// Jobs domain: corpus, search index, apply, market data. (Skeleton; filled in by the jobs work.)

import type { CoreContext } from '../context.js';

export async function createJobs(_ctx: CoreContext) {
  return {
    reset() {},
  };
}

export type JobsService = Awaited<ReturnType<typeof createJobs>>;
