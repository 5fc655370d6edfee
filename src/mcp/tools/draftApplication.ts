// draft_application (keyed): a grounded cover letter and resume from the key owner's saved resume.

import type { KeyedDraftApplicationInput } from '../../contract/types.js';
import { principalOf, type ToolHandler } from '../tool.js';

export const draftApplication: ToolHandler<KeyedDraftApplicationInput> = {
  name: 'draft_application',
  run: ({ id, ...input }, call) => ({ ...call.core.employer.draftApplication(principalOf(call), id, input) }),
};
