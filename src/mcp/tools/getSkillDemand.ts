// get_skill_demand (keyed): the same data as GET /api/v1/market/skills.

import type { KeyedGetSkillDemandInput } from '../../contract/types.js';
import type { ToolHandler } from '../tool.js';

export const getSkillDemand: ToolHandler<KeyedGetSkillDemandInput> = {
  name: 'get_skill_demand',
  run: (args, call) => ({ ...call.core.jobs.market.skills(args.limit) }),
};
