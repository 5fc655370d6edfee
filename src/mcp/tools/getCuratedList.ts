// get_curated_list (anonymous): the vetted AI-data-work platforms, optionally of one category.

import type { AnonGetCuratedListInput } from '../../contract/types.js';
import type { ToolHandler } from '../tool.js';

export const getCuratedList: ToolHandler<AnonGetCuratedListInput> = {
  name: 'get_curated_list',
  run: (args, call) => ({ ...call.core.employer.curatedList(args.category) }),
};
