// The harness's own webhook receiver: a plain node:http server that records every delivery byte for
// byte (the signature covers the raw body, so nothing is parsed before it is stored). Each tenant the
// harness provisions gets its own path /hooks/<id>, so deliveries are attributed without trusting the body.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Answer } from '../json.js';

export interface Delivery {
  hook: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  /** Parsed JSON body, when it parses. */
  json?: Answer;
  receivedAt: number;
}

export class WebhookReceiver {
  private server: Server | null = null;
  private readonly byHook = new Map<string, Delivery[]>();
  private readonly waiters = new Set<() => void>();
  private readonly scripted = new Map<string, number[]>();
  private seq = 0;
  /** Base URL the target posts to (…/hooks/<id> is appended). */
  publicUrl = '';

  async start(host: string, port: number, publicUrl?: string): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const m = /^\/hooks\/([^/?#]+)/.exec(req.url ?? '');
        const hook = m ? decodeURIComponent(m[1]) : '';
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(rawBody);
        } catch {
          json = undefined;
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
        const list = this.byHook.get(hook) ?? [];
        list.push({
          hook,
          method: req.method ?? '',
          path: req.url ?? '',
          headers,
          rawBody,
          json,
          receivedAt: Date.now(),
        });
        this.byHook.set(hook, list);
        // deliveries to any other path come from tenants an operator pointed at the receiver (fixed keys)
        const status = this.scripted.get(hook)?.shift() ?? 200;
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ received: status < 300 }));
        for (const w of this.waiters) w();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    const addr = this.server.address() as AddressInfo;
    this.publicUrl = (publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`).replace(
      /\/+$/,
      '',
    );
  }

  /** A fresh hook id and the URL to configure as the tenant's webhookUrl. */
  newHook(): { id: string; url: string } {
    const id = `h${++this.seq}_${Math.random().toString(36).slice(2, 8)}`;
    this.byHook.set(id, []);
    return { id, url: `${this.publicUrl}/hooks/${id}` };
  }

  /** The next `statuses.length` deliveries to this hook are answered with these statuses. */
  script(hook: string, statuses: number[]): void {
    this.scripted.set(hook, [...statuses]);
  }

  /** The deliveries to one hook; `null` means every delivery, whatever its path (fixed keys share one URL). */
  deliveries(hook: string | null): Delivery[] {
    if (hook === null) return [...this.byHook.values()].flat().sort((a, b) => a.receivedAt - b.receivedAt);
    return [...(this.byHook.get(hook) ?? [])];
  }

  /** Waits until `pred` holds over this hook's deliveries (or the timeout passes); returns them. */
  async waitFor(hook: string | null, pred: (ds: Delivery[]) => boolean, timeoutMs: number): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.deliveries(hook))) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.waiters.delete(done);
          resolve();
        };
        const t = setTimeout(done, Math.min(left, 250));
        this.waiters.add(done);
      });
    }
    return this.deliveries(hook);
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections?.();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
