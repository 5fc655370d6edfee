// `npm run listen -- --target <sandbox url> --key <tenant key> --forward-to http://localhost:3000/hooks`:
// webhooks forwarded to a developer's machine (D-119). It connects out to the sandbox's listener stream
// (Server-Sent Events on the sandbox's own port; nothing listens here), posts each delivery attempt of
// the key's tenant to the local URL with the exact headers and body bytes (signatures untouched), and
// sends the local answer back, where it becomes that attempt's answer (a non-2xx is retried on the
// sandbox's schedule). One line per delivery; reconnects with backoff after a drop; exits 2 on a bad key.
// A client: it imports nothing of the sandbox.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parseArgs } from 'node:util';

/** Bytes of the local answer sent back (the sandbox keeps as many). */
const ANSWER_CAP = 4096;
/** The local endpoint gets a little less than the sandbox's webhook timeout (15 s) to answer. */
const LOCAL_TIMEOUT_MS = 14_000;
const BACKOFF_MS = [250, 500, 1000, 2000, 5000];
/** Three missed heartbeats of the sandbox's stream. */
const IDLE_MS = 45_000;

interface AttemptMessage {
  attemptId: string;
  deliveryId: string;
  attempt: number;
  requestId: string;
  event: string;
  headers: Record<string, string>;
  bodyBase64: string;
}

interface LocalAnswer {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseBody: string;
  responseTruncated: boolean;
}

const USAGE =
  'usage: npm run listen -- --target <sandbox url> --key <tenant API key> --forward-to <local url> [--tenant <tenantId> (with the admin token)]';

function fail(message: string, code: number): never {
  console.error(`listen: ${message}`);
  process.exit(code);
}

function options() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        target: { type: 'string' },
        key: { type: 'string' },
        'forward-to': { type: 'string' },
        tenant: { type: 'string' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 64);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const key = values.key ?? process.env.SANDBOX_LISTEN_KEY;
  if (!values.target || !key || !values['forward-to'])
    fail(`--target, --key (or SANDBOX_LISTEN_KEY) and --forward-to are required\n${USAGE}`, 64);
  for (const [name, v] of [
    ['--target', values.target],
    ['--forward-to', values['forward-to']],
  ] as const) {
    if (!/^https?:\/\/[^/]/.test(v)) fail(`${name} must be an http:// or https:// URL (got '${v}')`, 64);
  }
  return { target: values.target.replace(/\/+$/, ''), key, forwardTo: values['forward-to'], tenant: values.tenant };
}

/** POSTs the exact bytes with the exact headers to the local endpoint; never throws. */
function forward(url: string, headers: Record<string, string>, body: Buffer): Promise<LocalAnswer> {
  const t0 = performance.now();
  const took = () => Math.round(performance.now() - t0);
  return new Promise((resolve) => {
    let done = false;
    const finish = (a: Omit<LocalAnswer, 'durationMs'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...a, durationMs: took() });
    };
    const failed = (error: string) => finish({ statusCode: null, error, responseBody: '', responseTruncated: false });
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(
      u,
      { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) } },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let truncated = false;
        const end = () =>
          finish({
            statusCode: res.statusCode ?? null,
            error: null,
            responseBody: Buffer.concat(chunks).toString('utf8'),
            responseTruncated: truncated,
          });
        res.on('data', (chunk: Buffer) => {
          if (kept + chunk.length > ANSWER_CAP) {
            chunks.push(chunk.subarray(0, ANSWER_CAP - kept));
            kept = ANSWER_CAP;
            truncated = true;
            end();
            res.destroy();
            return;
          }
          chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('end', end);
        res.on('error', end);
        res.on('close', end);
      },
    );
    const timer = setTimeout(() => {
      failed(`no answer within ${LOCAL_TIMEOUT_MS} ms`);
      req.destroy();
    }, LOCAL_TIMEOUT_MS);
    req.on('error', (err: NodeJS.ErrnoException) => failed(`${err.code ?? err.message} at ${url}`));
    req.end(body);
  });
}

/** Splits a Server-Sent Events byte stream into events (event name, id, data). */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; id: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = 'message';
      let id = '';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) yield { event, id, data: data.join('\n') };
    }
  }
}

