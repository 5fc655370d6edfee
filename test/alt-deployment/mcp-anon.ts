// The anonymous MCP server: search only, no key, 500 tool calls a day per client IP, on its own port.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { JOB_TYPES, REMOTE_TYPES, type CorpusJob } from './corpus.js';
import { clientIp, fail, HttpError, sendError, sendJson } from './http.js';
import { findJob, publicJob, search } from './jobs-domain.js';
import { methodNotAllowed, readRpc, serveMcp, toolCalls } from './mcp-http.js';
import { guard, toolError } from './mcp-results.js';
import type { Switches } from './violations.js';
import { PLAIN_STYLE, shapeToolResults, type ShapeStyle } from './shape-style.js';

export const ANON_CALLS_PER_DAY = 500;
/** The daily allowance under the `anon-limit-600` violation. */
const ANON_CALLS_VIOLATED = 600;

export const CURATED_PLATFORMS = [
  { name: 'Outlier', url: 'https://outlier.ai', kind: 'AI training data', vetted: '2026-10' },
  { name: 'DataAnnotation', url: 'https://www.dataannotation.tech', kind: 'AI data annotation', vetted: '2026-10' },
  { name: 'Appen', url: 'https://appen.com', kind: 'data labelling', vetted: '2026-09' },
  { name: 'TELUS Digital AI', url: 'https://www.telusdigital.com', kind: 'search and rating', vetted: '2026-09' },
  { name: 'Prolific', url: 'https://www.prolific.com', kind: 'research studies', vetted: '2026-08' },
];

export const ANON_TOOLS = ['search_jobs', 'get_job', 'get_curated_list'];

function build(corpus: CorpusJob[], v: Switches, shape: ShapeStyle): McpServer {
  const mcp = new McpServer(
    { name: 'alt-jobs-anonymous', version: '1.0.0' },
    { instructions: 'Read-only job search without a key: search_jobs (query), get_job (job_id), get_curated_list.' },
  );
  shapeToolResults(mcp, shape);
  const textArg = v.on('anon-arg-q') ? 'q' : 'query';
  mcp.registerTool(
    'search_jobs',
    {
      description: 'Search active remote jobs.',
      inputSchema: {
        [textArg]: z.string().optional(),
        location: z.string().optional(),
        remote_type: z.enum(REMOTE_TYPES as [string, ...string[]]).optional(),
        job_type: z.enum(JOB_TYPES as [string, ...string[]]).optional(),
        limit: z.number().int().min(1).max(50).optional(),
        offset: z.number().int().min(0).optional(),
      },
    },
    (a: Record<string, unknown>) =>
      guard(() => {
        const found = search(corpus, 'anonymous', { ...a, q: a[textArg] as string | undefined }, v);
        // a planted write: the search is counted as interest in the first hit's main skill
        const hit = v.on('anon-search-counts-skills') ? corpus.find((j) => j.id === found.jobs[0]?.id) : undefined;
        if (hit) hit.skills.push(hit.family.skills[0]);
        return found;
      }),
  );
  mcp.registerTool('get_job', { description: 'Fetch one active job.', inputSchema: { job_id: z.string() } }, (a) =>
    guard(() => publicJob(findJob(corpus, a.job_id, v), 'anonymous', v)),
  );
  mcp.registerTool(
    'get_curated_list',
    { description: 'A vetted list of AI-data-work platforms.', inputSchema: {} },
    () => guard(() => ({ platforms: v.on('curated-empty') ? [] : CURATED_PLATFORMS })),
  );
  if (v.on('anon-lists-apply')) {
    mcp.registerTool('apply_to_job', { description: 'Apply to a job.', inputSchema: { job_id: z.string() } }, () =>
      toolError('forbidden', 'applying needs a key'),
    );
  }
  return mcp;
}

export function anonDiscovery(url: string, v: Switches) {
  return {
    name: 'alt-jobs-anonymous',
    url,
    transport: 'streamable-http',
    authentication: 'none',
    limits: { toolCallsPerDayPerIp: ANON_CALLS_PER_DAY },
    tools: [...ANON_TOOLS, ...(v.on('anon-lists-apply') ? ['apply_to_job'] : [])],
  };
}

export function anonHandler(corpus: CorpusJob[], v: Switches, selfUrl: () => string, shape: ShapeStyle = PLAIN_STYLE) {
  const counts = new Map<string, { day: string; n: number }>();
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    try {
      if (path !== '/mcp') throw fail(404, `no route ${req.method} ${path}`);
      if (req.method === 'GET' && !v.on('anon-get-405')) return sendJson(res, 200, anonDiscovery(selfUrl(), v));
      if (v.on('anon-needs-key') && !req.headers.authorization)
        throw fail(401, 'Authorization: a bearer API key is required');
      if (req.method !== 'POST') return methodNotAllowed(res);
      const body = await readRpc(req);
      const calls = toolCalls(body);
      const day = new Date().toISOString().slice(0, 10);
      const ip = clientIp(req);
      let c = counts.get(ip);
      if (!c || c.day !== day) counts.set(ip, (c = { day, n: 0 }));
      const perDay = v.on('anon-limit-600') ? ANON_CALLS_VIOLATED : ANON_CALLS_PER_DAY;
      if (calls > 0 && c.n + calls > perDay) {
        const midnight = new Date(`${day}T00:00:00Z`).getTime() + 86_400_000;
        throw fail(
          429,
          `the anonymous server allows ${ANON_CALLS_PER_DAY} tool calls a day per IP`,
          {},
          { 'retry-after': new Date(midnight).toUTCString() },
        );
      }
      c.n += calls;
      await serveMcp(build(corpus, v, shape), req, res, body);
    } catch (e) {
      if (!res.headersSent) sendError(res, e instanceof HttpError ? e : fail(500, 'internal error'));
    }
  };
}
