// draft_application (keyed): a grounded cover letter and resume from the key owner's saved resume.

import type { Tone } from '../../domain/employer/drafting.js';
import { principalOf, type ToolHandler } from '../tool.js';

export const draftApplication: ToolHandler = {
  name: 'draft_application',
  run: (args, call) =>
    call.core.employer.draftApplication(principalOf(call), String(args.id), {
      tone: args.tone as Tone | undefined,
      highlights: args.highlights as string[] | undefined,
      strict: args.strict as boolean | undefined,
    }),
};
