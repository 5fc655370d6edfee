// The tool handlers of each server. Names and schemas come from contracts/mcp/<server>/; a test checks
// that every contract has a handler and every handler a contract.

import type { McpServerName } from '../../contract/index.js';
import type { ToolHandler } from '../tool.js';
import { anonGetJob } from './anonGetJob.js';
import { anonSearchJobs } from './anonSearchJobs.js';
import { applyToJob } from './applyToJob.js';
import { draftApplication } from './draftApplication.js';
import { getCuratedList } from './getCuratedList.js';
import { getJob } from './getJob.js';
import { getMe } from './getMe.js';
import { getSkillDemand } from './getSkillDemand.js';
import { hire } from './hire.js';
import { matchCandidates } from './matchCandidates.js';
import { postJob } from './postJob.js';
import { searchJobs } from './searchJobs.js';
import { talentSearch } from './talentSearch.js';

const byName = (tools: ToolHandler<object>[]) => Object.freeze(Object.fromEntries(tools.map((t) => [t.name, t])));

export const HANDLERS: Record<McpServerName, Readonly<Record<string, ToolHandler>>> = {
  keyed: byName([
    searchJobs,
    getJob,
    getSkillDemand,
    draftApplication,
    applyToJob,
    getMe,
    matchCandidates,
    talentSearch,
    postJob,
    hire,
  ]),
  anon: byName([anonSearchJobs, anonGetJob, getCuratedList]),
};
