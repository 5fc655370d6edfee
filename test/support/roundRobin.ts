// A tiny round-robin reverse proxy (node:http) standing in for the load balancer in front of several
// sandbox instances: each call goes to the next live backend in turn, bodies stream both ways, and a
// backend can be drained (no new calls, its in-flight ones finished) before it is killed and replaced.
// Every exchange is recorded with the backend that answered it, so a test can tell who served what.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  /** Which backend answered, and which of its lives (a restarted backend starts a new life). */
  backend: string;
  life: number;
  method: string;
  path: string;
  status: number;
  requestHeaders: IncomingMessage['headers'];
  /** The whole response body, for the exchanges `capture` selected. */
  body?: Buffer;
}

interface Backend {
  name: string;
  url: URL;
  life: number;
  live: boolean;
  inFlight: number;
  idle: (() => void)[];
  agent: http.Agent;
}

export interface RoundRobinOptions {
  /** Which exchanges keep their response body (default: none). */
  capture?: (method: string, path: string) => boolean;
  /** Called after each exchange is answered (the count of exchanges so far included). */
  onExchange?: (x: Exchange, count: number) => void;
}

export class RoundRobin {
  readonly exchanges: Exchange[] = [];
  /** Calls that could not be forwarded or whose backend failed mid-answer (answered 502 when possible). */
  readonly failures: string[] = [];
  private readonly backends = new Map<string, Backend>();
  private next = 0;
  private server: http.Server | null = null;

  constructor(private readonly opts: RoundRobinOptions = {}) {}

  /** Starts listening on a free loopback port; returns the proxy's origin. */
  async listen(): Promise<string> {
    const server = http.createServer((req, res) => this.forward(req, res));
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    this.server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Puts a backend (an origin such as http://127.0.0.1:8787) in rotation, or back in with a new address. */
  add(name: string, origin: string): void {
    const old = this.backends.get(name);
    old?.agent.destroy();
    this.backends.set(name, {
      name,
      url: new URL(origin),
      life: (old?.life ?? 0) + 1,
      live: true,
      inFlight: 0,
      idle: [],
      agent: new http.Agent({ keepAlive: true, maxSockets: 64 }),
    });
  }

  /** Takes a backend out of rotation and resolves once its in-flight calls are answered. */
  async drain(name: string): Promise<void> {
    const b = this.backends.get(name);
    if (!b) throw new Error(`no backend ${name}`);
    b.live = false;
    if (b.inFlight > 0) await new Promise<void>((resolve) => b.idle.push(resolve));
    b.agent.destroy();
  }

  /** Calls answered per backend and life, e.g. { 'A#1': 120, 'B#1': 240, 'A#2': 118 }. */
  answeredBy(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const x of this.exchanges) out[`${x.backend}#${x.life}`] = (out[`${x.backend}#${x.life}`] ?? 0) + 1;
    return out;
  }

  async close(): Promise<void> {
    for (const b of this.backends.values()) b.agent.destroy();
    const s = this.server;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  private pick(): Backend | null {
    const live = [...this.backends.values()].filter((b) => b.live);
    if (!live.length) return null;
    return live[this.next++ % live.length];
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const b = this.pick();
    if (!b) return this.fail(res, `${req.method} ${req.url}: no live backend`);
    const { life } = b;
    b.inFlight++;
    let done = false;
    let abandoned = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (--b.inFlight === 0) for (const resolve of b.idle.splice(0)) resolve();
    };
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const upstream = http.request(
      { host: b.url.hostname, port: b.url.port, method, path, headers: req.headers, agent: b.agent },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.rawHeaders);
        const keep = this.opts.capture?.(method, path.split('?')[0]) ? ([] as Buffer[]) : null;
        if (keep) up.on('data', (chunk: Buffer) => keep.push(chunk));
        up.pipe(res);
        up.on('end', () => {
          const x: Exchange = {
            backend: b.name,
            life,
            method,
            path,
            status: up.statusCode ?? 0,
            requestHeaders: req.headers,
            ...(keep ? { body: Buffer.concat(keep) } : {}),
          };
          this.exchanges.push(x);
          this.opts.onExchange?.(x, this.exchanges.length);
          finish();
        });
        up.on('error', (err) => {
          if (abandoned) return finish();
          this.failures.push(`${method} ${path} on ${b.name}#${life}: the answer broke off (${err.message})`);
          res.destroy();
          finish();
        });
      },
    );
    upstream.on('error', (err) => {
      finish();
      if (abandoned) return;
      this.fail(res, `${method} ${path} on ${b.name}#${life}: ${err.message}`);
    });
    // a client that gives up (an MCP stream closed early) closes the upstream call too
    res.on('close', () => {
      if (!res.writableFinished) {
        abandoned = true;
        upstream.destroy();
      }
      finish();
    });
    req.pipe(upstream);
  }

  private fail(res: ServerResponse, why: string): void {
    this.failures.push(why);
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'bad_gateway', message: why } }));
  }
}
