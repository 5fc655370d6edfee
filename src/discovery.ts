// Discovery documents on the main app: /.well-known/mcp.json (the keyed server's card, pointing at the
// anonymous server too), /llms.txt (llmstxt.org) and /api/openapi.json (the jobs contract with its
// server set to this sandbox). All are built from what the servers really expose.

import { Hono } from 'hono';
import type { Core } from './domain/core.js';
import { limits } from './domain/plans.js';
import { anonEndpoint, keyedCard } from './mcp/card.js';
import { anonListed, keyedListed } from './mcp/listing.js';
import { requestOrigin, servedDocument } from './http/docs.js';
import type { AdvertisedTool } from './mcp/toolContracts.js';
import { notFound } from './errors/errors.js';
import type { AppEnv } from './web/env.js';

/** One tool as an llms.txt entry: what it does, whether it acts, its arguments, a link to its full entry. */
function toolLine(t: AdvertisedTool, server: 'keyed' | 'anon', b: string): string {
  const scope = /^Employer tool \(scope '(\w+)'\)\.\s*/.exec(t.description);
  const text = t.description
    .replace(/^Employer tool \(scope '\w+'\)\.\s*/, '')
    .replace(/\s+/g, ' ')
    .trim();
  const a = t.annotations;
  const acts = a.readOnlyHint
    ? /read-only/i.test(text)
      ? ''
      : 'Read-only.'
    : `Acts${a.openWorldHint ? ' beyond this service' : ''}${a.idempotentHint ? '' : ', not idempotent'}: confirm with the user first.`;
  const props = Object.keys((t.inputSchema.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set((t.inputSchema.required as string[] | undefined) ?? []);
  const args = props.length
    ? ` Arguments: ${props.map((p) => (required.has(p) ? `${p} (required)` : p)).join(', ')}.`
    : '';
  return `- [${t.name}: ${t.title}](${b}${toolEntryPath(server, t.name)}): ${scope ? `Needs the key scope '${scope[1]}'. ` : ''}${[text, acts].filter(Boolean).join(' ')}${args}`;
}

/** Where one tool's full entry (schemas and annotations) is served. */
export const toolEntryPath = (server: 'keyed' | 'anon', name: string) =>
  `/.well-known/mcp/tools/${server}/${name}.json`;

export function llmsTxt(core: Core): string {
  const b = core.config.publicUrl.replace(/\/+$/, '');
  const anon = anonEndpoint(core);
  const free = limits.spec.jobs.free;
  const lines = [
    '# Remote Jobs API sandbox',
    '',
    '> Remote, Indonesia-friendly jobs over REST and MCP: search, read and apply (paid tiers spend 1 credit per apply), read-only market data, a candidate screening API with mandatory human review, and anonymized employer hiring tools. This is the sandbox: fictional data and sandbox keys, same contracts as production.',
    '',
    `Authenticate with \`Authorization: Bearer <API_KEY>\` on every request (keys start with \`rjk_live_\`); never put a key in a URL. Tiers: free (${free.rateLimitPerMinute}/min, ${free.maxPages} pages, no apply), starter and pro. Errors are \`{ "error": { "code", "message" } }\`; honour \`Retry-After\` on 429.`,
    '',
    'Each MCP tool below links to its full entry (title, annotations, input and output schemas). "Acts" marks a tool that changes something outside the call: confirm with the user before calling it.',
    '',
    '## MCP',
    '',
    `- [Keyed MCP server](${b}/api/mcp): Streamable HTTP, protocol 2025-06-18, bearer key with the mcp scope; ${keyedListed(core).length} tools, listed below.`,
    `- [Anonymous MCP server](${anon}): Streamable HTTP, no key, read-only, ${limits.spec.anonMcpCallsPerDayPerIp} tool calls per day per IP; GET it for its discovery document.`,
    `- [Server card](${b}/.well-known/mcp.json): both servers, with every tool's title, annotations and schemas (also at /.well-known/mcp/server-card.json).`,
    '',
    '## Keyed MCP tools',
    '',
    ...keyedListed(core).map((t) => toolLine(t, 'keyed', b)),
    '',
    '## Anonymous MCP tools',
    '',
    ...anonListed(core).map((t) => toolLine(t, 'anon', b)),
    '',
    '## REST API',
    '',
    `- [OpenAPI document](${b}/api/openapi.json): jobs, apply, me and market endpoints under /api/v1.`,
    `- [Search jobs](${b}/api/v1/jobs): GET with q, location, remote_type, job_type, opportunity_type, limit (1-50), offset, locale.`,
    `- [Apply](${b}/docs#/jobs/applyToJob): POST /api/v1/jobs/{id}/apply with candidate_name, candidate_email, message (80-3000 characters); paid tiers, 1 credit.`,
    `- [Me](${b}/api/v1/me): tier, scopes, apply credits and limits; call before applying.`,
    `- [Market data](${b}/api/v1/market/skills): salary benchmarks, role reports and in-demand skills; free on every tier.`,
    '',
    '## Optional',
    '',
    `- [API reference](${b}/docs): Swagger UI over both OpenAPI documents.`,
    `- [Screening API](${b}/docs/screening.json): candidate screening with human review, audit ledger and signed webhooks.`,
    '',
  ];
  return lines.join('\n');
}

export function discoveryRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/.well-known/mcp.json', (c) => c.json(keyedCard(c.var.core)));
  // the path newer discovery drafts and registry scanners look for; the same card
  r.get('/.well-known/mcp/server-card.json', (c) => c.json(keyedCard(c.var.core)));
  r.get('/.well-known/mcp/tools/:server/:file', (c) => {
    const server = c.req.param('server');
    const name = c.req.param('file').replace(/\.json$/, '');
    const listed = server === 'keyed' ? keyedListed(c.var.core) : server === 'anon' ? anonListed(c.var.core) : [];
    const tool = listed.find((t) => t.name === name);
    if (!tool) throw notFound(`no tool '${name}' on the ${server} MCP server; /llms.txt lists them`);
    return c.json(tool);
  });
  r.get('/llms.txt', (c) => c.text(llmsTxt(c.var.core), 200, { 'content-type': 'text/plain; charset=utf-8' }));
  r.get('/api/openapi.json', (c) => c.json(servedDocument(c.var.core, 'jobs', requestOrigin(c))));
  return r;
}
