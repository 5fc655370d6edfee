// hire (keyed, employer): shortlist and e-mail, or say there is no strong match (or post free).

import type { KeyedHireInput } from '../../contract/types.js';
import { principalOf, type ToolHandler } from '../tool.js';

export const hire: ToolHandler<KeyedHireInput> = {
  name: 'hire',
  scope: 'employer',
  run: (args, call) => ({ ...call.core.employer.hire(principalOf(call), args) }),
};
