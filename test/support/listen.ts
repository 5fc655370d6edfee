// The pieces of the webhook listener tests (D-119): a local endpoint that records what it is sent, a TCP
// proxy whose connections can be cut (a network drop), and the real `listen` command as a child process.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach } from 'vitest';
import { waitFor } from './screening.js';

const repo = path.resolve(import.meta.dirname, '../..');

export interface Got {
  headers: IncomingHttpHeaders;
  bytes: Buffer;
  json: any;
}

/** A local endpoint: records every POST; answers with the queued statuses (then 200); may hold answers. */
export async function startReceiver() {
  const got: Got[] = [];
  const statuses: number[] = [];
  let hold: Promise<void> | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on(
      'end',
      () =>
        void (async () => {
          const bytes = Buffer.concat(chunks);
          got.push({ headers: req.headers, bytes, json: JSON.parse(bytes.toString('utf8')) });
          const status = statuses.shift() ?? 200;
          if (hold) await hold;
          res.writeHead(status).end(status < 300 ? 'thanks' : 'local failure');
        })(),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    got,
    queue: (...s: number[]) => statuses.push(...s),
    /** Holds every answer until the returned function is called. */
    hold: () => {
      let release!: () => void;
      hold = new Promise<void>((r) => (release = r));
      return () => {
        hold = null;
        release();
      };
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** A TCP proxy in front of the sandbox whose open connections can be cut (a network drop). */
export async function startProxy(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let refusing = false;
  const server = createTcpServer((inbound) => {
    if (refusing) return void inbound.destroy();
    const outbound = connect(Number(port), hostname);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    drop: () => {
      for (const s of sockets) s.destroy();
    },
    /** Cuts every connection and refuses new ones until `resume` (the network is down). */
    down: () => {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    resume: () => {
      refusing = false;
    },
    close: () => new Promise<void>((r) => (server.close(() => r()), [...sockets].forEach((s) => s.destroy()))),
  };
}

export interface Listener {
  child: ChildProcess;
  out: string[];
  err: string[];
  exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();

export function runListen(args: string[]): Listener {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/listen/cli.ts', ...args], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const out: string[] = [];
  const err: string[] = [];
  child.stdout.setEncoding('utf8').on('data', (s: string) => out.push(...s.split('\n').filter(Boolean)));
  child.stderr.setEncoding('utf8').on('data', (s: string) => err.push(...s.split('\n').filter(Boolean)));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => (children.delete(child), r(code))));
  return { child, out, err, exited };
}

export async function listen(target: string, key: string, forwardTo: string): Promise<Listener> {
  const l = runListen(['--target', target, '--key', key, '--forward-to', forwardTo]);
  await waitFor(
    () => l.out.some((line) => line.startsWith('Ready:')),
    `the listener to connect (${l.err.join(' | ')})`,
    20_000,
  );
  return l;
}

/** Kills every listener process a test of the calling file left running, after each test. */
export function killListenersAfterEach(): void {
  afterEach(() => {
    for (const c of children) c.kill('SIGKILL');
  });
}
