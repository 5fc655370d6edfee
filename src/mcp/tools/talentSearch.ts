// talent_search (keyed, employer): plain-words search, anonymized cards, 50 calls a day per key.

import type { KeyedTalentSearchInput } from '../../contract/types.js';
import { principalOf, type ToolHandler } from '../tool.js';

export const talentSearch: ToolHandler<KeyedTalentSearchInput> = {
  name: 'talent_search',
  scope: 'employer',
  run: (args, call) => ({ ...call.core.employer.talentSearch(principalOf(call), args) }),
};
