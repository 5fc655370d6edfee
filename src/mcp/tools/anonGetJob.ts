// get_job (anonymous): one active job by `job_id`.

import type { AnonGetJobInput } from '../../contract/types.js';
import type { ToolHandler } from '../tool.js';

export const anonGetJob: ToolHandler<AnonGetJobInput> = {
  name: 'get_job',
  run: (args, call) => ({ ...call.core.jobs.get(args.job_id) }),
};
