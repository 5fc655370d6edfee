// get_job (keyed): one active job by `id`.

import type { KeyedGetJobInput } from '../../contract/types.js';
import type { ToolHandler } from '../tool.js';

export const getJob: ToolHandler<KeyedGetJobInput> = {
  name: 'get_job',
  run: (args, call) => ({ ...call.core.jobs.get(args.id) }),
};
