// The sandbox reads three things of its web framework that the framework does not document (D-131). Each
// is named here, with the place that relies on it, and this test fails when an upgrade changes any of them;
// hono and @hono/node-server stay pinned to exact versions in package.json while these reads exist.
// 1. @hono/node-server keeps a string response's [status, body, headers] under a private Symbol('cache')
//    (src/web/callLog.ts, stringBodyOf: the request log reads answers without cloning them).
// 2. hono's SmartRouter exposes the router it settled on as `activeRouter` (src/app.ts, apiRouterName).
// 3. How hono's Context and @hono/node-server's writer name and order headers on the wire
//    (src/http/fastPath.ts, HeaderSet and finishWith: the fast path writes the same bytes).

import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApartRouter } from '../src/app.js';
import { stringBodyOf } from '../src/web/callLog.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
};

describe('the framework versions are pinned', () => {
  it.each(['hono', '@hono/node-server'])('%s: an exact version in package.json, the one installed', (name) => {
    const wanted = pkg.dependencies[name];
    expect(wanted, `${name} must be pinned to an exact version while the sandbox reads its internals`).toMatch(
      /^\d+\.\d+\.\d+$/,
    );
    const installed = (
      JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as {
        version: string;
      }
    ).version;
    expect(installed).toBe(wanted);
  });
});

/** The raw header lines (name as sent, value) of one answer. */
function rawHeaders(port: number, target: string): Promise<Array<[string, string]>> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => {
      const head = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n')[0];
      resolve(
        head
          .split('\r\n')
          .slice(1)
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)] as [string, string])
          .filter(([name]) => name !== 'Date' && name !== 'Connection'),
      );
    });
    socket.on('error', reject);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}

describe('what the sandbox reads of the framework', () => {
  let server: ServerType;
  let port: number;
  let kept: unknown;
  beforeAll(async () => {
    const app = new Hono();
    app.get('/lone', (c) => c.json({ a: 1 }));
    app.get('/set', (c) => {
      c.header('X-RateLimit-Limit', '60');
      c.header('x-b', '2');
      c.header('Access-Control-Allow-Origin', '*');
      return c.json({ a: 1 });
    });
    app.get('/read', async (c) => {
      const res = c.json({ a: 1 });
      // what self-check (src/web/selfcheck.ts) does to an answer: reads its headers and a clone's text
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.clone().text()).toBe('{"a":1}');
      return res;
    });
    app.get('/kept', (c) => {
      const res = c.json({ a: 1 }, 201);
      kept = stringBodyOf(res);
      return res;
    });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("1. @hono/node-server's Symbol('cache') holds a string answer's body", async () => {
    await rawHeaders(port, '/kept');
    expect(kept).toBe('{"a":1}');
  });

  it("2. SmartRouter's activeRouter names the router the API side settled on", () => {
    const router = new AdminApartRouter<string>();
    expect(router.apiRouterName).toBe('not built yet');
    router.add('GET', '/api/v1/jobs/:id', 'job');
    router.add('GET', '/console', 'console');
    expect(router.match('GET', '/api/v1/jobs/x')[0].length).toBe(1);
    expect(router.apiRouterName).toBe('RegExpRouter');
  });

  it('3. header names, case and order on the wire, as the fast path writes them', async () => {
    // c.json alone: its own spelling of the content type, Content-Length added after
    expect(await rawHeaders(port, '/lone')).toEqual([
      ['Content-Type', 'application/json'],
      ['Content-Length', '7'],
    ]);
    // headers set first: a Headers object, written sorted by name in lower case, Content-Length last
    expect(await rawHeaders(port, '/set')).toEqual([
      ['access-control-allow-origin', '*'],
      ['content-type', 'application/json'],
      ['x-b', '2'],
      ['x-ratelimit-limit', '60'],
      ['Content-Length', '7'],
    ]);
    // an answer self-check has read: every name in lower case
    expect(await rawHeaders(port, '/read')).toEqual([
      ['content-type', 'application/json'],
      ['content-length', '7'],
    ]);
  });
});
