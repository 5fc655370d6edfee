// Discovery documents on the main app agree with what the MCP servers really expose: the server card
// (/.well-known/mcp.json) with tools/list of both servers, /llms.txt with the tool names and the
// llmstxt.org structure, /api/openapi.json with the jobs contract served at this sandbox.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { connectMcp, type Connected } from './support/mcp.js';

const sb = useSandbox({ corpusSize: 300 });
let keyed: Connected;
let anon: Connected;

beforeAll(async () => {
  keyed = await connectMcp(
    `${sb.get().baseUrl}/api/mcp`,
    (await createTenant(sb.get().baseUrl, { planTier: 'pro' })).apiKey,
  );
  anon = await connectMcp(sb.get().anonMcpUrl);
});
afterAll(async () => {
  await keyed?.close();
  await anon?.close();
});

const listed = async (c: Connected) =>
  (await c.client.listTools()).tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    annotations: t.annotations,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
  }));

describe('/.well-known/mcp.json', () => {
  it('describes the keyed server exactly as it initializes and lists its tools', async () => {
    const res = await fetch(`${sb.get().baseUrl}/.well-known/mcp.json`);
    expect(res.status).toBe(200);
    const card = await res.json();
    expect(card.serverInfo).toEqual(keyed.client.getServerVersion());
    expect(card.protocolVersion).toBe(keyed.transport.protocolVersion);
    expect(card.instructions).toBe(keyed.client.getInstructions());
    expect(card.transport).toEqual({ type: 'streamable-http', endpoint: `${sb.get().baseUrl}/api/mcp` });
    expect(card.authentication).toMatchObject({ required: true, schemes: ['bearer'] });
    expect(card.tools).toEqual(await listed(keyed));
  });

  it('points at the anonymous server, whose endpoint and tools are real', async () => {
    const card = await (await fetch(`${sb.get().baseUrl}/.well-known/mcp.json`)).json();
    expect(card.anonymous.transport).toEqual({ type: 'streamable-http', endpoint: sb.get().anonMcpUrl });
    expect(card.anonymous.authentication.required).toBe(false);
    expect(card.anonymous.tools).toEqual((await listed(anon)).map((t) => t.name));
    const anonCard = await (await fetch(card.anonymous.discovery)).json();
    expect(anonCard.serverInfo).toEqual(anon.client.getServerVersion());
    expect(anonCard.tools).toEqual(await listed(anon));
  });

  it('follows the planted bug like the server does (the documents never drift from tools/list)', async () => {
    const admin = client(sb.get().baseUrl, ADMIN_TOKEN);
    await admin('PUT', '/sandbox/v1/bugs/anon_exposes_apply');
    try {
      const card = await (await fetch(`${sb.get().baseUrl}/.well-known/mcp.json`)).json();
      expect(card.anonymous.tools).toEqual((await listed(anon)).map((t) => t.name));
      expect(card.anonymous.tools).toContain('apply_to_job');
    } finally {
      await admin('DELETE', '/sandbox/v1/bugs/anon_exposes_apply');
    }
  });
});

describe('/llms.txt', () => {
  it('follows llmstxt.org: an H1, a blockquote, then H2 sections of link lists', async () => {
    const res = await fetch(`${sb.get().baseUrl}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const lines = (await res.text()).split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.filter((l) => /^# /.test(l))).toHaveLength(1);
    expect(lines.find((l) => l.trim() !== '' && !l.startsWith('# '))).toMatch(/^> \S/);
    const firstH2 = lines.findIndex((l) => l.startsWith('## '));
    expect(firstH2).toBeGreaterThan(0);
    for (const l of lines.slice(firstH2)) {
      if (l.trim() === '' || l.startsWith('## ')) continue;
      expect(l, l).toMatch(/^- \[[^\]]+\]\(https?:\/\/[^)\s]+\)(: .+)?$/);
    }
  });

  it('lists exactly the tools each server lists, each linking to its full entry as tools/list gives it', async () => {
    const text = await (await fetch(`${sb.get().baseUrl}/llms.txt`)).text();
    const section = (title: string) => {
      const start = text.indexOf(`## ${title}\n`);
      const end = text.indexOf('\n## ', start + 1);
      return [
        ...text.slice(start, end === -1 ? undefined : end).matchAll(/^- \[(\w+): ([^\]]+)\]\(([^)]+)\): (.+)$/gm),
      ].map((m) => ({ name: m[1], title: m[2], url: m[3], text: m[4] }));
    };
    for (const [title, conn] of [
      ['Keyed MCP tools', keyed],
      ['Anonymous MCP tools', anon],
    ] as const) {
      const lines = section(title);
      const tools = await listed(conn);
      expect(lines.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort());
      for (const line of lines) {
        const tool = tools.find((t) => t.name === line.name)!;
        expect(line.title).toBe(tool.title);
        // the whole description, not a stub such as "Employer tool (scope 'employer')."
        expect(line.text.length, line.name).toBeGreaterThan(80);
        if (!tool.annotations!.readOnlyHint) expect(line.text, line.name).toMatch(/Acts\b.*confirm with the user/);
        const entry = await fetch(line.url);
        expect(entry.status, line.url).toBe(200);
        expect(await entry.json()).toEqual(tool);
      }
    }
  });

  it('has no broken link: every link answers something other than 404', async () => {
    const text = await (await fetch(`${sb.get().baseUrl}/llms.txt`)).text();
    const links = [...text.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(15);
    for (const url of links) {
      const res = await fetch(url);
      expect(res.status, url).not.toBe(404);
      expect(res.status, url).toBeLessThan(500);
    }
  });
});

describe('/api/openapi.json', () => {
  it('serves the jobs contract with its server set to this sandbox', async () => {
    const res = await fetch(`${sb.get().baseUrl}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toMatch(/^3\.1/);
    const { servers, ...rest } = doc;
    const { servers: _s, ...contract } = sb.get().core.contracts.documents.jobs;
    expect(rest).toEqual(JSON.parse(JSON.stringify(contract)));
    expect(servers[0].url.startsWith(sb.get().baseUrl)).toBe(true);
    // the live origin of the request, not a configured one: reached as localhost, it says localhost
    const viaLocalhost = await (
      await fetch(sb.get().baseUrl.replace('127.0.0.1', 'localhost') + '/api/openapi.json')
    ).json();
    expect(viaLocalhost.servers[0].url).toBe(sb.get().baseUrl.replace('127.0.0.1', 'localhost'));
    const docs = await (
      await fetch(sb.get().baseUrl.replace('127.0.0.1', 'localhost') + '/docs/screening.json')
    ).json();
    expect(docs.servers[0].url).toBe(sb.get().baseUrl.replace('127.0.0.1', 'localhost'));
    const ids = Object.values(doc.paths).flatMap((item: any) => Object.values(item).map((op: any) => op.operationId));
    expect(ids).toEqual(
      expect.arrayContaining([
        'searchJobs',
        'getJob',
        'applyToJob',
        'getMe',
        'getSalaryBenchmarks',
        'listRoles',
        'getRoleReport',
        'listSkills',
      ]),
    );
  });
});
