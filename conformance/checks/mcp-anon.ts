// The anonymous MCP server and the discovery documents: no key needed, exactly search_jobs, get_job and
// get_curated_list (with `query` and `job_id`), none of the keyed server's other tools; GET /mcp, the
// keyed server's /.well-known/mcp.json and /llms.txt, and /api/openapi.json are served.

import { randomInt } from 'node:crypto';
import type { Check, CheckContext } from '../check.js';
import { skip, violation } from '../failure.js';
import { jsonOf, send, type Exchange } from '../target/http.js';
import { JOBS, sleep } from './support.js';
import { expectNoCharge, readWallet } from './wallet.js';
import { someJobs } from './jobs-apply.js';
import { KEYED_TOOLS } from './mcp-keyed.js';
import { movedBy, watchClock } from './clock-watch.js';
import { connect, failed, findList, toolPayload } from './mcp-support.js';
import { mainList } from './open-shape.js';
import { describedParameterProblems } from './described-params.js';

const ANON_TOOLS = ['get_curated_list', 'get_job', 'search_jobs'];

const anonServer: Check = {
  id: 'mcp.anon.server',
  title:
    'The anonymous server needs no key, lists exactly search_jobs, get_job and get_curated_list (query / job_id), and has none of the keyed-only tools',
  requirements: ['MCP-ANON-1', 'MCP-ANON-2', 'MCP-ANON-3', 'MCP-ANON-6'],
  appliesTo: { surface: 'anon-mcp', needs: ['anonMcp'] },
  async run(ctx) {
    const url = ctx.target.anonMcpUrl!;
    const s = await connect(ctx, url, undefined, 'MCP-ANON-1', 'the anonymous server without a key');
    try {
      const { tools, exchange } = await s.listTools();
      const names = tools.map((t) => t.name).sort();
      const extra = names.filter((n) => !ANON_TOOLS.includes(n));
      if (extra.length)
        throw violation(
          'MCP-ANON-2',
          `the anonymous server lists ${extra.join(', ')}; it offers only ${ANON_TOOLS.join(', ')}`,
          exchange,
        );
      const missing = ANON_TOOLS.filter((n) => !names.includes(n));
      if (missing.length) throw violation('MCP-ANON-2', `the anonymous server lacks ${missing.join(', ')}`, exchange);
      const props = (name: string) => Object.keys(tools.find((x) => x.name === name)?.inputSchema?.properties ?? {});
      if (!props('search_jobs').includes('query') || props('search_jobs').includes('q'))
        throw violation(
          'MCP-ANON-3',
          `anonymous search_jobs takes [${props('search_jobs').join(', ')}]: the argument is 'query', not 'q'`,
          exchange,
        );
      if (!props('get_job').includes('job_id') || props('get_job').includes('id'))
        throw violation(
          'MCP-ANON-3',
          `anonymous get_job takes [${props('get_job').join(', ')}]: the argument is 'job_id', not 'id'`,
          exchange,
        );
      await ctx.failures.step(async () => {
        const r = await s.callTool('search_jobs', { query: 'data', limit: 3 });
        if (failed(r))
          throw violation(
            'MCP-ANON-1',
            `anonymous search_jobs failed: ${JSON.stringify(toolPayload(r.result) ?? r.rpcError)}`,
            r.exchange,
          );
        const jobs = findList(toolPayload(r.result), ['id', 'title']);
        if (jobs?.length) {
          const g = await s.callTool('get_job', { job_id: jobs[0].id });
          if (failed(g))
            throw violation(
              'MCP-ANON-3',
              `anonymous get_job {job_id} failed for a listed job: ${JSON.stringify(toolPayload(g.result) ?? g.rpcError)}`,
              g.exchange,
            );
        }
      });
      await ctx.failures.step(async () => {
        const r = await s.callTool('get_curated_list', {});
        if (failed(r)) throw violation('MCP-ANON-6', 'get_curated_list failed', r.exchange);
        // the result's shape is not shown: a list is its main list (platforms may be records or plain names)
        if (!mainList(toolPayload(r.result))?.length)
          throw violation('MCP-ANON-6', 'get_curated_list returned no list of platforms', r.exchange);
      });
      for (const tool of KEYED_TOOLS.filter((n) => !ANON_TOOLS.includes(n))) {
        const r = await s.callTool(tool, {});
        if (!failed(r))
          throw violation('MCP-ANON-2', `the keyed-only tool ${tool} answered on the anonymous server`, r.exchange);
      }
    } finally {
      await s.close();
    }
  },
};

