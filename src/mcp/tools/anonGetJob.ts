// get_job (anonymous): one active job by `job_id`.

import type { ToolHandler } from '../tool.js';

export const anonGetJob: ToolHandler = {
  name: 'get_job',
  run: (args, call) => ({ ...call.core.jobs.get(String(args.job_id)) }),
};
