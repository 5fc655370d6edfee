// Direct probes of the jobs, market and MCP violations (violations-jobs.ts): each is false on a clean
// deployment and true with its switch on; violations.test.ts runs them beside the screening ones.
import type { AltDeployment } from './index.js';
import { call, connectMcp, tool, type Reply } from './test-support.js';

type Probe = (d: AltDeployment) => Promise<boolean>;
const k = (d: AltDeployment) => d.profile.keys;
const V1 = '/api/v1';
const applyBody = (len = 80) => ({
  candidate_name: 'Dewi',
  candidate_email: 'dewi@example.net',
  message: 'm'.repeat(len),
});
const jobs = (d: AltDeployment, key: string, query: string) => call(d.baseUrl, key, `${V1}/jobs?${query}`);
const firstJob = async (d: AltDeployment) => (await jobs(d, k(d).pro, 'limit=1')).body.jobs[0].id as string;
const balance = async (d: AltDeployment, key: string) =>
  (await call(d.baseUrl, key, `${V1}/me`)).body.balance.apply as number;
/** Did `op` move the key's apply balance as REST /me shows it? */
const spends = async (d: AltDeployment, key: string, op: () => Promise<unknown>) => {
  const before = await balance(d, key);
  await op();
  return (await balance(d, key)) !== before;
};

async function withKeyed<T>(
  d: AltDeployment,
  key: string,
  fn: (m: Awaited<ReturnType<typeof connectMcp>>) => Promise<T>,
): Promise<T> {
  const m = await connectMcp(`${d.baseUrl}/api/mcp`, key);
  try {
    return await fn(m);
  } finally {
    await m.close();
  }
}
async function withAnon<T>(
  d: AltDeployment,
  fn: (m: Awaited<ReturnType<typeof connectMcp>>) => Promise<T>,
): Promise<T> {
  const m = await connectMcp(d.anonMcpUrl);
  try {
    return await fn(m);
  } finally {
    await m.close();
  }
}
const site = (d: AltDeployment, path: string) => fetch(d.baseUrl + path).then((r) => r.status);

