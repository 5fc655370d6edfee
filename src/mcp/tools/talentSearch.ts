// talent_search (keyed, employer): plain-words search, anonymized cards, 50 calls a day per key.

import type { EmployerSearchArgs } from '../../domain/employer/matchCandidates.js';
import { principalOf, type ToolHandler } from '../tool.js';

export const talentSearch: ToolHandler = {
  name: 'talent_search',
  scope: 'employer',
  run: (args, call) => call.core.employer.talentSearch(principalOf(call), args as EmployerSearchArgs),
};
