// One HTTP attempt of a webhook delivery: POST the raw body, wait at most the timeout, and report
// the status (2xx is success; redirects are not followed and count as failures) or the network error.
// Only the first RESPONSE_CAP bytes of the receiver's answer are read and kept: then the connection
// is closed, so a receiver answering with gigabytes costs the sandbox a few KiB.
// Requirements: POL-HOOK-1 (2xx within 15 s is success); decisions D-09.

import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Bytes of the receiver's response body read and recorded per attempt (D-100). */
export const RESPONSE_CAP = 4096;

export interface SendOutcome {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The first RESPONSE_CAP bytes of the response body (UTF-8, lossy), '' when none. */
  responseBody: string;
  /** True when the receiver sent more than was read. */
  responseTruncated: boolean;
}

/**
 * An attempt's answer to come. A store that records attempts (D-112) names it by a `key`, kept with the
 * delivery's attempt in flight, so the answer can be awaited again after the state is restored from a snapshot.
 */
export type SentWebhook = Promise<SendOutcome> & { readonly key?: string };

/** Makes one attempt; a store that replays calls across instances puts its own in front (D-112). */
export type SendWebhook = (
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  /** The attempt's id (`attemptIdOf`): a store that records attempts awaits the answer by it (D-153). */
  attemptId: string,
) => SentWebhook;

/** The answer to come of an attempt restored in flight, by its key (null: the store knows no such attempt). */
export type ResumeWebhook = (key: string) => Promise<SendOutcome> | null;

export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<SendOutcome> {
  const t0 = performance.now();
  const elapsed = () => Math.round(performance.now() - t0);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (out: Omit<SendOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...out, durationMs: elapsed() });
    };
    const fail = (error: string, statusCode: number | null = null) =>
      finish({ statusCode, error, responseBody: '', responseTruncated: false });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      fail(`network error: ${url} is not a URL`);
      return;
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const payload = Buffer.from(body);
    const req = send(
      target,
      { method: 'POST', headers: { ...headers, 'Content-Length': String(payload.length) } },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        const chunks: Buffer[] = [];
        let kept = 0;
        let truncated = false;
        const done = () =>
          finish({
            statusCode: status,
            error: ok ? null : `receiver answered ${status}`,
            responseBody: Buffer.concat(chunks).toString('utf8'),
            responseTruncated: truncated,
          });
        res.on('data', (chunk: Buffer) => {
          const room = RESPONSE_CAP - kept;
          if (chunk.length > room) {
            truncated = true;
            if (room > 0) chunks.push(chunk.subarray(0, room));
            kept = RESPONSE_CAP;
            done();
            // enough read: close the connection rather than drain the rest
            res.destroy();
            return;
          }
          chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('end', done);
        res.on('error', done);
        res.on('close', done);
      },
    );
    const timer = setTimeout(() => {
      fail(`no answer within ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => fail(`network error: ${err.code ?? err.message}`));
    req.end(payload);
  });
}
