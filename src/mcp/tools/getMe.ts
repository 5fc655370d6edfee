// get_me (keyed): the same data as GET /api/v1/me.

import { principalOf, type ToolHandler } from '../tool.js';

export const getMe: ToolHandler = {
  name: 'get_me',
  run: (_args, call) => ({ ...call.core.jobs.me(principalOf(call)) }),
};
