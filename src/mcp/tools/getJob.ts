// get_job (keyed): one active job by `id`.

import type { ToolHandler } from '../tool.js';

export const getJob: ToolHandler = {
  name: 'get_job',
  run: (args, call) => ({ ...call.core.jobs.get(String(args.id)) }),
};
