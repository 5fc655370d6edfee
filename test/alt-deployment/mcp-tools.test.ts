// The keyed MCP tools share the REST wallet and window, ground drafts in the saved resume and keep
// candidates anonymous; the anonymous server stops at 500 tool calls a day per IP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAltDeployment, type AltDeployment } from './index.js';
import { call, connectMcp, tool } from './test-support.js';

let d: AltDeployment;
beforeAll(async () => {
  d = await startAltDeployment();
});
afterAll(() => d?.stop());

const PERSONAL = /"(name|fullName|email|phone|contact|salary|cv)"/i;

describe('keyed MCP tools', () => {
  it('apply_to_job spends the same wallet as REST, and tool calls spend the same rate window', async () => {
    const m = await connectMcp(`${d.baseUrl}/api/mcp`, d.profile.keys.starter);
    const me = async () => (await call(d.baseUrl, d.profile.keys.starter, '/api/v1/me')).body;
    const before = await me();
    const job = (await tool(m.client, 'search_jobs', { limit: 1 })).data.jobs[0];
    const applied = await tool(m.client, 'apply_to_job', {
      id: job.id,
      candidate_name: 'Dewi',
      candidate_email: 'd@example.net',
      message: 'm'.repeat(120),
    });
    expect(applied.isError).toBe(false);
    expect(applied.data.applicationId ?? applied.data.applyUrl).toBeTruthy();
    const after = await me();
    expect(before.balance.apply - after.balance.apply).toBe(1);
    const rest = await call(d.baseUrl, d.profile.keys.starter, '/api/v1/jobs?limit=1');
    // me, two tool calls, me again, this search: five calls in the key's window.
    expect(Number(rest.headers.get('x-ratelimit-remaining'))).toBe(120 - 5);
    await m.close();
  });

  it('draft_application keeps supported claims, removes the rest and fails `ungrounded` when none is left', async () => {
    const m = await connectMcp(`${d.baseUrl}/api/mcp`, d.profile.keys.pro);
    const id = (await tool(m.client, 'search_jobs', { limit: 1 })).data.jobs[0].id;
    const good = await tool(m.client, 'draft_application', {
      id,
      highlights: ['4 years of Figma', '20 years of Rust'],
    });
    expect(good.isError).toBe(false);
    expect(good.data.removedClaims).toEqual(['20 years of Rust']);
    expect(good.data.apply_url).toMatch(/^https:/);
    const bad = await tool(m.client, 'draft_application', { id, highlights: ['30 years of Figma'] });
    expect(bad.isError).toBe(true);
    expect(bad.data.error.code).toBe('ungrounded');
    await m.close();
  });

  it('employer tools answer anonymized results and enforce their required arguments', async () => {
    const m = await connectMcp(`${d.baseUrl}/api/mcp`, d.profile.keys.pro);
    const ts = await tool(m.client, 'talent_search', { query: 'data engineer', skills: ['Python'] });
    expect(ts.data.cards.length).toBeLessThanOrEqual(10);
    expect(
      ts.data.cards.every((c: any) => ['exact', 'close', 'broader'].includes(c.tier) && c.fit >= 0 && c.fit <= 100),
    ).toBe(true);
    expect(JSON.stringify(ts.data)).not.toMatch(PERSONAL);
    expect((await tool(m.client, 'match_candidates', {})).data.error.code).toBe('invalid_request');
    const post = await tool(m.client, 'post_job', { title: 'Data Engineer', company: 'Acme', host_apply_form: true });
    expect(post.data).toMatchObject({
      tier: 'standard',
      price: { currency: 'IDR' },
      checkoutUrl: expect.stringMatching(/^https:/),
    });
    expect((await tool(m.client, 'post_job', { title: 'x', company: 'y' })).data.error.message).toMatch(/apply_url/);
    const hire = await tool(m.client, 'hire', {
      brief: 'Senior data engineer, Python and SQL',
      company: 'Acme',
      contact_email: 'hr@acme.example',
    });
    expect(hire.data.outcome).toBe('shortlist');
    expect(hire.data.shortlist.length).toBeGreaterThanOrEqual(3);
    const none = await tool(m.client, 'hire', {
      brief: 'Underwater basket weaving',
      company: 'Acme',
      contact_email: 'hr@acme.example',
      publish_if_no_match: true,
    });
    expect(none.data).toMatchObject({ outcome: 'no_strong_match', listing: { status: 'live' } });
    await m.close();
  });
});

describe('per-key quotas', () => {
  it('talent_search allows 50 calls a day per key and draft_application 3 drafts a month on free', async () => {
    // A pro tenant whose day is still untouched (the employer test above spent one of the pro key's calls).
    const pro = await connectMcp(`${d.baseUrl}/api/mcp`, d.profile.keys.noJobsScope);
    const outcomes = [];
    for (let i = 0; i < 51; i++) outcomes.push(await tool(pro.client, 'talent_search', { roles: ['devops'] }));
    expect(outcomes.slice(0, 50).every((o) => !o.isError)).toBe(true);
    expect(outcomes[50].data.error.code).toBe('rate_limited');
    await pro.close();
    const free = await connectMcp(`${d.baseUrl}/api/mcp`, d.profile.keys.free);
    const id = (await tool(free.client, 'search_jobs', { limit: 1 })).data.jobs[0].id;
    const drafts = [];
    for (let i = 0; i < 4; i++) drafts.push(await tool(free.client, 'draft_application', { id }));
    expect(drafts.map((x) => x.isError)).toEqual([false, false, false, true]);
    expect(drafts[2].data.quota).toEqual({ used: 3, perMonth: 3 });
    await free.close();
  });
});

describe('anonymous MCP server', () => {
  it('refuses tool calls past 500 a day from one IP', async () => {
    const post = (id: number) =>
      fetch(d.anonMcpUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'get_curated_list', arguments: {} },
        }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 500; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, j) => post(i + j).then(async (r) => (await r.text(), r.status))),
      );
      statuses.push(...batch);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(500);
    expect((await post(500)).status).toBe(429);
  });
});
