// A shared sandbox (PostgreSQL, D-112) serves no webhook listeners (D-119): the stream answers 501 with
// the reason, the listen command exits with it, and the tenant's console page still renders.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../src/main.js';
import { browser } from './support/console.js';
import { postgresUnavailable, startTestDatabase, type TestDatabase } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';

const why = postgresUnavailable();
if (why) console.warn(why);
const repo = path.resolve(import.meta.dirname, '..');

describe.skipIf(why !== null)('webhook listeners on a shared sandbox', () => {
  let db: TestDatabase;
  let sb: RunningSandbox;

  beforeAll(async () => {
    db = await startTestDatabase();
    sb = await startSandbox({
      host: '127.0.0.1',
      port: 0,
      anonMcpPort: 0,
      adminToken: ADMIN_TOKEN,
      store: db.url,
      seedDemo: false,
      corpusSize: 50,
    });
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
    await db?.stop();
  });

  it('answers 501 with the reason, and the command exits with it', async () => {
    const created = await client(sb.listenUrl, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { planTier: 'pro' });
    expect(created.status, created.text).toBe(201);
    const { apiKey, tenantId } = created.json;
    const res = await client(sb.listenUrl, apiKey)('GET', '/sandbox/v1/webhooks/listen');
    expect(res.status).toBe(501);
    expect(res.json.error.message).toMatch(/shared sandbox.*webhookUrl/);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/listen/cli.ts',
        '--target',
        sb.listenUrl,
        '--key',
        apiKey,
        '--forward-to',
        'http://127.0.0.1:9/hooks',
      ],
      { cwd: repo },
    );
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(err).toMatch(/answered 501: .*shared sandbox/);
    const listeners = await client(sb.listenUrl, apiKey)('GET', '/sandbox/v1/webhooks/listen/listeners');
    expect(listeners.json).toEqual({ listeners: [] });
    const page = browser(sb.listenUrl);
    await page.login();
    expect((await page.request('GET', `/console/tenants/${tenantId}`)).text).toMatch(/No listener connected/);
  });
});
