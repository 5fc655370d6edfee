// Both MCP servers driven by the MCP inspector's CLI (@modelcontextprotocol/inspector-cli 1.0.3), a client
// this project did not write: tools/list with titles and annotations, a tool call, an unknown tool's
// error read once, and the reason of a 401 reaching the user.

import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenant, useSandbox } from './support/sandbox.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
// the CLI finds its own package.json relative to the working directory, so it runs from its build folder
const BUILD = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build');

async function inspector(url: string, args: string[], key?: string) {
  const argv = [
    join(BUILD, 'index.js'),
    url,
    '--transport',
    'http',
    ...args,
    ...(key ? ['--header', `Authorization: Bearer ${key}`] : []),
  ];
  try {
    const { stdout, stderr } = await run(process.execPath, argv, { cwd: BUILD, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (e: any) {
    return { code: e.code as number, stdout: String(e.stdout ?? ''), stderr: String(e.stderr ?? '') };
  }
}

const sb = useSandbox({ corpusSize: 300 });
let key: string;
beforeAll(async () => {
  key = (
    await createTenant(sb.get().baseUrl, { planTier: 'pro', scopes: ['jobs', 'market', 'mcp', 'apply', 'employer'] })
  ).apiKey;
});

describe.each([
  ['keyed', 10, (): string => `${sb.get().baseUrl}/api/mcp`, (): string | undefined => key],
  ['anonymous', 3, (): string => sb.get().anonMcpUrl, (): string | undefined => undefined],
] as const)('the %s server under the MCP inspector CLI', (_name, count, url, auth) => {
  it('lists every tool with a title and the four annotations', async () => {
    const r = await inspector(url(), ['--method', 'tools/list'], auth());
    expect(r.code, r.stderr).toBe(0);
    const { tools } = JSON.parse(r.stdout);
    expect(tools).toHaveLength(count);
    for (const t of tools) {
      expect(t.title, t.name).toEqual(expect.any(String));
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'])
        expect(typeof t.annotations?.[hint], `${t.name} ${hint}`).toBe('boolean');
    }
    const acting = tools
      .filter((t: any) => !t.annotations.readOnlyHint)
      .map((t: any) => t.name)
      .sort();
    expect(acting).toEqual(count === 10 ? ['apply_to_job', 'draft_application', 'hire', 'post_job'] : []);
  });

  it('calls search_jobs and reads an unknown tool as one -32602', async () => {
    const arg = count === 10 ? 'q=engineer' : 'query=engineer';
    const ok = await inspector(
      url(),
      ['--method', 'tools/call', '--tool-name', 'search_jobs', '--tool-arg', arg, 'limit=2'],
      auth(),
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).structuredContent.jobs.length).toBeGreaterThan(0);
    const bad = await inspector(url(), ['--method', 'tools/call', '--tool-name', 'no_such_tool'], auth());
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('MCP error -32602: Unknown tool: no_such_tool');
    expect(bad.stderr.match(/MCP error -32602/g)).toHaveLength(1);
  });
});

it('shows the reason of a 401 to the inspector user', async () => {
  const r = await inspector(`${sb.get().baseUrl}/api/mcp`, ['--method', 'tools/list']);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('missing bearer API key');
  expect(r.stderr).toContain('-32001');
});
