// A local webhook receiver on the loopback interface: records when each delivery arrived, whether
// its `X-Screening-Signature` verifies against the tenant's secret, and answers 2xx or, while
// `failing` is set, 503. It verifies with node:crypto alone, as an integrator's receiver would.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Arrival {
  /** performance.now() when the body had fully arrived */
  at: number;
  path: string;
  event: string | null;
  requestId: string | null;
  signatureOk: boolean;
  answered: number;
}

export function signatureOk(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice(7), 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export class WebhookReceiver {
  readonly arrivals: Arrival[] = [];
  /** Answer 503 instead of 204 on these paths. */
  readonly failing = new Set<string>();
  private readonly secrets = new Map<string, string>();
  private readonly listeners = new Set<(a: Arrival) => void>();
  private server: Server | null = null;
  url = '';

  /** Deliveries posted to `path` are verified with `secret`. */
  route(path: string, secret: string): string {
    this.secrets.set(path, secret);
    return this.url + path;
  }

  onArrival(fn: (a: Arrival) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const at = performance.now();
        const raw = Buffer.concat(chunks);
        const path = req.url ?? '/';
        let body: { event?: string; requestId?: string } = {};
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          // recorded with null fields
        }
        const secret = this.secrets.get(path);
        const answered = this.failing.has(path) ? 503 : 204;
        const header = req.headers['x-screening-signature'];
        const arrival: Arrival = {
          at,
          path,
          event: typeof body.event === 'string' ? body.event : null,
          requestId: typeof body.requestId === 'string' ? body.requestId : null,
          signatureOk: secret !== undefined && signatureOk(secret, raw, Array.isArray(header) ? header[0] : header),
          answered,
        };
        this.arrivals.push(arrival);
        for (const l of this.listeners) l(arrival);
        res.writeHead(answered).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', () => resolve());
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    const s = this.server;
    this.server = null;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