export const JOBS_PROBES: Record<string, Probe> = {
  'market-no-auth': async (d) => (await call(d.baseUrl, undefined, `${V1}/market/skills`)).status === 200,
  'keys-test-prefix': async (d) => !k(d).pro.includes('_live_') && (await jobs(d, k(d).pro, 'limit=1')).status === 200,
  'page-one-based': async (d) => (await jobs(d, k(d).pro, 'limit=10')).body.page !== 0,
  'posted-at-date-only': async (d) => !/T\d\d:/.test((await jobs(d, k(d).pro, 'limit=1')).body.jobs[0].postedAt),
  'opportunity-type-unchecked': async (d) => (await jobs(d, k(d).pro, 'opportunity_type=gig')).status === 200,
  'has-more-unaligned': async (d) => (await jobs(d, k(d).pro, 'limit=10&offset=5')).body.hasMore === false,
  'search-lists-inactive': async (d) => {
    const ids: string[] = [];
    for (let offset = 0; offset < 400; offset += 50)
      ids.push(...(await jobs(d, k(d).pro, `limit=50&offset=${offset}`)).body.jobs.map((j: any) => j.id));
    return ids.includes(d.profile.inactiveJobId);
  },
  'search-charges': (d) => spends(d, k(d).pro, () => jobs(d, k(d).pro, 'limit=1')),
  'get-job-drops-currency': async (d) =>
    (await call(d.baseUrl, k(d).pro, `${V1}/jobs/${await firstJob(d)}`)).body.payCurrency === undefined,
  'search-tier-free': async (d) => (await jobs(d, k(d).pro, 'limit=1')).body.tier !== 'Pro',
  'apply-email-optional': async (d) => {
    const { candidate_email: _, ...body } = applyBody(100);
    return (await call(d.baseUrl, k(d).pro, `${V1}/jobs/${await firstJob(d)}/apply`, body)).status === 202;
  },
  'apply-no-reference': async (d) => {
    const r = (await call(d.baseUrl, k(d).pro, `${V1}/jobs/${await firstJob(d)}/apply`, applyBody(100))).body;
    return r.application?.ref === undefined && r.redirect === undefined;
  },
  'message-3000-refused': async (d) =>
    (await call(d.baseUrl, k(d).pro, `${V1}/jobs/${await firstJob(d)}/apply`, applyBody(3000))).status === 400,
  'apply-refused-charges': (d) =>
    spends(d, k(d).pro, async () => call(d.baseUrl, k(d).pro, `${V1}/jobs/${await firstJob(d)}/apply`, applyBody(79))),
  'apply-charges-other-tenant': async (d) =>
    !(await spends(d, k(d).pro, async () =>
      call(d.baseUrl, k(d).pro, `${V1}/jobs/${await firstJob(d)}/apply`, applyBody(100)),
    )),
  'me-tier-free': async (d) => (await call(d.baseUrl, k(d).starter, `${V1}/me`)).body.plan.name !== 'Starter',
  'me-page-cap-10': async (d) => (await call(d.baseUrl, k(d).free, `${V1}/me`)).body.quotas.pageCap !== 5,
  'starter-credits-50': async (d) =>
    (await call(d.baseUrl, k(d).starter, `${V1}/me`)).body.quotas.applyCreditsPerMonth !== 100,
  'salary-empty': async (d) => (await call(d.baseUrl, k(d).free, `${V1}/market/salary`)).body.cells.length === 0,
  'roles-dead-slug': async (d) => {
    const families = (await call(d.baseUrl, k(d).pro, `${V1}/market/roles`)).body.families as { slug: string }[];
    const served = await Promise.all(
      families.map(async (f) => (await call(d.baseUrl, k(d).pro, `${V1}/market/roles/${f.slug}`)).status),
    );
    return served.some((s) => s !== 200);
  },
  'role-unknown-200': async (d) => (await call(d.baseUrl, k(d).pro, `${V1}/market/roles/zz-nothing`)).status === 200,
  'market-locale-any': async (d) => (await call(d.baseUrl, k(d).pro, `${V1}/market/roles?locale=fr`)).status === 200,
  'skills-charges': (d) => spends(d, k(d).pro, () => call(d.baseUrl, k(d).pro, `${V1}/market/skills`)),
  'market-paid-only': async (d) => (await call(d.baseUrl, k(d).free, `${V1}/market/roles`)).status !== 200,
  'remaining-by-two': async (d) => {
    // two calls in one window (the windows follow the wall clock: a pair that straddles a minute's end is read again)
    const remaining = (r: Reply) => Number(r.headers.get('x-ratelimit-remaining'));
    const reset = (r: Reply) => r.headers.get('x-ratelimit-reset');
    for (let tries = 1; ; tries++) {
      const [a, b] = [await jobs(d, k(d).pro, 'limit=1'), await jobs(d, k(d).pro, 'limit=1')];
      if (reset(a) !== reset(b) && tries < 5) continue;
      return remaining(a) - remaining(b) !== 1;
    }
  },
  'rest-without-v1': async (d) => (await jobs(d, k(d).pro, 'limit=1')).status === 404,
  'no-openapi': async (d) => (await site(d, '/api/openapi.json')) !== 200,
  'openapi-enum-narrowed': async (d) => {
    const doc: any = await fetch(`${d.baseUrl}/api/openapi.json`).then((r) => r.json());
    const p = doc.paths['/api/v1/jobs'].get.parameters.find((x: any) => x.name === 'remote_type');
    return !p.schema.enum.includes('worldwide');
  },
  'mcp-wrong-path': async (d) => {
    try {
      await withKeyed(d, k(d).pro, async () => undefined);
      return false;
    } catch {
      return true;
    }
  },
  'mcp-own-wallet': async (d) => {
    const id = await firstJob(d);
    return !(await spends(d, k(d).pro, () =>
      withKeyed(d, k(d).pro, (m) => tool(m.client, 'apply_to_job', { id, ...applyBody(100) })),
    ));
  },
  'mcp-stale-titles': async (d) => {
    const id = await firstJob(d);
    const rest = (await call(d.baseUrl, k(d).pro, `${V1}/jobs/${id}`)).body.title;
    return withKeyed(d, k(d).pro, async (m) => (await tool(m.client, 'get_job', { id })).data.title !== rest);
  },
  'keyed-arg-query': (d) =>
    withKeyed(d, k(d).pro, async (m) => {
      const search = (await m.client.listTools()).tools.find((t) => t.name === 'search_jobs')!;
      return !('q' in (search.inputSchema.properties ?? {}));
    }),
  'mcp-search-no-apply-url': (d) =>
    withKeyed(d, k(d).pro, async (m) =>
      (await tool(m.client, 'search_jobs', { limit: 3 })).data.jobs.some((j: any) => !j.applyUrl),
    ),
  'draft-spends-credit': async (d) => {
    const id = await firstJob(d);
    return spends(d, k(d).starter, () =>
      withKeyed(d, k(d).starter, (m) => tool(m.client, 'draft_application', { id })),
    );
  },
  'draft-keeps-claims': async (d) => {
    const id = await firstJob(d);
    return withKeyed(d, k(d).pro, async (m) =>
      /Nobel/.test(
        String(
          (await tool(m.client, 'draft_application', { id, highlights: ['Won a Nobel Prize'] })).data.coverLetter ?? '',
        ),
      ),
    );
  },
  'mcp-apply-on-free': async (d) => {
    const id = await firstJob(d);
    return withKeyed(
      d,
      k(d).free,
      async (m) => !(await tool(m.client, 'apply_to_job', { id, ...applyBody(100) })).isError,
    );
  },
  'get-me-no-tier': (d) =>
    withKeyed(d, k(d).starter, async (m) => (await tool(m.client, 'get_me')).data.tier === undefined),
  'match-leaks-email': (d) =>
    withKeyed(d, k(d).pro, async (m) =>
      (await tool(m.client, 'match_candidates', { skills: ['TypeScript'] })).data.candidates.some(
        (c: any) => 'email' in c,
      ),
    ),
  'talent-12-cards': (d) =>
    withKeyed(
      d,
      k(d).pro,
      async (m) =>
        (
          await tool(m.client, 'talent_search', {
            query: 'backend engineer with TypeScript and PostgreSQL',
            skills: ['TypeScript'],
          })
        ).data.cards.length > 10,
    ),
  'talent-limit-60': (d) =>
    withKeyed(d, k(d).pro, async (m) => {
      for (let i = 0; i < 50; i++) await tool(m.client, 'talent_search', { skills: ['Go'] });
      return !(await tool(m.client, 'talent_search', { skills: ['Go'] })).isError;
    }),
  'post-job-no-apply-url': (d) =>
    withKeyed(
      d,
      k(d).pro,
      async (m) => !(await tool(m.client, 'post_job', { title: 'Backend Engineer', company: 'Acme' })).isError,
    ),
  'hire-unscored': (d) =>
    withKeyed(d, k(d).pro, async (m) => {
      const r = await tool(m.client, 'hire', {
        brief: 'Senior backend engineer with TypeScript, Node.js and PostgreSQL',
        company: 'Acme',
        contact_email: 'hr@acme.example.com',
      });
      return r.data.shortlist.some((c: any) => c.score === undefined);
    }),
  'hire-publish-ignored': (d) =>
    withKeyed(
      d,
      k(d).pro,
      async (m) =>
        (
          await tool(m.client, 'hire', {
            brief: 'Qzxv wpfkj',
            company: 'Acme',
            contact_email: 'hr@acme.example.com',
            publish_if_no_match: true,
          })
        ).data.listing === undefined,
    ),
  'mcp-sponsored-on-paid': (d) =>
    withKeyed(d, k(d).starter, async (m) =>
      (await tool(m.client, 'search_jobs', { limit: 50 })).data.jobs.some((j: any) => j.sponsored === true),
    ),
  'starter-reads-pro': async (d) => (await jobs(d, k(d).starter, 'limit=1')).body.tier !== 'Starter',
  'mcp-tools-call-no-key': async (d) => {
    const res = await fetch(`${d.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_jobs', arguments: { limit: 1 } },
      }),
    });
    return res.status === 200;
  },
  'mcp-search-charges': (d) =>
    spends(d, k(d).pro, () => withKeyed(d, k(d).pro, (m) => tool(m.client, 'search_jobs', { limit: 1 }))),
  'get-me-pro-limits': (d) =>
    withKeyed(d, k(d).starter, async (m) => (await tool(m.client, 'get_me')).data.limits.rateLimitPerMinute !== 120),
  'mcp-filter-ignored': (d) =>
    withKeyed(d, k(d).pro, async (m) =>
      (await tool(m.client, 'search_jobs', { remote_type: 'regional', limit: 50 })).data.jobs.some(
        (j: any) => j.remoteType !== 'regional',
      ),
    ),
  'mcp-job-type-spaced': (d) =>
    withKeyed(d, k(d).pro, async (m) =>
      (await tool(m.client, 'search_jobs', { limit: 50 })).data.jobs.some((j: any) => / /.test(j.jobType)),
    ),
  'mcp-search-inactive': (d) =>
    withKeyed(d, k(d).pro, async (m) => {
      const ids: string[] = [];
      for (let offset = 0; offset < 400; offset += 50)
        ids.push(...(await tool(m.client, 'search_jobs', { limit: 50, offset })).data.jobs.map((j: any) => j.id));
      return ids.includes(d.profile.inactiveJobId);
    }),
  'mcp-stale-pay': async (d) => {
    const id = await firstJob(d);
    const rest = (await call(d.baseUrl, k(d).pro, `${V1}/jobs/${id}`)).body.payMax;
    return withKeyed(d, k(d).pro, async (m) => (await tool(m.client, 'get_job', { id })).data.payMax !== rest);
  },
  'market-limit-free': async (d) =>
    (await call(d.baseUrl, k(d).pro, `${V1}/market/skills`)).headers.get('x-ratelimit-limit') !== '300',
  'anon-needs-key': async (d) => {
    try {
      await withAnon(d, async () => undefined);
      return false;
    } catch {
      return true;
    }
  },
  'anon-search-counts-skills': async (d) => {
    const top = async () => JSON.stringify((await call(d.baseUrl, k(d).pro, `${V1}/market/skills?limit=3`)).body);
    const before = await top();
    await withAnon(d, (m) => tool(m.client, 'search_jobs', { query: 'engineer' }));
    return (await top()) !== before;
  },
  'anon-limit-600': (d) =>
    withAnon(d, async (m) => {
      for (let i = 0; i < 500; i++) await tool(m.client, 'get_curated_list');
      try {
        return !(await tool(m.client, 'get_curated_list')).isError;
      } catch {
        return false; // refused at the HTTP level: the limit held
      }
    }),
  'curated-empty': (d) =>
    withAnon(d, async (m) => (await tool(m.client, 'get_curated_list')).data.platforms.length === 0),
  'no-well-known': async (d) => (await site(d, '/.well-known/mcp.json')) !== 200,
  'no-llms-txt': async (d) => (await site(d, '/llms.txt')) !== 200,
  'anon-get-405': async (d) => (await fetch(d.anonMcpUrl, { headers: { accept: 'application/json' } })).status !== 200,
};
