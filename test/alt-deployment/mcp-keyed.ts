// The keyed MCP server: the seeker tools over the shared feed and wallet, plus the employer tools.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InitializeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { JOB_TYPES, OPPORTUNITY_TYPES, REMOTE_TYPES, type CorpusJob } from './corpus.js';
import { draft } from './draft.js';
import { apply, findJob, publicJob, search, TIER_LIMITS, type Tier } from './jobs-domain.js';
import { skillDemand } from './market.js';
import { registerEmployerTools, type EmployerState } from './mcp-employer.js';
import { guard } from './mcp-results.js';
import type { Tenant } from './tenants.js';
import type { Switches } from './violations.js';
import { PLAIN_STYLE, shapeToolResults, type ShapeStyle } from './shape-style.js';

export const KEYED_PROTOCOL_VERSION = '2025-06-18';
export const KEYED_INSTRUCTIONS =
  'Remote, Indonesia-friendly jobs. Call get_me first to learn your tier and apply credits. Search with search_jobs (q, filters, limit, offset) ' +
  'and read one job with get_job (id). Prefer draft_application and let the seeker open apply_url; call apply_to_job only when the seeker ' +
  'wants this service to submit (paid tiers, 1 credit). Employers: match_candidates, talent_search, post_job and hire.';

export interface KeyedContext {
  tenant: Tenant;
  tier: Tier;
  corpus: CorpusJob[];
  employer: EmployerState;
  v: Switches;
  shape?: ShapeStyle;
}

const searchShape = (v: Switches) => ({
  [v.on('keyed-arg-query') ? 'query' : 'q']: z.string().optional().describe('free-text query'),
  location: z.string().optional(),
  remote_type: z.enum(REMOTE_TYPES as [string, ...string[]]).optional(),
  job_type: z.enum(JOB_TYPES as [string, ...string[]]).optional(),
  opportunity_type: z.enum(OPPORTUNITY_TYPES as [string, ...string[]]).optional(),
  limit: z.number().int().min(1).max(50).optional(),
  offset: z.number().int().min(0).optional(),
  locale: z.enum(['id', 'en']).optional(),
});

/** Apply credits apply_to_job spends under the `mcp-own-wallet` violation (a wallet REST never reads). */
const mcpWallets = new WeakMap<Tenant, number>();

