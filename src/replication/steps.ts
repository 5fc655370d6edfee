// The recorded steps of a shared sandbox (D-112): each is everything that came from outside the
// sandbox's deterministic core, so replaying the steps in log order rebuilds the same state anywhere.
// - `call`: one HTTP call as received (app, method, URL, headers, client address, body), the sandbox
//   time it ran at and the random bytes it drew (new API keys, webhook secrets);
// - `timers`: the sandbox timers that real time made due (review expiries, webhook retries);
// - `sent`: what a webhook receiver answered to one attempt (or that the attempt's instance stopped);
// - `listen`: a webhook listener connected or gone, or a listener attempt's timeout passed (D-119).

import type { SendOutcome } from '../domain/webhooks/sender.js';

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
    }
  | { t: 'timers'; now: number }
  | { t: 'sent'; key: number; out: SendOutcome; now: number }
  | { t: 'listen'; op: ListenOp; now: number };

/** What changes a shared sandbox's webhook listeners (listeners.ts): only these steps do. */
export type ListenOp =
  | { op: 'connect'; listenerId: string; tenantId: string; instance: string }
  | { op: 'gone'; listenerId: string; reason: 'disconnected' | 'lease' }
  | { op: 'timeout'; attemptId: string };

/** A recorded step with its body (calls only) and its place in the log. */
export interface LoggedStep {
  seq: number;
  step: Step;
  body: Buffer | null;
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

const NO_BODY = new Set([101, 204, 205, 304]);

/** The answer with its body read whole, so the call is over (state included) before it is committed. */
export async function settled(res: Response): Promise<Response> {
  const body = NO_BODY.has(res.status) ? null : new Uint8Array(await res.arrayBuffer());
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
