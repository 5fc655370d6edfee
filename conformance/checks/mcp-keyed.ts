// The keyed MCP server: initialize (protocol 2025-06-18, server 1.0.0, instructions), a bearer key on
// every call, the tool list and argument names, and seeker tools that share the REST API's feed,
// tiers and apply wallet.

import type { Check, CheckContext } from '../check.js';
import type { McpSession } from '../target/mcp.js';
import { violation } from '../failure.js';
import { jsonOf } from '../target/http.js';
import { initializeParams, rawRpc } from '../target/mcp.js';
import { someJobs } from './jobs-apply.js';
import { findRecord, leaves, mainList, mentionsNumber, namesTier } from './open-shape.js';
import { expectNoCharge, expectOneCharge, readWallet } from './wallet.js';
import { connect, failed, findList, toolPayload } from './mcp-support.js';
import { expectStatus, jobsApi, JOBS } from './support.js';

export const KEYED_TOOLS = [
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

const initialize: Check = {
  id: 'mcp.keyed.initialize',
  title:
    'The keyed server initializes over Streamable HTTP with protocol 2025-06-18, server version 1.0.0 and instructions, and refuses calls without a valid key (401)',
  requirements: ['MCP-KEYED-1', 'MCP-KEYED-2', 'MCP-KEYED-3', 'MCP-KEYED-4', 'POL-MCP-2'],
  appliesTo: { surface: 'mcp' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    const url = ctx.target.mcpUrl;
    const init = await rawRpc(url, 'initialize', initializeParams('2025-06-18'), { key: t.apiKey });
    expectStatus(init.exchange, 200, 'MCP-KEYED-1', 'initialize over Streamable HTTP');
    const result = init.message?.result;
    if (!result)
      throw violation(
        'MCP-KEYED-1',
        `initialize answered no JSON-RPC result: ${JSON.stringify(init.message?.error ?? init.exchange.response?.body.slice(0, 200))}`,
        init.exchange,
      );
    if (result.protocolVersion !== '2025-06-18')
      throw violation(
        'MCP-KEYED-4',
        `initialize reports protocol version ${JSON.stringify(result.protocolVersion)}, not 2025-06-18`,
        init.exchange,
      );
    if (result.serverInfo?.version !== '1.0.0')
      throw violation(
        'MCP-KEYED-4',
        `initialize reports server version ${JSON.stringify(result.serverInfo?.version)}, not 1.0.0`,
        init.exchange,
      );
    if (typeof result.instructions !== 'string' || result.instructions.trim() === '')
      throw violation('MCP-KEYED-3', 'initialize advertises no usage instructions', init.exchange);
    const latest = await rawRpc(url, 'initialize', initializeParams('2025-11-25'), { key: t.apiKey });
    if (latest.message?.result?.protocolVersion !== '2025-06-18')
      ctx.failures.add(
        'POL-MCP-2',
        `a client asking for 2025-11-25 is answered ${JSON.stringify(latest.message?.result?.protocolVersion)}, not 2025-06-18`,
        latest.exchange,
      );
    for (const [what, opts] of [
      ['without a key', {}],
      ['with an unknown key', { key: 'rjk_live_00000000000000000000000000000000' }],
      ['with a malformed Authorization header', { authorization: 'Basic Zm9vOmJhcg==' }],
    ] as const) {
      // every call: the handshake, the listing and a tool call alike
      for (const method of ['initialize', 'tools/list', 'tools/call']) {
        await ctx.failures.step(async () => {
          const params =
            method === 'initialize'
              ? initializeParams('2025-06-18')
              : method === 'tools/call'
                ? { name: 'search_jobs', arguments: { q: 'engineer', limit: 1 } }
                : {};
          const r = await rawRpc(url, method, params, { ...opts, protocolVersion: '2025-06-18' });
          expectStatus(r.exchange, 401, 'MCP-KEYED-2', `${method} ${what}`);
        });
      }
    }
    const s = await connect(ctx, url, t.apiKey, 'MCP-KEYED-1', 'a pro key');
    await s.close();
  },
};

const tools: Check = {
  id: 'mcp.keyed.tools',
  title:
    'The keyed server lists the ten tools; search_jobs takes q, the REST filters, limit and offset; get_job takes id',
  requirements: ['POL-MCP-1', 'MCP-TOOL-1'],
  appliesTo: { surface: 'mcp' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    const s = await connect(ctx, ctx.target.mcpUrl, t.apiKey, 'MCP-KEYED-1', 'a pro key');
    try {
      const { tools: list, exchange } = await s.listTools();
      const names = list.map((x) => x.name).sort();
      if (names.join() !== [...KEYED_TOOLS].sort().join())
        ctx.failures.add(
          'POL-MCP-1',
          `the keyed server lists [${names.join(', ')}], not the ten tools of the descriptor`,
          exchange,
        );
      const props = (name: string) => Object.keys(list.find((x) => x.name === name)?.inputSchema?.properties ?? {});
      const search = props('search_jobs');
      const missing = ['q', 'remote_type', 'job_type', 'opportunity_type', 'location', 'limit', 'offset'].filter(
        (p) => !search.includes(p),
      );
      if (missing.length)
        throw violation(
          'MCP-TOOL-1',
          `search_jobs takes no ${missing.join(', ')} (arguments: ${search.join(', ') || 'none'})`,
          exchange,
        );
      if (search.includes('query'))
        throw violation(
          'MCP-TOOL-1',
          "search_jobs on the keyed server takes 'query'; the keyed argument name is 'q'",
          exchange,
        );
      if (!props('get_job').includes('id'))
        throw violation('MCP-TOOL-1', `get_job takes no 'id' (arguments: ${props('get_job').join(', ')})`, exchange);
      // `locale` is not among the arguments the documents name for the tool, but one that takes it takes it
      // as in REST, where it is `id` or `en`: both must be accepted
      if (search.includes('locale'))
        for (const locale of ['id', 'en']) {
          const r = await s.callTool('search_jobs', { q: 'engineer', limit: 1, locale });
          if (failed(r))
            throw violation(
              'MCP-TOOL-1',
              `search_jobs {locale: '${locale}'} failed (${String(JSON.stringify(toolPayload(r.result) ?? r.rpcError)).slice(0, 200)}); locale is 'id' or 'en' as in REST`,
              r.exchange,
            );
        }
    } finally {
      await s.close();
    }
  },
};

const seeker: Check = {
  id: 'mcp.keyed.seeker-tools',
  title:
    "Seeker tools share REST's feed, tiers and apply wallet: search and get_job return the REST jobs, get_skill_demand the skills endpoint, get_me the tier, apply_to_job spends the same credits",
  requirements: [
    'MCP-TOOL-1',
    'MCP-TOOL-2',
    'MCP-TOOL-3',
    'MCP-TOOL-6',
    'MCP-TOOL-7',
    'MCP-KEYED-5',
    'JOB-SEARCH-7',
    'POL-MCP-7',
    'POL-MCP-12',
  ],
  appliesTo: { surface: 'mcp' },
  async run(ctx) {
    const t = await ctx.tenants.get('starter');
    const [jobId] = await someJobs(ctx, t.apiKey, 1);
    const s = await connect(ctx, ctx.target.mcpUrl, t.apiKey, 'MCP-KEYED-1', 'a starter key');
    try {
      await ctx.failures.step(async () => {
        const before = await readWallet(ctx, t.apiKey);
        const r = await s.callTool('search_jobs', { q: 'engineer', limit: 5 });
        if (failed(r))
          throw violation(
            'MCP-TOOL-2',
            `search_jobs failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
            r.exchange,
          );
        const jobs = findList(toolPayload(r.result), ['id', 'title']);
        if (!jobs) throw violation('MCP-TOOL-2', 'search_jobs returned no list of jobs', r.exchange);
        const noUrl = jobs.find((j) => !Object.keys(j).some((k) => /apply_?url/i.test(k)));
        if (noUrl)
          throw violation('MCP-TOOL-2', `search_jobs returned job ${noUrl.id} without an apply URL`, r.exchange);
        // "basic fields": the Job resource's fields keep their documented types and values over MCP too
        for (const job of jobs) {
          const shape = ctx.validator.schema('jobs:Job', job).must[0];
          if (shape)
            throw violation(
              'MCP-TOOL-2',
              `search_jobs returned job ${job.id} whose basic fields break the Job resource: ${shape.message}`,
              r.exchange,
            );
        }
        const g = await s.callTool('get_job', { id: jobId });
        // search and get_job are free: nothing of the REST wallet moves
        await expectNoCharge(
          ctx,
          t.apiKey,
          before,
          'MCP-TOOL-2',
          'search_jobs and get_job over MCP (free of charge)',
          r.exchange,
          g.exchange,
        );
      });
      await ctx.failures.step(() => inactiveNotSearched(ctx, s));
      await ctx.failures.step(async () => {
        // the REST filters, honoured as in REST, and the tier's ad-free promise on this surface too
        for (const remote_type of ['regional', 'worldwide']) {
          const r = await s.callTool('search_jobs', { remote_type, limit: 50 });
          if (failed(r))
            throw violation(
              'MCP-TOOL-1',
              `search_jobs {remote_type: ${remote_type}} failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
              r.exchange,
            );
          const jobs = findList(toolPayload(r.result), ['id', 'title']) ?? [];
          const off = jobs.find((j) => 'remoteType' in j && j.remoteType !== remote_type);
          if (off)
            throw violation(
              'MCP-TOOL-1',
              `search_jobs {remote_type: ${remote_type}} returned job ${off.id} with remoteType '${off.remoteType}': filters work as in REST`,
              r.exchange,
            );
          const ad = jobs.find((j) => j.sponsored === true);
          if (ad)
            throw violation(
              'JOB-SEARCH-7',
              `search_jobs over MCP by a starter key returned sponsored job ${ad.id}: paid tiers are ad-free`,
              r.exchange,
            );
        }
      });
      await ctx.failures.step(async () => {
        const rest = await jobsApi(ctx).get(t.apiKey, jobId);
        const r = await s.callTool('get_job', { id: jobId });
        if (failed(r))
          throw violation(
            'MCP-TOOL-2',
            `get_job ${jobId} failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
            r.exchange,
          );
        const p = toolPayload(r.result);
        // a Job's fields are documented, where the job sits in the tool result is not: any object with its id
        const job = findRecord(p, (o) => o.id === jobId);
        if (job?.id !== jobId || job?.title !== jsonOf(rest)?.title)
          throw violation(
            'MCP-KEYED-5',
            `get_job ${jobId} over MCP does not return the job REST returns (${jsonOf(rest)?.title})`,
            rest,
            r.exchange,
          );
        // one feed: every basic field both surfaces show has the same value (sponsored depends on the tier)
        for (const [k, v] of Object.entries(jsonOf(rest) ?? {})) {
          if (k !== 'sponsored' && k in job && JSON.stringify(job[k]) !== JSON.stringify(v))
            throw violation(
              'MCP-KEYED-5',
              `get_job ${jobId} over MCP reports ${k} ${JSON.stringify(job[k])}, REST ${JSON.stringify(v)}: REST and MCP share one feed`,
              rest,
              r.exchange,
            );
        }
      });
      await ctx.failures.step(async () => {
        const rest = await ctx.target.call('jobs', {
          path: `${JOBS}/market/skills`,
          key: t.apiKey,
          query: { limit: 10 },
        });
        const r = await s.callTool('get_skill_demand', { limit: 10 });
        if (failed(r)) throw violation('MCP-TOOL-3', 'get_skill_demand failed', r.exchange);
        // neither body's field names are shown: the same data means the same entries, value for value, in the same order
        const mcpSkills = entryValues(mainList(toolPayload(r.result)));
        const restSkills = entryValues(mainList(jsonOf(rest)));
        if (JSON.stringify(mcpSkills) !== JSON.stringify(restSkills))
          throw violation(
            'MCP-TOOL-3',
            `get_skill_demand returned [${mcpSkills?.slice(0, 5).join(', ')}…], GET /market/skills [${restSkills.slice(0, 5).join(', ')}…]`,
            rest,
            r.exchange,
          );
      });
      await ctx.failures.step(async () => {
        // the same data as the skills endpoint, whose limit is 1 to 100: both bounds are accepted over MCP too
        for (const limit of [1, 100]) {
          const r = await s.callTool('get_skill_demand', { limit });
          if (failed(r))
            throw violation(
              'MCP-TOOL-3',
              `get_skill_demand {limit: ${limit}} failed (${String(JSON.stringify(toolPayload(r.result) ?? r.rpcError)).slice(0, 200)}); the skills endpoint takes limit 1 to 100`,
              r.exchange,
            );
        }
      });
      await ctx.failures.step(async () => {
        const r = await s.callTool('get_me', {});
        if (failed(r)) throw violation('MCP-TOOL-7', 'get_me failed', r.exchange);
        const p = toolPayload(r.result);
        // the result's shape is open: the tier must be named somewhere in it, in any letter case
        if (!namesTier(p, 'starter'))
          throw violation(
            'MCP-TOOL-7',
            `get_me does not name the tier (starter) of a starter key: ${JSON.stringify(p).slice(0, 200)}`,
            r.exchange,
          );
        // per-tier limits: the starter row of the tier table (rate limit 120 a minute, 20 pages), wherever they sit
        for (const [what, n] of [
          ['rate limit per minute', 120],
          ['maximum pages', 20],
        ] as const) {
          if (!mentionsNumber(p, n))
            throw violation(
              'MCP-TOOL-7',
              `get_me for a starter key never mentions the tier table's ${what} (${n})`,
              r.exchange,
            );
        }
      });
      await ctx.failures.step(async () => {
        const r = await s.callTool('search_jobs', { q: 'engineer', limit: 0 });
        const err = toolPayload(r.result)?.error;
        if (!failed(r))
          throw violation('MCP-TOOL-1', 'search_jobs with limit 0 succeeded; limit is 1 to 50 as in REST', r.exchange);
        if (err?.code !== 'invalid_request' || !String(err?.message ?? '').includes('limit'))
          ctx.failures.add(
            'POL-MCP-12',
            `search_jobs with limit 0 answered ${JSON.stringify(err ?? r.rpcError)}, not invalid_request naming limit`,
            r.exchange,
          );
      });
      await ctx.failures.step(async () => {
        const r = await s.callTool('no_such_tool_zz', {});
        if (!failed(r)) ctx.failures.add('POL-MCP-7', 'a call to an unknown tool succeeded', r.exchange);
      });
      await ctx.failures.step(async () => {
        const before = await readWallet(ctx, t.apiKey);
        const r = await s.callTool('apply_to_job', {
          id: jobId,
          candidate_name: 'Conformance Applicant',
          candidate_email: 'applicant@example.com',
          message:
            'I would like to apply for this role over MCP; I have the experience the listing asks for and can start soon.',
        });
        if (failed(r))
          throw violation(
            'MCP-TOOL-6',
            `apply_to_job by a starter key failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
            r.exchange,
          );
        await expectOneCharge(
          ctx,
          t.apiKey,
          before,
          'MCP-KEYED-5',
          'an apply over MCP, read back through REST GET /me (REST and MCP share the wallet)',
          r.exchange,
        );
      });
    } finally {
      await s.close();
    }
    const free = await ctx.tenants.get('free');
    const f = await connect(ctx, ctx.target.mcpUrl, free.apiKey, 'MCP-KEYED-1', 'a free key');
    try {
      const r = await f.callTool('apply_to_job', {
        id: jobId,
        candidate_name: 'A',
        candidate_email: 'a@example.com',
        message: 'x'.repeat(100),
      });
      if (!failed(r))
        throw violation('MCP-TOOL-6', 'apply_to_job by a free-tier key succeeded: it is paid-tier only', r.exchange);
    } finally {
      await f.close();
    }
  },
};

const scope: Check = {
  id: 'mcp.keyed.scope',
  title: 'A key without the mcp scope is refused with 403',
  requirements: ['POL-AUTH-1'],
  appliesTo: { surface: 'mcp', needs: ['noScopeKey'] },
  async run(ctx) {
    const t = await ctx.tenants.withoutScope('mcp');
    const r = await rawRpc(ctx.target.mcpUrl, 'initialize', initializeParams('2025-06-18'), {
      key: t.apiKey,
      protocolVersion: '2025-06-18',
    });
    if (r.exchange.response?.status !== 403)
      ctx.failures.add(
        'POL-AUTH-1',
        `initialize with a key lacking the mcp scope answered ${r.exchange.response?.status ?? r.exchange.error}, not 403`,
        r.exchange,
      );
  },
};

/** search_jobs searches active jobs: the profile's inactive job (when given) is on no page, swept at the largest page size. */
async function inactiveNotSearched(ctx: CheckContext, s: McpSession): Promise<void> {
  const inactive = ctx.config.inactiveJobId;
  if (!inactive) return;
  for (let page = 0; page < 20; page++) {
    const r = await s.callTool('search_jobs', { limit: 50, offset: page * 50 });
    if (failed(r)) return; // past the tier's page cap, or the end: nothing more to read
    const jobs = findList(toolPayload(r.result), ['id', 'title']) ?? [];
    if (jobs.some((j) => j.id === inactive))
      throw violation(
        'MCP-TOOL-2',
        `page ${page} of an unfiltered search_jobs lists ${inactive}, a job that is not active (the profile's inactiveJobId)`,
        r.exchange,
      );
    if (jobs.length < 50) return;
  }
}

/** Each entry of a list as its scalar values, sorted (field names aside); strings stand for themselves. */
function entryValues(list: unknown[] | null): string[] {
  return (list ?? []).map((e) =>
    JSON.stringify(
      leaves(e)
        .map((l) => l.value)
        .sort((a, b) => String(a).localeCompare(String(b))),
    ),
  );
}

export const keyedMcpChecks = [initialize, tools, seeker, scope];
