// apply_to_job (keyed): the REST apply (same wallet, same rules), recorded as channel "mcp".

import { principalOf, type ToolHandler } from '../tool.js';

export const applyToJob: ToolHandler = {
  name: 'apply_to_job',
  scope: 'apply',
  run: (args, call) => {
    const { id, ...body } = args;
    return { ...call.core.jobs.apply(principalOf(call), String(id), body, 'mcp') };
  },
};
