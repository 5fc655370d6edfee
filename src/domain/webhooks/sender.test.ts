import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postWebhook, RESPONSE_CAP } from './sender.js';

const HUGE = 256 * 1024 * 1024;

describe('postWebhook', () => {
  let url = '';
  // bytes the /huge receiver managed to hand to its socket before the sender hung up
  let hugeWritten = 0;
  const server = createServer((req, res) => {
    if (req.url === '/slow') return; // never answers
    if (req.url === '/huge') {
      // answers 200 with up to 256 MiB, written as fast as the sender reads it
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (hugeWritten < HUGE && !res.destroyed) {
          hugeWritten += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
      return;
    }
    if (req.url === '/echo') {
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
      return;
    }
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
    expect(await postWebhook(`${url}/fail`, {}, '{}', 2000)).toMatchObject({
      statusCode: 500,
      error: expect.stringContaining('500'),
    });
    expect(await postWebhook(`${url}/redirect`, {}, '{}', 2000)).toMatchObject({
      statusCode: 302,
      error: expect.stringContaining('302'),
    });
  });

  it('reads only the first few KiB of a huge answer, then closes the connection', async () => {
    const out = await postWebhook(`${url}/huge`, {}, '{}', 10_000);
    expect(out).toMatchObject({ statusCode: 200, error: null, responseTruncated: true });
    expect(Buffer.byteLength(out.responseBody)).toBe(RESPONSE_CAP);
    await new Promise((r) => setTimeout(r, 200));
    // what sits in socket buffers at most, nowhere near the 256 MiB on offer
    expect(hugeWritten).toBeLessThan(16 * 1024 * 1024);
  });

  it('records a short answer whole', async () => {
    const out = await postWebhook(`${url}/echo`, {}, '{}', 2000);
    expect(out).toMatchObject({ statusCode: 400, responseBody: '{"error":"bad signature"}', responseTruncated: false });
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