async function main(): Promise<void> {
  const opts = options();
  const auth = { authorization: `Bearer ${opts.key}` };
  const streamUrl = `${opts.target}/sandbox/v1/webhooks/listen${opts.tenant ? `?tenantId=${encodeURIComponent(opts.tenant)}` : ''}`;
  /** Answers by attempt id: a replayed attempt is not forwarded twice, its answer is sent again. */
  const answers = new Map<string, Promise<LocalAnswer>>();
  let listenerId: string | undefined;
  let stopping = false;
  let current: AbortController | null = null;
  const stop = () => {
    stopping = true;
    current?.abort();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  async function report(a: AttemptMessage, answer: LocalAnswer, replay = false): Promise<boolean> {
    const url = `${opts.target}/sandbox/v1/webhooks/listen/${encodeURIComponent(a.attemptId)}/answer`;
    const payload = { ...answer, listenerId, ...(opts.tenant ? { tenantId: opts.tenant } : {}) };
    for (let i = 0; i < 3; i++) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify(payload),
        });
        if (res.status === 202) return true;
        // 404: the sandbox no longer awaits it (timed out, or another listener's 2xx settled it; a replay's
        // first answer already counted)
        if (replay && res.status === 404) return false;
        console.error(`listen: answer to ${a.attemptId} not recorded (${res.status}): ${await res.text()}`);
        return false;
      } catch {
        await new Promise((r) => setTimeout(r, 250 * (i + 1)));
      }
    }
    console.error(
      `listen: could not send the answer to ${a.attemptId}; the sandbox will send the attempt again after a reconnect or retry it`,
    );
    return false;
  }

  async function handle(a: AttemptMessage): Promise<void> {
    const known = answers.get(a.attemptId);
    if (known) {
      // sent again after a reconnect: the local endpoint already has it, the sandbox still awaits the answer
      await report(a, await known, true);
      return;
    }
    const answer = forward(opts.forwardTo, a.headers, Buffer.from(a.bodyBase64, 'base64'));
    answers.set(a.attemptId, answer);
    if (answers.size > 1000) answers.delete(answers.keys().next().value!);
    const got = await answer;
    const status = got.statusCode === null ? `failed (${got.error})` : String(got.statusCode);
    console.log(
      `${new Date().toISOString()}  ${a.event}  ${a.requestId}  -> ${status}  ${got.durationMs}ms  [${a.attemptId}]`,
    );
    await report(a, got);
  }

  let failures = 0;
  let everConnected = false;
  while (!stopping) {
    const controller = new AbortController();
    current = controller;
    let reason = 'the stream ended';
    try {
      const res = await fetch(streamUrl, {
        headers: { ...auth, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (res.status !== 200) {
        const text = await res.text();
        let message = text;
        try {
          message = JSON.parse(text).error?.message ?? text;
        } catch {
          /* not JSON */
        }
        if (res.status === 401 || res.status === 403)
          fail(`the sandbox refused the key (${res.status}): ${message}`, 2);
        if (res.status < 500 || !everConnected) fail(`the sandbox answered ${res.status}: ${message}`, 1);
        throw new Error(`the sandbox answered ${res.status}`);
      }
      // the sandbox sends a comment every 15 s: a stream silent for longer is dead (a drop without a FIN)
      let idle = setTimeout(() => controller.abort(new Error('no data for 45 s')), IDLE_MS);
      const watched = res.body!.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, out) {
            clearTimeout(idle);
            idle = setTimeout(() => controller.abort(new Error('no data for 45 s')), IDLE_MS);
            out.enqueue(chunk);
          },
          flush() {
            clearTimeout(idle);
          },
        }),
      );
      for await (const ev of events(watched)) {
        if (ev.event === 'ready') {
          const ready = JSON.parse(ev.data) as { listenerId: string; tenantId: string };
          listenerId = ready.listenerId;
          failures = 0;
          everConnected = true;
          console.log(
            `Ready: forwarding webhook attempts of tenant ${ready.tenantId} to ${opts.forwardTo} (listener ${ready.listenerId})`,
          );
        } else if (ev.event === 'attempt') {
          void handle(JSON.parse(ev.data) as AttemptMessage);
        }
      }
    } catch (err) {
      reason = (err as Error).cause
        ? String(((err as Error).cause as Error).message ?? (err as Error).cause)
        : (err as Error).message;
    }
    if (stopping) break;
    const wait = BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)];
    console.error(`listen: connection to ${opts.target} lost (${reason}); reconnecting in ${wait} ms`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

void main();