const discovery: Check = {
  id: 'mcp.discovery',
  title:
    'Discovery documents are served: /.well-known/mcp.json, /llms.txt, /api/openapi.json, and GET /mcp on the anonymous server',
  requirements: ['MCP-DISC-1', 'MCP-DISC-2', 'MCP-DISC-3', 'JOB-VER-2', 'POL-MCP-4'],
  appliesTo: { surface: 'site' },
  async run(ctx) {
    const site = ctx.target.bases.site;
    const get = (url: string, accept = 'application/json') =>
      send({ method: 'GET', url, headers: { accept } }, ctx.config.requestTimeoutMs);
    await ctx.failures.step(async () => {
      const ex = await get(`${site}/.well-known/mcp.json`);
      if (ex.response?.status !== 200 || typeof jsonOf(ex) !== 'object')
        throw violation(
          'MCP-DISC-1',
          `/.well-known/mcp.json answered ${ex.response?.status ?? ex.error}${ex.response?.status === 200 ? ' without a JSON document' : ''}`,
          ex,
        );
      const d = jsonOf(ex);
      const missing = ['serverInfo', 'transport', 'authentication', 'tools'].filter((k) => !(k in d));
      if (missing.length) ctx.failures.add('POL-MCP-4', `/.well-known/mcp.json lacks ${missing.join(', ')}`, ex);
    });
    await ctx.failures.step(async () => {
      const ex = await get(`${site}/llms.txt`, 'text/plain');
      const text = ex.response?.body ?? '';
      if (ex.response?.status !== 200 || text.trim() === '')
        throw violation(
          'MCP-DISC-2',
          `/llms.txt answered ${ex.response?.status ?? ex.error}${ex.response?.status === 200 ? ' with an empty body' : ''}`,
          ex,
        );
      if (!/^# \S/m.test(text) || !/^> \S/m.test(text))
        ctx.failures.add('POL-MCP-4', '/llms.txt lacks the llmstxt.org H1 title or blockquote summary', ex);
    });
    await ctx.failures.step(async () => {
      const ex = await get(`${site}/api/openapi.json`);
      const d = jsonOf(ex);
      if (ex.response?.status !== 200 || typeof d?.openapi !== 'string' || typeof d?.paths !== 'object')
        throw violation(
          'JOB-VER-2',
          `/api/openapi.json answered ${ex.response?.status ?? ex.error}${ex.response?.status === 200 ? ' but not an OpenAPI document' : ''}`,
          ex,
        );
      // a description of this API: what it declares of a documented parameter does not contradict the documents
      const problems = describedParameterProblems(d, ctx.contract, site);
      if (problems.length)
        throw violation('JOB-VER-2', `/api/openapi.json contradicts the documents: ${problems.join('; ')}`, ex);
    });
    if (!ctx.target.anonMcpUrl)
      return ctx.unobserved(
        'MCP-DISC-3',
        'the anonymous server URL is unknown (--anon-mcp, targets.anonMcp, or listed in /.well-known/mcp.json)',
      );
    await ctx.failures.step(async () => {
      const ex = await get(ctx.target.anonMcpUrl!);
      if (ex.response?.status !== 200 || jsonOf(ex) === undefined)
        throw violation(
          'MCP-DISC-3',
          `GET ${new URL(ctx.target.anonMcpUrl!).pathname} on the anonymous server answered ${ex.response?.status ?? ex.error}${ex.response?.status === 200 ? ' without a JSON document' : ''}`,
          ex,
        );
    });
  },
};

const versioning: Check = {
  id: 'api.versioning',
  title: 'The screening API answers under /api/screening/v1 and the jobs API under /api/v1',
  requirements: ['SCR-VER-1', 'JOB-VER-1'],
  appliesTo: { surface: 'site' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    const u = await ctx.target.call('screening', { path: '/api/screening/v1/usage', key: t.apiKey });
    if (u.response?.status !== 200)
      throw violation('SCR-VER-1', `GET /api/screening/v1/usage answered ${u.response?.status ?? u.error}`, u);
    const jobs = await ctx.target.call('jobs', { path: `${JOBS}/jobs`, key: t.apiKey, query: { limit: 1 } });
    if (jobs.response?.status !== 200)
      throw violation(
        'JOB-VER-1',
        `GET /api/v1/jobs answered ${jobs.response?.status ?? jobs.error}: the jobs API lives under the /api/v1 prefix`,
        jobs,
      );
    const [id] = await someJobs(ctx, t.apiKey, 1);
    if (!id) throw violation('JOB-VER-1', 'GET /api/v1/jobs returned no jobs');
  },
};

const dailyLimit: Check = {
  id: 'mcp.anon.daily-limit',
  keysOnly: "spending this IP's anonymous day (off with --no-rate-windows)",
  title:
    'The anonymous server allows 500 calls per client IP a day and refuses the next (checked on a fresh day of the target clock)',
  requirements: ['MCP-ANON-5', 'POL-MCP-3'],
  appliesTo: { surface: 'anon-mcp', needs: ['anonMcp'] },
  late: true,
  async run(ctx) {
    if (!ctx.capabilities.clock || !ctx.control) return dailyLimitWithoutClock(ctx);
    const control = ctx.control;
    // the per-IP day is no tenant's: it follows the sandbox clock, which only this check moves (D-122)
    const toNextDay = async () => {
      const now = await control.now();
      const next = Date.UTC(
        new Date(now).getUTCFullYear(),
        new Date(now).getUTCMonth(),
        new Date(now).getUTCDate() + 1,
      );
      await control.advanceClock(Math.ceil((next - now) / 1000) + 1);
    };
    // Every client at this address shares its day: a refusal before the 500th call can be another client's
    // calls, and a day that another client's clock move ended mid-walk proves nothing. Such walks are taken
    // again on a new day; only what other clients cannot cause fails the target (D-122).
    const unclear: string[] = [];
    let walkMs = 0;
    for (let attempt = 1; attempt <= 3; attempt++) {
      // two clients that walk their days in step see half a day each, every time: a random pause before
      // walking again puts them out of step. Not from the run's seed: two runs of one seed would pause alike.
      if (attempt > 1) await sleep(randomInt(0, Math.max(1, Math.min(walkMs, 5000))));
      const t0 = Date.now();
      await toNextDay();
      const watch = await watchClock(control, null);
      const s = await connect(
        ctx,
        ctx.target.anonMcpUrl!,
        undefined,
        'MCP-ANON-1',
        'the anonymous server without a key',
      );
      try {
        let ok = 0;
        let refusal: Awaited<ReturnType<typeof s.callTool>> | null = null;
        let foreign = 0;
        for (let i = 0; i < 520 && !refusal && foreign === 0; i++) {
          const r = await s.callTool('get_curated_list', {});
          if (failed(r)) refusal = r;
          else ok++;
          // a walk on a day another client ended stops at once, leaving the new day to that client
          if (i % 50 === 49) foreign = await watch.foreignMs();
        }
        walkMs = Date.now() - t0;
        if (foreign === 0) foreign = await watch.foreignMs();
        if (foreign > 0) {
          unclear.push(`${movedBy(foreign)} (${ok} calls answered)`);
          continue;
        }
        // the connection's own initialize and tools/list may count as calls too
        if (!refusal)
          throw violation('MCP-ANON-5', `520 calls from one IP on one day were all answered; the limit is 500`);
        if (ok > 500)
          throw violation(
            'MCP-ANON-5',
            `the anonymous server answered ${ok} tool calls from one IP on one day before refusing one; the limit is 500 calls`,
            refusal.exchange,
          );
        if (ok < 497) {
          unclear.push(
            `refused after ${ok} answered calls: calls of other clients at this address on the same day can explain it`,
          );
          continue;
        }
        await toNextDay();
        const r = await s.callTool('get_curated_list', {});
        if (failed(r))
          ctx.failures.add(
            'POL-MCP-3',
            'calls are still refused after the target clock moved past 00:00 UTC',
            r.exchange,
          );
        return;
      } finally {
        await s.close();
      }
    }
    const why = `the day of this client address could not be judged on its own calls in 3 walks, each on a new day (${unclear.join('; ')}); another client's calls or clock moves are never held against the target`;
    ctx.unobserved('MCP-ANON-5', why);
    ctx.unobserved('POL-MCP-3', why);
  },
};

/**
 * Without a clock: call until the server refuses. This IP's calls earlier today are unknown, so only
 * "refused by call 500 of this run (plus the connection's own messages)" is observable; the IP then has
 * no anonymous calls left today (opt out with --no-rate-windows).
 */
async function dailyLimitWithoutClock(ctx: CheckContext): Promise<void> {
  if (!ctx.config.rateWindows) throw skip("--no-rate-windows: this IP's anonymous-server day is not spent");
  const s = await connect(ctx, ctx.target.anonMcpUrl!, undefined, 'MCP-ANON-1', 'the anonymous server without a key');
  try {
    for (let i = 1; i <= 505; i++) {
      const r = await s.callTool('get_curated_list', {});
      if (failed(r)) return;
    }
    throw violation('MCP-ANON-5', '505 calls from one IP in one run were all answered; the limit is 500 a day');
  } finally {
    await s.close();
  }
}

const methods: Check = {
  id: 'api.methods',
  title:
    'A known path called with a method it does not serve answers 404 in the error envelope; the keyed MCP endpoint answers GET with 405 and Allow: POST',
  requirements: ['POL-ERR-3'],
  appliesTo: { surface: 'site' },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    for (const [surface, path] of [
      ['jobs', '/api/v1/jobs'],
      ['screening', '/api/screening/v1/usage'],
    ] as const) {
      const ex = await ctx.target.call(surface, { method: 'DELETE', path, key: t.apiKey, policyProbe: true });
      if (ex.response?.status !== 404 || jsonOf(ex)?.error?.code !== 'not_found')
        ctx.failures.add(
          'POL-ERR-3',
          `DELETE ${path} answered ${ex.response?.status} ${jsonOf(ex)?.error?.code ?? ''}, not 404 not_found`,
          ex,
        );
    }
    const get = await send(
      {
        method: 'GET',
        url: ctx.target.mcpUrl,
        headers: { authorization: `Bearer ${t.apiKey}`, accept: 'application/json' },
      },
      ctx.config.requestTimeoutMs,
    );
    if (get.response?.status !== 405 || !/POST/.test(get.response.headers.allow ?? ''))
      ctx.failures.add(
        'POL-ERR-3',
        `GET on the keyed MCP endpoint answered ${get.response?.status} (Allow: ${get.response?.headers.allow ?? 'none'}), not 405 with Allow: POST`,
        get,
      );
  },
};

