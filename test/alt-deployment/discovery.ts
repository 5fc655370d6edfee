// Discovery documents: /.well-known/mcp.json (both servers), /llms.txt and a small hand-written /api/openapi.json.
import { anonDiscovery } from './mcp-anon.js';
import { KEYED_INSTRUCTIONS, KEYED_PROTOCOL_VERSION } from './mcp-keyed.js';
import type { Switches } from './violations.js';

const KEYED_TOOLS = [
  'search_jobs',
  'get_job',
  'get_skill_demand',
  'draft_application',
  'apply_to_job',
  'get_me',
  'match_candidates',
  'talent_search',
  'post_job',
  'hire',
];

export function mcpJson(baseUrl: string, anonUrl: string, v: Switches) {
  return {
    servers: [
      {
        name: 'alt-jobs',
        url: `${baseUrl}/api/mcp`,
        transport: 'streamable-http',
        protocolVersion: KEYED_PROTOCOL_VERSION,
        version: '1.0.0',
        authentication: { type: 'bearer', keyPrefix: 'altk_live_' },
        instructions: KEYED_INSTRUCTIONS,
        tools: KEYED_TOOLS.filter((t) => !(t === 'get_skill_demand' && v.on('keyed-missing-skill-demand'))),
      },
      anonDiscovery(anonUrl, v),
    ],
  };
}

export function llmsTxt(baseUrl: string, anonUrl: string): string {
  return [
    '# Alt Jobs',
    '',
    '> Remote, Indonesia-friendly jobs over REST and MCP, plus a human-reviewed candidate screening API.',
    '',
    '## APIs',
    `- [Jobs and market REST API](${baseUrl}/api/openapi.json): search, apply, /me and market data under /api/v1`,
    `- [Screening API](${baseUrl}/api/openapi.json): submit, usage and audit under /api/screening/v1`,
    `- [Keyed MCP server](${baseUrl}/api/mcp): Streamable HTTP, bearer key`,
    `- [Anonymous MCP server](${anonUrl}): search only, no key`,
    '',
  ].join('\n');
}

const bearer = [{ bearer: [] }];
const op = (summary: string, extra: Record<string, unknown> = {}) => ({
  summary,
  security: bearer,
  responses: { '200': { description: 'OK' } },
  ...extra,
});
const pathParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const get = (summary: string, extra: Record<string, unknown> = {}) => ({ get: op(summary, extra) });
const q = (name: string, schema: Record<string, unknown>) => ({ name, in: 'query', required: false, schema });

export function openApi(baseUrl: string, v?: Switches) {
  return {
    openapi: '3.1.0',
    info: { title: 'Alt Jobs APIs', version: v?.on('description-version-2') ? '2.0.0' : '1.0.0' },
    servers: [{ url: baseUrl }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths: {
      '/api/v1/jobs': get('Search active jobs', {
        parameters: [
          q('q', { type: 'string' }),
          q('location', { type: 'string' }),
          q('remote_type', { enum: ['worldwide', 'regional', 'timezone-based'] }),
          q('job_type', { enum: ['full-time', 'part-time', 'contract', 'freelance'] }),
          q('opportunity_type', { enum: ['regular', 'internship', 'fellowship', 'apprenticeship', 'volunteer'] }),
          q('limit', { type: 'integer', minimum: 1, maximum: 50, default: 20 }),
          q('offset', { type: 'integer', minimum: 0 }),
          q('locale', { enum: ['id', 'en'] }),
        ],
      }),
      '/api/v1/jobs/{id}': get('One active job', { parameters: [pathParam('id')] }),
      '/api/v1/jobs/{id}/apply': {
        post: op('Apply (paid tiers, 1 credit)', {
          parameters: [pathParam('id')],
          responses: { '202': { description: 'Queued or redirected' } },
        }),
      },
      '/api/v1/me': get('Plan, grants, balance and quotas'),
      '/api/v1/market/salary': get('Salary grid'),
      '/api/v1/market/roles': get('Role families', { parameters: [q('locale', { enum: ['id', 'en'] })] }),
      '/api/v1/market/roles/{role}': get('Role family report', {
        parameters: [pathParam('role'), q('locale', { enum: ['id', 'en'] })],
      }),
      '/api/v1/market/skills': get('Skill demand', {
        parameters: [q('limit', { type: 'integer', minimum: 1, maximum: 100, default: 25 })],
      }),
      '/api/screening/v1/screen': {
        post: op('Submit a candidate', {
          responses: { '200': { description: 'Replay' }, '201': { description: 'Created' } },
        }),
      },
      '/api/screening/v1/usage': get('Screening wallet'),
      '/api/screening/v1/audit': get('Audit ledger export', {
        parameters: [
          q('since', { type: 'string', format: 'date-time' }),
          q('cursor', { type: 'string' }),
          q('limit', { type: 'integer', minimum: 1, maximum: 500, default: 100 }),
        ],
      }),
    },
  };
}
