// Every planted violation switch changes the behaviour it names: its probe is false on a clean deployment and
// true with the switch on; and each names a `must` requirement of contracts/requirements.yaml.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAltDeployment, VIOLATIONS, type AltDeployment } from './index.js';
import { screeningProbes } from './probes-screening.js';
import { call, connectMcp, startReceiver, submitBody, type Receiver } from './test-support.js';
import { JOBS_PROBES } from './violations-jobs.probes.js';

let rx: Receiver;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(() => rx?.close());

const SCR = '/api/screening/v1';
type Probe = (d: AltDeployment) => Promise<boolean>;
const k = (d: AltDeployment) => d.profile.keys;
const applyBody = (len = 80) => ({
  candidate_name: 'Dewi',
  candidate_email: 'dewi@example.net',
  message: 'm'.repeat(len),
});

async function submit(d: AltDeployment, key = k(d).pro, body = submitBody()) {
  return call(d.baseUrl, key, `${SCR}/screen`, body);
}
async function remaining(d: AltDeployment, key = k(d).pro): Promise<number> {
  return (await call(d.baseUrl, key, `${SCR}/usage`)).body.creditsRemaining;
}
/** Submits one request and waits for its review_decided delivery; returns its hooks and its ledger rows. */
async function lifecycle(d: AltDeployment) {
  const id = (await submit(d)).body.requestId;
  await rx.until((hs) => hs.some((h) => h.body.requestId === id && h.body.event === 'screening.review_decided'));
  await new Promise((r) => setTimeout(r, 50));
  const rows = (await call(d.baseUrl, k(d).pro, `${SCR}/audit?limit=500`)).body.events.filter(
    (r: any) => r.requestId === id,
  );
  return { hooks: rx.hooks.filter((h) => h.body.requestId === id), rows };
}
const signatureBad = async (d: AltDeployment) => {
  const { hooks } = await lifecycle(d);
  const good = (raw: string) =>
    'sha256=' + createHmac('sha256', d.profile.webhookSecrets.pro!).update(raw).digest('hex').toUpperCase();
  return hooks.some((h) => h.headers['x-screening-signature'] !== good(h.raw));
};
const jobs = (d: AltDeployment, key: string, query: string) => call(d.baseUrl, key, `/api/v1/jobs?${query}`);
const firstJob = async (d: AltDeployment) => (await jobs(d, k(d).pro, 'limit=1')).body.jobs[0].id as string;

