// get_curated_list (anonymous): the vetted AI-data-work platforms, optionally of one category.

import type { ToolHandler } from '../tool.js';

export const getCuratedList: ToolHandler = {
  name: 'get_curated_list',
  run: (args, call) => call.core.employer.curatedList(args.category as string | undefined),
};