export function buildKeyedServer(c: KeyedContext): McpServer {
  const { tenant: t, tier, corpus, v } = c;
  const instructions = v.on('mcp-no-instructions') ? undefined : KEYED_INSTRUCTIONS;
  const mcp = new McpServer(
    { name: 'alt-jobs', version: '1.0.0' },
    { instructions, capabilities: { tools: { listChanged: false } } },
  );
  shapeToolResults(mcp, c.shape ?? PLAIN_STYLE);

  mcp.registerTool(
    'search_jobs',
    {
      description: 'Search active jobs; each has its basic fields and an applyUrl. Free.',
      inputSchema: searchShape(v),
    },
    (a: Record<string, unknown>) =>
      guard(() => {
        const input = {
          ...a,
          q: (a.q ?? a.query) as string | undefined,
          ...(v.on('mcp-filter-ignored') ? { remote_type: undefined } : {}),
        };
        const sw = v.on('mcp-search-inactive')
          ? ({ on: (n: string) => n === 'search-lists-inactive' || v.on(n) } as Switches)
          : v;
        const found = search(corpus, tier, input, sw);
        if (v.on('mcp-job-type-spaced'))
          found.jobs = found.jobs.map((j) => ({ ...j, jobType: j.jobType.replace('-', ' ') as typeof j.jobType }));
        if (v.on('mcp-search-charges') && t.applyBalance > 0) t.applyBalance--;
        if (v.on('mcp-sponsored-on-paid'))
          found.jobs = found.jobs.map((j) => ({ ...j, sponsored: corpus.find((c) => c.id === j.id)!.promoted }));
        if (!v.on('mcp-search-no-apply-url')) return found;
        return { ...found, jobs: found.jobs.map(({ applyUrl: _, ...j }) => j) };
      }),
  );
  mcp.registerTool(
    'get_job',
    { description: 'Fetch one active job by id. Free.', inputSchema: { id: z.string() } },
    (a) =>
      guard(() => {
        const job = publicJob(findJob(corpus, a.id, v), tier, v);
        if (v.on('mcp-stale-pay')) return { ...job, payMax: Math.round(job.payMax * 0.9) };
        return v.on('mcp-stale-titles') ? { ...job, title: `${job.title} (2025 listing)` } : job;
      }),
  );
  if (!v.on('keyed-missing-skill-demand')) {
    mcp.registerTool(
      'get_skill_demand',
      {
        description: 'Top in-demand skills by mention count (same data as GET /api/v1/market/skills).',
        inputSchema: { limit: z.number().int().min(1).max(100).optional() },
      },
      (a) => guard(() => skillDemand(corpus, a.limit, v)),
    );
  }
  mcp.registerTool(
    'draft_application',
    {
      description:
        'Draft a cover letter and a tailored plain-text resume for one job from your saved resume. Claims the resume cannot support are removed; fails with `ungrounded` when none is left. Submits nothing.',
      inputSchema: {
        id: z.string(),
        highlights: z.array(z.string()).max(10).optional(),
        tone: z.enum(['formal', 'friendly']).optional(),
      },
    },
    (a) =>
      guard(() => {
        const r = draft(t, tier, findJob(corpus, a.id, v), a.highlights, a.tone, v.on('draft-keeps-claims'));
        if (v.on('draft-spends-credit') && t.applyBalance > 0) t.applyBalance--;
        return r;
      }),
  );
  mcp.registerTool(
    'apply_to_job',
    {
      description:
        "Paid tiers only; spends 1 apply credit and submits on the seeker's behalf. Draft first unless the seeker wants this service to submit.",
      inputSchema: {
        id: z.string(),
        candidate_name: z.string(),
        candidate_email: z.string(),
        message: z.string(),
        resume_url: z.string().optional(),
        locale: z.string().optional(),
      },
    },
    ({ id, ...body }) =>
      guard(() => {
        const sw = v.on('mcp-apply-on-free')
          ? ({ on: (n: string) => n === 'apply-on-free' || v.on(n) } as Switches)
          : v;
        const balance = t.applyBalance;
        const r = apply(corpus, t, id, body, sw);
        if (v.on('mcp-own-wallet')) {
          mcpWallets.set(t, (mcpWallets.get(t) ?? balance) - (balance - t.applyBalance));
          t.applyBalance = balance;
        }
        const left = { applyCreditsLeft: v.on('mcp-own-wallet') ? mcpWallets.get(t)! : t.applyBalance };
        return r.kind === 'submitted'
          ? { status: 'submitted', applicationId: r.applicationId, ...left }
          : { status: 'external', applyUrl: r.applyUrl, ...left };
      }),
  );
  mcp.registerTool(
    'get_me',
    {
      description: 'Your tier, granted scopes, remaining apply credits and per-tier limits. Call before applying.',
      inputSchema: {},
    },
    () =>
      guard(() => {
        const l = TIER_LIMITS[v.on('get-me-pro-limits') ? 'Pro' : tier];
        return {
          ...(v.on('get-me-no-tier') ? {} : { tier }),
          scopes: [...t.scopes],
          applyCreditsRemaining: t.applyBalance,
          limits: {
            rateLimitPerMinute: l.perMinute,
            maxPage: l.maxPages,
            applyEnabled: l.apply,
            adFree: tier !== 'Free',
          },
        };
      }),
  );
  registerEmployerTools(mcp, c);

  // The SDK echoes any supported revision the client asks for; this server always reports its own.
  mcp.server.setRequestHandler(InitializeRequestSchema, () => ({
    protocolVersion: v.on('mcp-old-protocol') ? '2025-03-26' : KEYED_PROTOCOL_VERSION,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: 'alt-jobs', version: '1.0.0' },
    ...(instructions ? { instructions } : {}),
  }));
  return mcp;
}
