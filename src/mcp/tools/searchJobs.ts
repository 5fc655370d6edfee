// search_jobs (keyed): the REST search with the key's jobs tier; arguments are the REST parameters.

import { principalOf, type ToolHandler } from '../tool.js';

export const searchJobs: ToolHandler = {
  name: 'search_jobs',
  run: (args, call) => {
    const { jobs } = call.core;
    return { ...jobs.search(jobs.tierOf(principalOf(call)), args) };
  },
};