const screeningDescription: Check = {
  id: 'screening.description-version',
  title: 'The screening API description, where the deployment links one (llms.txt), has version 1.0.0',
  requirements: ['SCR-VER-2'],
  appliesTo: { surface: 'site' },
  async run(ctx) {
    const site = ctx.target.bases.site;
    const llms = await send(
      { method: 'GET', url: `${site}/llms.txt`, headers: { accept: 'text/plain' } },
      ctx.config.requestTimeoutMs,
    );
    // the specification does not say where the description is served: without a link to one, the item is skipped, never failed
    const links = [...(llms.response?.body ?? '').matchAll(/\]\((\S+?\.json)\)/g)].flatMap((m) =>
      URL.canParse(m[1], site) ? [new URL(m[1], site).toString()] : [],
    );
    for (const url of links) {
      const ex = await send(
        { method: 'GET', url, headers: { accept: 'application/json' } },
        ctx.config.requestTimeoutMs,
      );
      const doc = jsonOf(ex);
      if (!doc?.openapi || !Object.keys(doc.paths ?? {}).some((p) => p.startsWith('/api/screening/v1'))) continue;
      if (doc.info?.version !== '1.0.0')
        throw violation(
          'SCR-VER-2',
          `the screening API description at ${url} has version ${JSON.stringify(doc.info?.version)}, not 1.0.0`,
          ex,
        );
      return;
    }
    throw skip('the deployment links no screening API description (OpenAPI JSON) from /llms.txt');
  },
};

