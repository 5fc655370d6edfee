// The recorded steps of a shared sandbox (D-112): each is everything that came from outside the
// sandbox's deterministic core, so replaying the steps in log order rebuilds the same state anywhere.
// - `call`: one HTTP call as received (app, method, URL, headers, client address, body), the sandbox
//   time it ran at and the random bytes it drew (new API keys, webhook secrets);
// - `timers`: the sandbox timers that real time made due (review expiries, webhook retries);
// - `sent`: what a webhook receiver answered to one attempt (or that the attempt's instance stopped).

import type { SendOutcome } from '../../domain/webhooks/sender.js';

export type Step =
  | { t: 'call'; app: string; method: string; url: string; headers: [string, string][]; ip: string; now: number; tape: string[] }
  | { t: 'timers'; now: number }
  | { t: 'sent'; key: number; out: SendOutcome; now: number };

/** A recorded step with its body (calls only) and its place in the log. */
export interface LoggedStep {
  seq: number;
  step: Step;
  body: Buffer | null;
}

/** Node's request stream, when the call came in over node:http (cheaper to read than its Web stream). */
interface NodeBody {
  on(event: 'data', fn: (chunk: Buffer) => void): unknown;
  once(event: 'end' | 'close' | 'error', fn: () => void): unknown;
  off(event: 'data', fn: (chunk: Buffer) => void): unknown;
  pause(): unknown;
}

/** The body of a call from Node's stream: what came in, never more than the cap plus one byte. */
export function readNodeCapped(incoming: NodeBody, cap: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    const done = () => {
      incoming.off('data', onData);
      const all = Buffer.concat(parts, size);
      resolve(all.byteLength > cap ? all.subarray(0, cap + 1) : all);
    };
    const onData = (chunk: Buffer) => {
      parts.push(chunk);
      size += chunk.length;
      // past the cap the app refuses the call whatever follows: keep one byte too many, stop reading
      if (size > cap) {
        incoming.pause();
        done();
      }
    };
    incoming.on('data', onData);
    incoming.once('end', done);
    incoming.once('close', done);
    incoming.once('error', done);
  });
}

/** The body of a call as the app reads it: what came in, never more than the cap plus one byte. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, cap: number): Promise<Buffer | null> {
  if (!body) return null;
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.byteLength;
      // past the cap the app refuses the call whatever follows: keep one byte too many, drop the rest
      if (size > cap) break;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  const all = Buffer.concat(parts);
  return all.byteLength > cap ? all.subarray(0, cap + 1) : all;
}

/** The request an app sees for a recorded call, on the instance that took it and on every replay. */
export function requestOf(step: Extract<Step, { t: 'call' }>, body: Buffer | null): Request {
  const init: RequestInit & { duplex?: 'half' } = { method: step.method, headers: step.headers };
  if (body && step.method !== 'GET' && step.method !== 'HEAD') {
    init.body = new Uint8Array(body) as unknown as BodyInit;
    init.duplex = 'half';
  }
  return new Request(step.url, init);
}

/**
 * What the app reads of the connection: the peer address and the raw header lines; whether the call is
 * a replay; and where a chaos latency rule hands its delay (so it holds back the answer, not the log).
 */
export function connectionOf(step: Extract<Step, { t: 'call' }>, replaying: boolean, delayAnswer: (ms: number) => void) {
  return { incoming: { socket: { remoteAddress: step.ip }, rawHeaders: step.headers.flat() }, replaying, delayAnswer };
}

const NO_BODY = new Set([101, 204, 205, 304]);

/** The answer with its body read whole, so the call is over (state included) before it is committed. */
export async function settled(res: Response): Promise<Response> {
  const body = NO_BODY.has(res.status) ? null : new Uint8Array(await res.arrayBuffer());
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}
