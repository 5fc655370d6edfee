// The recorded steps of a shared sandbox (D-112): each is everything that came from outside the
// sandbox's deterministic core, so replaying the steps in log order rebuilds the same state anywhere.
// - `call`: one HTTP call as received (app, method, URL, headers, client address, body), the sandbox
//   time it ran at and the random bytes it drew (new API keys, webhook secrets);
// - `timers`: the sandbox timers that real time made due (review expiries, webhook retries), one tenant's;
// - `sent`: what a webhook receiver answered to one attempt (or that the attempt's instance stopped);
// - `listen`: a webhook listener connected or gone, or a listener attempt's timeout passed (D-119).

import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { SendOutcome } from '../domain/webhooks/sender.js';
import { BODY_READ } from '../web/bodyStream.js';
import { stringBodyOf } from '../web/callLog.js';
import type { DirectoryChange } from './directory.js';
import type { Partition, RoutedCall } from './route.js';

export type Step =
  | {
      t: 'call';
      app: string;
      method: string;
      url: string;
      headers: [string, string][];
      ip: string;
      now: number;
      tape: string[];
      oversize?: number;
      /** The directory changes the call made (directory.ts), recorded by the instance that ran it. */
      dir?: DirectoryChange[];
      /**
       * A tenant's call that changed the state of no tenant (a dashboard sign-in, a rule of no tenant that fired):
       * every instance applies it, none skips it (D-172).
       */
      g?: 1;
    }
  // zone: the tenant whose timers it fires (D-154); without it, every zone's (the timers due at a start)
  | { t: 'timers'; now: number; zone?: string }
  // key: the attempt's id (a number in a log of format 1: one counter for every attempt, D-153)
  | { t: 'sent'; key: string | number; out: SendOutcome; now: number }
  | { t: 'listen'; op: ListenOp; now: number };

/** What changes a shared sandbox's webhook listeners (listeners.ts): only these steps do. */
export type ListenOp =
  | { op: 'connect'; listenerId: string; tenantId: string; instance: string }
  | { op: 'gone'; listenerId: string; reason: 'disconnected' | 'lease' }
  | { op: 'timeout'; attemptId: string };

/** A recorded step with its body (calls only), its place in the log and its partition (route.ts). */
export interface LoggedStep {
  seq: number;
  step: Step;
  body: Buffer | null;
  /** A tenant's id, or `global`, `create` or `all` (partitionText). */
  partition: string;
}

/** The partition column's text: a tenant's id (generated ids start `ten_`), or the kind of a partition of no one tenant. */
export function partitionText(p: Partition): string {
  return p.kind === 'tenant' ? p.tenantId : p.kind;
}

/** The tenant a partition's text names; null for `global`, `create`, `all` (and a step written before partitions). */
export function tenantOfPartition(text: string | null): string | null {
  return text === null || text === 'global' || text === 'create' || text === 'all' ? null : text;
}

/** The call as the router reads it (route.ts). */
export function routedCall(step: Extract<Step, { t: 'call' }>, body: Buffer | null): RoutedCall {
  return {
    app: step.app,
    method: step.method,
    url: step.url,
    header(name) {
      const lower = name.toLowerCase();
      for (const [n, v] of step.headers) if (n.toLowerCase() === lower) return v;
      return undefined;
    },
    body: step.oversize ? null : body,
  };
}

/** The request an app sees for a recorded call, on the instance that took it and on every replay. */
export function requestOf(step: Extract<Step, { t: 'call' }>, body: Buffer | null): Request {
  const init: RequestInit & { duplex?: 'half' } = { method: step.method, headers: step.headers };
  // a body past every route's limit is refused for its size alone: any bytes of that size answer the same
  if (step.oversize) body = Buffer.alloc(step.oversize);
  if (body && step.method !== 'GET' && step.method !== 'HEAD') {
    init.body = new Uint8Array(body);
    init.duplex = 'half';
  }
  return new Request(step.url, init);
}

/**
 * What the app reads of the connection: the peer address and the raw header lines; whether the call is
 * a replay; and where a chaos latency rule hands its delay (so it holds back the answer, not the log).
 */
export function connectionOf(
  step: Extract<Step, { t: 'call' }>,
  replaying: boolean,
  delayAnswer: (ms: number) => void,
) {
  return { incoming: { socket: { remoteAddress: step.ip }, rawHeaders: step.headers.flat() }, replaying, delayAnswer };
}

/**
 * A handler on Node's request and response that answers some calls itself (the REST fast path, D-131): true
 * when it took the call, which it then answers with one `writeHead` and one `end`.
 */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Offers a recorded call to `take` as Node's request would bring it (the step's method, target, header lines,
 * peer address and body, the same on every replay); the answer it writes comes back as a Response, with its
 * headers as written (names, case and order), or null when it left the call to the app. Only calls with a
 * body are offered: the fast path leaves every such call to the app while a chaos rule is armed, so no
 * latency rule is ever served inside a step (the app hands its delay to the replica instead).
 */
export function takenBy(
  take: NodeHandler,
  step: Extract<Step, { t: 'call' }>,
  body: Buffer | null,
): Promise<Response> | null {
  if (step.method !== 'POST' || step.oversize || !body) return null;
  const at = step.url.indexOf('/', step.url.indexOf('//') + 2);
  const rawHeaders = step.headers.flat();
  let authorization: string | undefined;
  for (const [name, value] of step.headers) if (name.toLowerCase() === 'authorization') authorization ??= value;
  // no stream: the body is read already
  const req = {
    method: step.method,
    url: at < 0 ? '/' : step.url.slice(at),
    rawHeaders,
    headers: { authorization },
    socket: { remoteAddress: step.ip },
    [BODY_READ]: body,
  };
  let answer!: (res: Response) => void;
  const answered = new Promise<Response>((resolve) => (answer = resolve));
  let status = 200;
  const head: Record<string, string> = {};
  const res = {
    writeHead(code: number, headers: OutgoingHttpHeader[]) {
      status = code;
      for (let i = 0; i + 1 < headers.length; i += 2) head[String(headers[i])] = String(headers[i + 1]);
    },
    end(bytes: string | Uint8Array) {
      answer(new Response(bytes as string | Uint8Array<ArrayBuffer>, { status, headers: head }));
    },
  };
  if (!take(req as unknown as IncomingMessage, res as unknown as ServerResponse)) return null;
  return answered;
}

const NO_BODY = new Set([101, 204, 205, 304]);

/** The answer with its body read whole, so the call is over (state included) before it is committed. */
export async function settled(res: Response): Promise<Response> {
  // built from a string or bytes, it is whole already: served as it is (the server adapter writes it straight)
  if (stringBodyOf(res) !== null) return res;
  const body = NO_BODY.has(res.status) ? null : new Uint8Array(await res.arrayBuffer());
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
