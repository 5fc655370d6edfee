// Discovery documents on the main app: /.well-known/mcp.json (the keyed server's card, pointing at the
// anonymous server too), /llms.txt (llmstxt.org) and /api/openapi.json (the jobs contract with its
// server set to this sandbox). All are built from what the servers really expose.

import { Hono } from 'hono';
import type { Core } from './domain/core.js';
import { limits } from './domain/plans.js';
import { anonEndpoint, keyedCard } from './mcp/card.js';
import { anonListed, keyedListed } from './mcp/listing.js';
import { servedDocument } from './http/docs.js';
import type { AppEnv } from './web/env.js';

const firstSentence = (s: string) => (/^(.+?[.!?])(\s|$)/.exec(s.replace(/\s+/g, ' '))?.[1] ?? s).trim();

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
    '## MCP',
    '',
    `- [Keyed MCP server](${b}/api/mcp): Streamable HTTP, protocol 2025-06-18, bearer key with the mcp scope; ${keyedListed(core).length} tools, listed below.`,
    `- [Anonymous MCP server](${anon}): Streamable HTTP, no key, read-only, ${limits.spec.anonMcpCallsPerDayPerIp} tool calls per day per IP; GET it for its discovery document.`,
    `- [Server card](${b}/.well-known/mcp.json): both servers, with every tool's input schema.`,
    '',
    '## Keyed MCP tools',
    '',
    ...keyedListed(core).map((t) => `- [${t.name}](${b}/api/mcp): ${firstSentence(t.description)}`),
    '',
    '## Anonymous MCP tools',
    '',
    ...anonListed(core).map((t) => `- [${t.name}](${anon}): ${firstSentence(t.description)}`),
    '',
    '## REST API',
    '',
    `- [OpenAPI document](${b}/api/openapi.json): jobs, apply, me and market endpoints under /api/v1.`,
    `- [Search jobs](${b}/api/v1/jobs): GET with q, location, remote_type, job_type, opportunity_type, limit (1-50), offset, locale.`,
    `- [Apply](${b}/api/v1/jobs/{id}/apply): POST candidate_name, candidate_email, message (80-3000 characters); paid tiers, 1 credit.`,
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
  r.get('/llms.txt', (c) => c.text(llmsTxt(c.var.core), 200, { 'content-type': 'text/plain; charset=utf-8' }));
  r.get('/api/openapi.json', (c) => c.json(servedDocument(c.var.core, 'jobs')));
  return r;
}
