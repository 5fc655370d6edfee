// match_candidates (keyed, employer): a ranked, anonymized shortlist.

import type { EmployerSearchArgs } from '../../domain/employer/matchCandidates.js';
import type { ToolHandler } from '../tool.js';

export const matchCandidates: ToolHandler = {
  name: 'match_candidates',
  scope: 'employer',
  run: (args, call) => call.core.employer.matchCandidates(args as EmployerSearchArgs & { limit?: number }),
};
