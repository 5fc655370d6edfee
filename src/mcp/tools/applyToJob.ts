// apply_to_job (keyed): the REST apply (same wallet, same rules), recorded as channel "mcp". Its
// arguments are the job id plus the REST ApplyRequest (the contract composes them).

import type { KeyedApplyToJobInput } from '../../contract/types.js';
import { principalOf, type ToolHandler } from '../tool.js';

export const applyToJob: ToolHandler<KeyedApplyToJobInput> = {
  name: 'apply_to_job',
  scope: 'apply',
  run: ({ id, ...body }, call) => ({ ...call.core.jobs.apply(principalOf(call), id, body, 'mcp') }),
};
