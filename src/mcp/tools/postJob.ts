// post_job (keyed, employer): a job-post order with a checkout link.

import type { KeyedPostJobInput } from '../../contract/types.js';
import { principalOf, type ToolHandler } from '../tool.js';

export const postJob: ToolHandler<KeyedPostJobInput> = {
  name: 'post_job',
  scope: 'employer',
  run: (args, call) => ({ ...call.core.employer.postJob(principalOf(call), args) }),
};
