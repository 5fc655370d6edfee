// The server cards of both MCP servers (the SEP-1649 / SEP-2127 draft shape: serverInfo, transport,
// authentication, instructions, tools), built from what the servers really list, so the discovery
// documents cannot drift from tools/list.

import type { Core } from '../domain/core.js';
import { limits } from '../domain/plans.js';
import { KEY_PREFIX } from '../domain/tenants.js';
import { ANON_INFO, ANON_INSTRUCTIONS, KEYED_INFO, KEYED_INSTRUCTIONS, PROTOCOL_VERSION } from './instructions.js';
import { anonListed, keyedListed } from './listing.js';

const base = (core: Core) => core.config.publicUrl.replace(/\/+$/, '');

/** The anonymous server's endpoint as seen from outside: the public host on the anonymous port. */
export function anonEndpoint(core: Core): string {
  const u = new URL(base(core));
  u.port = String(core.config.anonMcpPort);
  u.pathname = '/mcp';
  return u.toString();
}

const toolEntries = (tools: ReturnType<typeof keyedListed>) =>
  tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    annotations: t.annotations,
    inputSchema: t.inputSchema,
    ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
  }));

export function anonCard(core: Core, endpoint = anonEndpoint(core)) {
  return {
    serverInfo: { ...ANON_INFO },
    protocolVersion: PROTOCOL_VERSION,
    description:
      'Public, read-only search of remote, Indonesia-friendly jobs and a vetted list of AI-data-work platforms.',
    transport: { type: 'streamable-http', endpoint },
    authentication: {
      required: false,
      schemes: [] as string[],
      description: 'none: no key or account; limited per client IP',
    },
    capabilities: { tools: { listChanged: false } },
    rateLimit: {
      limit: limits.spec.anonMcpCallsPerDayPerIp,
      window: 'day',
      scope: 'client IP',
      counts: 'tools/call',
      resetsAt: '00:00 UTC',
    },
    instructions: ANON_INSTRUCTIONS,
    tools: toolEntries(anonListed(core)),
  };
}

export function keyedCard(core: Core) {
  const b = base(core);
  return {
    serverInfo: { ...KEYED_INFO },
    protocolVersion: PROTOCOL_VERSION,
    description:
      'Remote, Indonesia-friendly jobs for seekers (search, grounded drafts, apply) and anonymized hiring tools for employers.',
    transport: { type: 'streamable-http', endpoint: `${b}/api/mcp` },
    authentication: {
      required: true,
      schemes: ['bearer'],
      description: `Send Authorization: Bearer <API_KEY> on every request (keys start with ${KEY_PREFIX}; never put a key in a URL). The key needs the mcp scope; employer tools also need employer, apply_to_job also apply.`,
    },
    capabilities: { tools: { listChanged: false } },
    rateLimit: {
      window: 'minute',
      scope: 'API key, shared with the REST API',
      perTier: Object.fromEntries(Object.entries(limits.spec.jobs).map(([t, l]) => [t, l.rateLimitPerMinute])),
    },
    instructions: KEYED_INSTRUCTIONS,
    tools: toolEntries(keyedListed(core)),
    anonymous: {
      serverInfo: { ...ANON_INFO },
      transport: { type: 'streamable-http', endpoint: anonEndpoint(core) },
      authentication: { required: false, schemes: [] as string[] },
      discovery: anonEndpoint(core),
      tools: anonListed(core).map((t) => t.name),
    },
    documentation: { openapi: `${b}/api/openapi.json`, llms: `${b}/llms.txt`, reference: `${b}/docs` },
  };
}
