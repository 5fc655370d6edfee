// The public MCP conformance suite (@modelcontextprotocol/conformance 0.1.13) against both servers.
// Applicable to a production-shaped server: server-initialize, ping, tools-list (the tools-call-*,
// resources-*, prompts-* scenarios expect fixture tools and features these servers do not offer).
// dns-rebinding-protection applies to the anonymous server (local, unauthenticated). The runner has
// no bearer option, so a preload adds the key to its fetch calls for the keyed server.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createTenant, useSandbox } from './support/sandbox.js';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./support/bearer-preload.mjs', import.meta.url));

const sb = useSandbox({ corpusSize: 300 });
const workDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function scenario(url: string, name: string, bearer?: string) {
  const env = {
    ...process.env,
    NODE_OPTIONS: `--import ${PRELOAD}`,
    MCP_BEARER: bearer ?? '',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
  };
  try {
    const { stdout } = await run(process.execPath, [BIN, 'server', '--url', url, '--scenario', name], {
      cwd: workDir,
      env,
      timeout: 45_000,
    });
    return { ok: true, out: stdout };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return { ok: false, out: `${err.stdout ?? ''}\n${err.stderr ?? ''}` };
  }
}

// eslint-disable-next-line no-control-regex -- strips the terminal's colour codes (ESC [ … m)
const passed = (out: string) => /Passed: (\d+)\/\1, 0 failed/.test(out.replace(/\x1b\[[0-9;]*m/g, ''));

describe('MCP conformance suite', () => {
  it.each(['server-initialize', 'ping', 'tools-list'])('keyed server passes %s', async (name) => {
    const key = (await createTenant(sb.get().baseUrl, { planTier: 'pro' })).apiKey;
    const r = await scenario(`${sb.get().baseUrl}/api/mcp`, name, key);
    expect(r.ok && passed(r.out), r.out).toBe(true);
  });

  it.each(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'])(
    'anonymous server passes %s',
    async (name) => {
      const r = await scenario(sb.get().anonMcpUrl, name);
      expect(r.ok && passed(r.out), r.out).toBe(true);
    },
  );

  it('is not fooled: the keyed server without a key fails the handshake', async () => {
    const r = await scenario(`${sb.get().baseUrl}/api/mcp`, 'server-initialize');
    expect(r.ok && passed(r.out)).toBe(false);
  });
});