const PROBES: Record<string, Probe> = {
  'replay-charges': async (d) => {
    const before = await remaining(d);
    const b = submitBody();
    await submit(d, k(d).pro, b);
    await submit(d, k(d).pro, b);
    return before - (await remaining(d)) === 2;
  },
  'replay-201': async (d) => {
    const b = submitBody();
    await submit(d, k(d).pro, b);
    return (await submit(d, k(d).pro, b)).status === 201;
  },
  'replay-duplicates': async (d) => {
    const b = submitBody();
    return (await submit(d, k(d).pro, b)).body.requestId !== (await submit(d, k(d).pro, b)).body.requestId;
  },
  'no-charge': async (d) => {
    const before = await remaining(d);
    await submit(d);
    return (await remaining(d)) === before;
  },
  'upsell-missing': async (d) => (await submit(d, k(d).screeningSpent)).body.error.upsell === undefined,
  'jobspec-open': async (d) =>
    (await submit(d, k(d).pro, submitBody({ jobSpec: { title: 't', mustHaves: [], team: 'x' } }))).status === 201,
  'bad-json-500': async (d) => (await call(d.baseUrl, k(d).pro, `${SCR}/screen`, '{not json')).status === 500,
  'near-limit-never': async (d) =>
    (await call(d.baseUrl, k(d).screeningSpent, `${SCR}/usage`)).body.nearLimit === false,
  'usage-percent-scale': async (d) =>
    (await call(d.baseUrl, k(d).screeningSpent, `${SCR}/usage`)).body.usagePercent > 1,
  'usage-other-tenant': async (d) => (await call(d.baseUrl, k(d).pro, `${SCR}/usage`)).body.planTier !== 'pro',
  'audit-other-tenant': async (d) => {
    const id = (await submit(d, k(d).free)).body.requestId;
    return (await call(d.baseUrl, k(d).pro, `${SCR}/audit`)).body.events.some((r: any) => r.requestId === id);
  },
  'audit-cursor-repeat': async (d) => {
    for (let i = 0; i < 4; i++) await submit(d);
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await call(d.baseUrl, k(d).pro, `${SCR}/audit?limit=2${cursor ? `&cursor=${cursor}` : ''}`))
        .body;
      ids.push(...page.events.map((r: any) => r.id));
      cursor = page.nextCursor;
    } while (cursor && ids.length < 100);
    return new Set(ids).size !== ids.length;
  },
  'since-reapplied': async (d) => {
    await submit(d);
    await submit(d);
    const first = (await call(d.baseUrl, k(d).pro, `${SCR}/audit?limit=1`)).body;
    const next = (await call(d.baseUrl, k(d).pro, `${SCR}/audit?cursor=${first.nextCursor}&since=2099-01-01T00:00:00Z`))
      .body;
    return next.events.length === 0;
  },
  'audit-limit-600': async (d) => (await call(d.baseUrl, k(d).pro, `${SCR}/audit?limit=600`)).status === 200,
  'ledger-skip-scored': async (d) => !(await lifecycle(d)).rows.some((r: any) => r.toState === 'scored'),
  'actor-model': async (d) => (await lifecycle(d)).rows.some((r: any) => !/^(system|reviewer:.+)$/.test(r.actor)),
  'review-skipped': async (d) => !(await lifecycle(d)).rows.some((r: any) => r.toState === 'pending_review'),
  'hook-wrong-secret': signatureBad,
  'hook-compact-signature': signatureBad,
  'score-no-rationale': async (d) => (await lifecycle(d)).hooks[0].body.result.rationale === undefined,
  'schema-version-2': async (d) => (await lifecycle(d)).hooks[0].body.result.schemaVersion !== 1,
  'hook-no-tenant': async (d) => (await lifecycle(d)).hooks[0].body.tenantId === undefined,
  'no-remaining-header': async (d) => (await jobs(d, k(d).free, '')).headers.get('x-ratelimit-remaining') === null,
  'no-retry-after': async (d) => {
    for (let i = 0; i < 130; i++) {
      const r = await jobs(d, k(d).free, 'limit=1');
      if (r.status === 429) return r.headers.get('retry-after') === null;
    }
    throw new Error('no 429 reached');
  },
  'free-limit-100': async (d) => (await jobs(d, k(d).free, '')).headers.get('x-ratelimit-limit') !== '60',
  'sponsored-on-paid': async (d) => (await jobs(d, k(d).pro, 'limit=50')).body.jobs.some((j: any) => j.sponsored),
  'free-no-page-cap': async (d) => (await jobs(d, k(d).free, 'limit=10&offset=50')).status === 200,
  'search-limit-51': async (d) => (await jobs(d, k(d).pro, 'limit=51')).status === 200,
  'remote-filter-ignored': async (d) =>
    (await jobs(d, k(d).pro, 'remote_type=regional&limit=50')).body.jobs.some((j: any) => j.remoteType !== 'regional'),
  'has-more-always': async (d) => (await jobs(d, k(d).pro, 'q=zzzzqqq')).body.hasMore === true,
  'inactive-served': async (d) =>
    (await call(d.baseUrl, k(d).pro, `/api/v1/jobs/${d.profile.inactiveJobId}`)).status === 200,
  'apply-on-free': async (d) =>
    (await call(d.baseUrl, k(d).free, `/api/v1/jobs/${await firstJob(d)}/apply`, applyBody())).status === 202,
  'apply-charges-two': async (d) => {
    const bal = async () => (await call(d.baseUrl, k(d).pro, '/api/v1/me')).body.balance.apply as number;
    const before = await bal();
    await call(d.baseUrl, k(d).pro, `/api/v1/jobs/${await firstJob(d)}/apply`, applyBody());
    return before - (await bal()) === 2;
  },
  'message-79': async (d) =>
    (await call(d.baseUrl, k(d).pro, `/api/v1/jobs/${await firstJob(d)}/apply`, applyBody(79))).status === 202,
  'error-not-enveloped': async (d) =>
    (await call(d.baseUrl, k(d).pro, '/api/v1/jobs/no-such-job')).body.error === undefined,
  'unknown-key-accepted': async (d) => (await jobs(d, 'altk_live_000000000000000000000000', '')).status === 200,
  'skills-ascending': async (d) => {
    const s = (await call(d.baseUrl, k(d).free, '/api/v1/market/skills?limit=5')).body.skills;
    return s[0].mentions < s[4].mentions;
  },
  'mcp-old-protocol': async (d) => {
    const m = await connectMcp(`${d.baseUrl}/api/mcp`, k(d).pro);
    await m.close();
    return m.transport.protocolVersion !== '2025-06-18';
  },
  'mcp-no-instructions': async (d) => {
    const m = await connectMcp(`${d.baseUrl}/api/mcp`, k(d).pro);
    await m.close();
    return m.client.getInstructions() === undefined;
  },
  'mcp-no-key': async (d) => {
    const res = await fetch(`${d.baseUrl}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
    });
    return res.status === 200;
  },
  'keyed-missing-skill-demand': async (d) => {
    const m = await connectMcp(`${d.baseUrl}/api/mcp`, k(d).pro);
    const tools = (await m.client.listTools()).tools;
    await m.close();
    return tools.length !== 10;
  },
  'anon-lists-apply': async (d) => {
    const m = await connectMcp(d.anonMcpUrl);
    const names = (await m.client.listTools()).tools.map((t) => t.name);
    await m.close();
    return names.includes('apply_to_job');
  },
  'anon-arg-q': async (d) => {
    const m = await connectMcp(d.anonMcpUrl);
    const search = (await m.client.listTools()).tools.find((t) => t.name === 'search_jobs')!;
    await m.close();
    return 'q' in (search.inputSchema.properties ?? {});
  },
  // the jobs, market and MCP document's further violations
  ...JOBS_PROBES,
  // the screening document's second round (probes-screening.ts)
  ...screeningProbes(() => rx),
};

async function probeWith(violations: string[], probe: Probe): Promise<boolean> {
  const d = await startAltDeployment({ violations, webhookUrl: rx.url, scoringDelayMs: 10, reviewDelayMs: 40 });
  try {
    return await probe(d);
  } finally {
    await d.stop();
  }
}

describe('planted violations', () => {
  it('has at least 20, each with a probe and a `must` requirement id', () => {
    const reqs = parse(readFileSync(new URL('../../contracts/requirements.yaml', import.meta.url), 'utf8'))
      .requirements as { id: string; level: string }[];
    const must = new Set(reqs.filter((r) => r.level === 'must').map((r) => r.id));
    expect(VIOLATIONS.length).toBeGreaterThanOrEqual(20);
    expect(VIOLATIONS.filter((v) => !must.has(v.requirement)).map((v) => v.name)).toEqual([]);
    expect(Object.keys(PROBES).sort()).toEqual(VIOLATIONS.map((v) => v.name).sort());
  });

  describe.concurrent.each(VIOLATIONS.map((v) => [v.name, v.requirement, v.what] as const))(
    '%s (%s)',
    (name, _req, what) => {
      it(`clean: not observed; switched on: ${what}`, async () => {
        expect(await probeWith([], PROBES[name])).toBe(false);
        expect(await probeWith([name], PROBES[name])).toBe(true);
      });
    },
  );
});
