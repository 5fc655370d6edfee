// Webhooks forwarded to a developer's machine (D-119): `GET /sandbox/v1/webhooks/listen` is a
// Server-Sent Events stream of every delivery attempt of the caller's tenant, as it is made (the exact
// headers and body bytes, signatures untouched); `POST /sandbox/v1/webhooks/listen/{attemptId}/answer`
// carries back what the developer's local endpoint answered, recorded as that attempt's answer.
// Several listeners of one tenant each get every attempt: the first 2xx answer counts; when none is a
// 2xx, the first answer counts once every listener it was sent to has answered or gone; with no answer
// within the webhook timeout the attempt fails. An attempt still awaiting its answer is sent again to
// every listener that connects, so a dropped stream that reconnects within the timeout loses nothing;
// an attempt that fails is retried on the schedule like any other, and the listener gets the retry.

import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Core } from '../../domain/core.js';
import type { RelayedAttempt, WebhookRelay } from '../../domain/webhooks/relay.js';
import { RESPONSE_CAP, type SendOutcome } from '../../domain/webhooks/sender.js';
import { DomainError, invalid, notFound } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';
import { onlyKeys, optBool, optString, readObject } from './admin.js';
import { tenantFor } from './caller.js';

/** A comment line this often keeps proxies from closing an idle stream and shows a dead one. */
const HEARTBEAT_MS = 15_000;

interface Listener {
  id: string;
  tenantId: string;
  connectedAt: string;
  send(a: RelayedAttempt): void;
}

interface Pending {
  attempt: RelayedAttempt;
  /** Listeners sent the attempt that have neither answered nor gone. */
  waiting: Set<string>;
  firstFailure: SendOutcome | null;
  settle(out: SendOutcome): void;
}

/** The wire form of an attempt on the stream: the body both as text and as base64 of its exact bytes. */
export function attemptMessage(a: RelayedAttempt) {
  return { ...a, headers: { ...a.headers }, bodyBase64: Buffer.from(a.body, 'utf8').toString('base64') };
}

export class ListenerHub implements WebhookRelay {
  private readonly byTenant = new Map<string, Map<string, Listener>>();
  private readonly pending = new Map<string, Pending>();

  connected(tenantId: string): boolean {
    return (this.byTenant.get(tenantId)?.size ?? 0) > 0;
  }

  listeners(tenantId?: string): { listenerId: string; tenantId: string; connectedAt: string }[] {
    const out = [];
    for (const [t, map] of this.byTenant)
      if (!tenantId || t === tenantId)
        for (const l of map.values()) out.push({ listenerId: l.id, tenantId: t, connectedAt: l.connectedAt });
    return out;
  }

  forward(attempt: RelayedAttempt, timeoutMs: number): Promise<SendOutcome> {
    const t0 = performance.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        p.settle(
          p.firstFailure ?? {
            statusCode: null,
            error: `no listener answered within ${timeoutMs} ms`,
            durationMs: Math.round(performance.now() - t0),
            responseBody: '',
            responseTruncated: false,
          },
        );
      }, timeoutMs);
      timer.unref();
      const p: Pending = {
        attempt,
        waiting: new Set(),
        firstFailure: null,
        settle: (out) => {
          if (!this.pending.delete(attempt.attemptId)) return;
          clearTimeout(timer);
          resolve(out);
        },
      };
      this.pending.set(attempt.attemptId, p);
      for (const l of this.byTenant.get(attempt.tenantId)?.values() ?? []) this.sendTo(l, p);
    });
  }

  /** Connects a listener; the attempts of its tenant still awaiting an answer are sent to it at once. */
  add(l: Listener): void {
    const map = this.byTenant.get(l.tenantId) ?? new Map<string, Listener>();
    this.byTenant.set(l.tenantId, map);
    map.set(l.id, l);
    for (const p of this.pending.values()) if (p.attempt.tenantId === l.tenantId) this.sendTo(l, p);
  }

  remove(l: Listener): void {
    const map = this.byTenant.get(l.tenantId);
    map?.delete(l.id);
    if (map?.size === 0) this.byTenant.delete(l.tenantId);
    for (const p of [...this.pending.values()]) {
      if (p.waiting.delete(l.id) && p.waiting.size === 0 && p.firstFailure) p.settle(p.firstFailure);
    }
  }

  /** Records a listener's answer; false when the tenant has no such attempt awaiting one. */
  answer(tenantId: string, listenerId: string | undefined, attemptId: string, out: SendOutcome): boolean {
    const p = this.pending.get(attemptId);
    if (!p || p.attempt.tenantId !== tenantId) return false;
    if (out.statusCode !== null && out.statusCode >= 200 && out.statusCode < 300) {
      p.settle(out);
      return true;
    }
    p.firstFailure ??= out;
    if (listenerId !== undefined) p.waiting.delete(listenerId);
    if (p.waiting.size === 0) p.settle(p.firstFailure);
    return true;
  }

  private sendTo(l: Listener, p: Pending): void {
    p.waiting.add(l.id);
    l.send(p.attempt);
  }
}

