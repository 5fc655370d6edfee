// Helpers for the screening tests: submit bodies, a polling wait, and a local webhook receiver.

import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { Core } from '../../src/domain/core.js';
import { ADMIN_TOKEN, client } from './sandbox.js';

export const SCREENING = '/api/screening/v1';

let seq = 0;

export function submitBody(overrides: { idempotencyKey?: string; candidate?: unknown; jobSpec?: unknown } = {}) {
  return {
    idempotencyKey: overrides.idempotencyKey ?? `idem-${process.pid}-${++seq}`,
    candidate: overrides.candidate ?? {
      kind: 'structured',
      fullName: 'Sari Wulandari',
      summary: 'Backend engineer with 6 years of TypeScript and PostgreSQL on AWS.',
      skills: ['TypeScript', 'PostgreSQL', 'AWS'],
      experienceYears: 6,
    },
    jobSpec: overrides.jobSpec ?? {
      title: 'Senior Backend Engineer',
      mustHaves: ['TypeScript', 'Postgres'],
      niceToHaves: ['Kubernetes'],
    },
  };
}

/** Asserts a response conforms to the operation's documented responses in the contract. */
export function expectConforms(
  core: Core,
  operationId: string,
  res: { status: number; json: unknown; headers: Headers },
): void {
  expect(
    core.contracts.operation(operationId).checkResponse(res.status, res.json, res.headers),
    `${operationId} ${res.status}`,
  ).toEqual([]);
}

/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export function adminOf(baseUrl: string) {
  return client(baseUrl, ADMIN_TOKEN);
}

/** Makes, through an instance, a rule of no tenant: the next `count` submits of any tenant answer 503. */
export async function failSubmits(baseUrl: string, count: number): Promise<void> {
  const rule = await adminOf(baseUrl)('POST', '/sandbox/v1/faults', {
    path: `${SCREENING}/screen`,
    mode: 'status',
    status: 503,
    count,
  });
  expect(rule.status, rule.text).toBe(201);
}

/** Waits until the request has left the automatic steps (received, parsed, scored). */
export async function settled(baseUrl: string, requestId: string): Promise<any> {
  const admin = adminOf(baseUrl);
  return waitFor(async () => {
    const res = await admin('GET', `/sandbox/v1/reviews/${requestId}`);
    return res.status === 200 && !['received', 'parsed', 'scored'].includes(res.json.state) ? res.json : undefined;
  }, `request ${requestId} to settle`);
}

export async function clockAdvance(baseUrl: string, seconds: number): Promise<void> {
  const res = await adminOf(baseUrl)('POST', '/sandbox/v1/clock/advance', { seconds });
  if (res.status !== 200) throw new Error(`clock advance failed: ${res.status} ${res.text}`);
}

export async function deliveriesOf(baseUrl: string, requestId: string): Promise<any[]> {
  const res = await adminOf(baseUrl)(
    'GET',
    `/sandbox/v1/webhooks/deliveries?requestId=${encodeURIComponent(requestId)}`,
  );
  if (res.status !== 200) throw new Error(`listing deliveries failed: ${res.status} ${res.text}`);
  return res.json.deliveries;
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1: answers each request with the next queued status (default 200). */
export async function startReceiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  let fallback = 200;
  let held = false;
  const waiting: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = statuses.length > 0 ? statuses.shift()! : fallback;
      const answer = () => {
        res.writeHead(status, status >= 300 && status < 400 ? { location: 'http://127.0.0.1:9/elsewhere' } : {});
        res.end(status < 300 ? 'ok' : 'nope');
      };
      if (held) waiting.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Answers the next requests with these statuses, in order. */
    queue: (...s: number[]) => statuses.push(...s),
    /** Status for requests once the queue is empty. */
    setDefault: (s: number) => {
      fallback = s;
    },
    /** Holds the answers to the requests that arrive from now on, until `release`. */
    hold: () => {
      held = true;
    },
    /** Sends the answers held, and answers at once again. */
    release: () => {
      held = false;
      for (const answer of waiting.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
