// Request heads: Node reads up to `headerMaxBytes` of them (the contract lets `q`, `location` and `cursor`
// each reach 10,000 characters, far past Node's 16 KiB default), and a head past that, or one Node cannot
// parse, is answered in the error envelope instead of Node's empty 431/400 (D-82).

import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { limits } from '../domain/plans.js';

export const HEADER_MAX_BYTES = limits.policy.headerMaxBytes;

// The rest of a refused head is read and dropped for a moment, up to this much, so the client is not
// reset before it sees the answer; then the connection is closed.
const DRAIN_BYTES = 1024 * 1024;
const DRAIN_MS = 2000;

function rawAnswer(status: number, reason: string, message: string): string {
  const body = JSON.stringify({ error: { code: 'invalid_request', message } });
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

function refuse(socket: Duplex, answer: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  let drained = 0;
  socket.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_BYTES) socket.destroy();
  });
  const timer = setTimeout(() => socket.destroy(), DRAIN_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.end(answer);
}

/** Replaces Node's bare clientError answers with the envelope. */
export function answerBadHeadsWithEnvelope(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === 'ECONNRESET') socket.destroy();
    else if (err.code === 'HPE_HEADER_OVERFLOW') {
      refuse(
        socket,
        rawAnswer(431, 'Request Header Fields Too Large', `the request head is larger than ${HEADER_MAX_BYTES} bytes`),
      );
    } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      refuse(socket, rawAnswer(408, 'Request Timeout', 'the request was not received in time'));
    } else
      refuse(
        socket,
        rawAnswer(400, 'Bad Request', `the request could not be parsed as HTTP/1.1 (${err.code ?? 'malformed'})`),
      );
  });
}