const hubs = new WeakMap<Core, ListenerHub | null>();

/** The core's hub, connected to its webhook outbox on first use; null on a shared sandbox (D-119). */
export function hubOf(core: Core): ListenerHub | null {
  if (!hubs.has(core)) {
    const hub = new ListenerHub();
    hubs.set(core, core.webhooks.useRelay(hub) ? hub : null);
  }
  return hubs.get(core)!;
}

function requireHub(core: Core): ListenerHub {
  const hub = hubOf(core);
  if (!hub) {
    throw new DomainError(
      'invalid_request',
      "webhook listeners are served by a sandbox on the in-memory store only; a shared sandbox (--store postgres) delivers to the tenant's webhookUrl (D-119)",
      { status: 501 },
    );
  }
  return hub;
}

function optStatus(body: Record<string, unknown>): number | null {
  const v = body.statusCode;
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 100 || v > 599)
    throw invalid(
      'statusCode must be an HTTP status (100 to 599) or null when the local endpoint could not be reached',
      'statusCode',
    );
  return v;
}

export function listenRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['tenantId']);
    const tenantId = tenantFor(c, query.tenantId || undefined);
    if (!tenantId)
      throw invalid('tenantId is required with the admin token (a tenant key listens for its own tenant)', 'tenantId');
    const hub = requireHub(c.var.core);
    return streamSSE(c, async (stream) => {
      const listener: Listener = {
        id: `lsn_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
        tenantId,
        connectedAt: new Date().toISOString(),
        send: (a) =>
          void stream
            .writeSSE({ event: 'attempt', id: a.attemptId, data: JSON.stringify(attemptMessage(a)) })
            .catch(() => undefined),
      };
      const closed = new Promise<void>((resolve) => stream.onAbort(resolve));
      await stream.writeSSE({
        event: 'ready',
        id: 'ready.0',
        data: JSON.stringify({ listenerId: listener.id, tenantId }),
      });
      hub.add(listener);
      const beat = setInterval(() => void stream.write(': heartbeat\n\n').catch(() => undefined), HEARTBEAT_MS);
      try {
        await closed;
      } finally {
        clearInterval(beat);
        hub.remove(listener);
      }
    });
  });

  r.post('/:attemptId/answer', async (c) => {
    const attemptId = c.req.param('attemptId');
    const body = await readObject(c);
    onlyKeys(body, [
      'tenantId',
      'listenerId',
      'statusCode',
      'error',
      'durationMs',
      'responseBody',
      'responseTruncated',
    ]);
    const tenantId = tenantFor(c, optString(body, 'tenantId', 200));
    if (!tenantId) throw invalid('tenantId is required with the admin token', 'tenantId');
    const statusCode = optStatus(body);
    const durationMs = body.durationMs;
    if (typeof durationMs !== 'number' || !Number.isFinite(durationMs) || durationMs < 0)
      throw invalid('durationMs must be a number of milliseconds, 0 or more', 'durationMs');
    const responseBody = optString(body, 'responseBody', 64 * 1024) ?? '';
    const out: SendOutcome = {
      statusCode,
      error: statusCode === null ? `local endpoint: ${optString(body, 'error', 500) ?? 'no answer'}` : null,
      durationMs: Math.round(durationMs),
      responseBody: responseBody.slice(0, RESPONSE_CAP),
      responseTruncated: (optBool(body, 'responseTruncated') ?? false) || responseBody.length > RESPONSE_CAP,
    };
    if (!requireHub(c.var.core).answer(tenantId, optString(body, 'listenerId', 100), attemptId, out)) {
      throw notFound(
        `no attempt ${attemptId} of tenant ${tenantId} awaits an answer (answered already, timed out, or not this tenant's)`,
      );
    }
    return c.json({ attemptId, recorded: true }, 202);
  });

  // the connected listeners, for the console and for scripts waiting on a listener
  r.get('/listeners', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['tenantId']);
    const tenantId = tenantFor(c, query.tenantId || undefined);
    return c.json({ listeners: hubOf(c.var.core)?.listeners(tenantId) ?? [] });
  });

  return r;
}
