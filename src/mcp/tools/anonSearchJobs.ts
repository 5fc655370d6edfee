// search_jobs (anonymous): free-tier search; the query argument is `query` instead of `q`.

import type { ToolHandler } from '../tool.js';

export const anonSearchJobs: ToolHandler = {
  name: 'search_jobs',
  run: (args, call) => {
    const { query, ...filters } = args;
    return { ...call.core.jobs.search('free', { ...filters, q: query }) };
  },
};
