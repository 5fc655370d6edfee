import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook } from './sender.js';

describe('postWebhook', () => {
  let url = '';
  const server = createServer((req, res) => {
    if (req.url === '/slow') return; // never answers
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/ok' }).end();
      return;
    }
    res.writeHead(req.url === '/ok' ? 204 : 500).end();
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('reports a 2xx as success and anything else, redirects included, as failure', async () => {
    expect(await postWebhook(`${url}/ok`, {}, '{}', 2000)).toMatchObject({ statusCode: 204, error: null });
    expect(await postWebhook(`${url}/fail`, {}, '{}', 2000)).toMatchObject({ statusCode: 500, error: expect.stringContaining('500') });
    expect(await postWebhook(`${url}/redirect`, {}, '{}', 2000)).toMatchObject({ statusCode: 302, error: expect.stringContaining('302') });
  });

  it('gives up after the timeout and reports network errors without a status', async () => {
    const slow = await postWebhook(`${url}/slow`, {}, '{}', 150);
    expect(slow).toMatchObject({ statusCode: null, error: 'no answer within 150 ms' });
    expect(slow.durationMs).toBeGreaterThanOrEqual(100);
    const refused = await postWebhook('http://127.0.0.1:9/closed', {}, '{}', 2000);
    expect(refused.statusCode).toBeNull();
    expect(refused.error).toMatch(/network error/);
  });
});