/** What the keyed side reads: a key's /me, a search, one job and the skills (numbers that move by themselves aside). */
async function keyedView(
  ctx: CheckContext,
  key: string,
  jobId: string,
): Promise<{ view: unknown[]; evidence: Exchange[] }> {
  const calls = [
    ctx.target.call('jobs', { path: `${JOBS}/jobs`, key, query: { limit: 10 } }),
    ctx.target.call('jobs', { path: `${JOBS}/jobs/${encodeURIComponent(jobId)}`, key }),
    ctx.target.call('jobs', { path: `${JOBS}/market/skills`, key, query: { limit: 10 } }),
  ];
  const evidence = await Promise.all(calls);
  return { view: evidence.map((ex) => [ex.response?.status, jsonOf(ex)]), evidence };
}

const readOnly: Check = {
  id: 'mcp.anon.read-only',
  title:
    'Calling every tool the anonymous server lists changes nothing the keyed side reads (search, job, skills, wallet)',
  requirements: ['MCP-ANON-4'],
  appliesTo: { surface: 'anon-mcp', needs: ['anonMcp'] },
  async run(ctx) {
    const t = await ctx.tenants.get('pro');
    const [jobId] = await someJobs(ctx, t.apiKey, 1);
    const wallet = await readWallet(ctx, t.apiKey);
    const before = await keyedView(ctx, t.apiKey, jobId);
    const s = await connect(ctx, ctx.target.anonMcpUrl!, undefined, 'MCP-ANON-1', 'the anonymous server without a key');
    const calls: Exchange[] = [];
    try {
      const { tools } = await s.listTools();
      for (const tool of tools) {
        // every listed tool, with the documented arguments where it has them and empty ones otherwise
        const props = Object.keys(tool.inputSchema?.properties ?? {});
        const args: Record<string, unknown> = {};
        if (props.includes('query')) args.query = 'engineer';
        if (props.includes('job_id')) args.job_id = jobId;
        calls.push((await s.callTool(tool.name, args)).exchange);
      }
    } finally {
      await s.close();
    }
    const after = await keyedView(ctx, t.apiKey, jobId);
    if (JSON.stringify(after.view) !== JSON.stringify(before.view))
      throw violation(
        'MCP-ANON-4',
        "calling the anonymous server's tools changed what the keyed REST API reads (search, job or skills)",
        ...before.evidence,
        ...calls,
        ...after.evidence,
      );
    await expectNoCharge(ctx, t.apiKey, wallet, 'MCP-ANON-4', 'calling every tool of the anonymous server', ...calls);
  },
};

export const anonAndDiscoveryChecks = [
  anonServer,
  readOnly,
  discovery,
  versioning,
  methods,
  screeningDescription,
  dailyLimit,
];
