// match_candidates (keyed, employer): a ranked, anonymized shortlist.

import type { KeyedMatchCandidatesInput } from '../../contract/types.js';
import type { ToolHandler } from '../tool.js';

export const matchCandidates: ToolHandler<KeyedMatchCandidatesInput> = {
  name: 'match_candidates',
  scope: 'employer',
  run: (args, call) => ({ ...call.core.employer.matchCandidates(args) }),
};
