// Webhooks forwarded to a developer's machine (D-119): `GET /sandbox/v1/webhooks/listen` is a
// Server-Sent Events stream of every delivery attempt of the caller's tenant, as it is made (the exact
// headers and body bytes, signatures untouched); `POST /sandbox/v1/webhooks/listen/{attemptId}/answer`
// carries back what the developer's local endpoint answered, recorded as that attempt's answer.
// Several listeners of one tenant each get every attempt: the first 2xx answer counts; when none is a
// 2xx, the first answer counts once every listener it was sent to has answered or gone; with no answer
// within the webhook timeout the attempt fails. An attempt still awaiting its answer is sent again to
// every listener that connects, so a dropped stream that reconnects within the timeout loses nothing;
// an attempt that fails is retried on the schedule like any other, and the listener gets the retry.
// On one process the hub is fed by the streams themselves; on a shared sandbox (PostgreSQL, D-112) by
// recorded steps (src/replication/listeners.ts), so every instance routes each attempt the same way.

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

/** A connected listener; `send` is set only on the instance holding its stream. */
export interface Listener {
  id: string;
  tenantId: string;
  connectedAt: string;
  /** The shared sandbox's instance holding the stream (D-119); absent on one process. */
  instance?: string;
  send?(a: RelayedAttempt): void;
}

interface Pending {
  attempt: RelayedAttempt;
  /** Listeners sent the attempt that have neither answered nor gone. */
  waiting: Set<string>;
  firstFailure: SendOutcome | null;
  startedAt: number;
  timeoutMs: number;
  /** The answer that counts, as the outbox awaits it (again, after a restore: `resume`). */
  answer: Promise<SendOutcome>;
  settle(out: SendOutcome): void;
}

/** An attempt awaiting its listeners' answer, as plain data (a shared sandbox's snapshot, D-140). */
export interface PendingRelayState {
  attempt: RelayedAttempt;
  waiting: string[];
  firstFailure: SendOutcome | null;
  startedAt: number;
  timeoutMs: number;
}

/** The wire form of an attempt on the stream: the body both as text and as base64 of its exact bytes. */
export function attemptMessage(a: RelayedAttempt) {
  return { ...a, headers: { ...a.headers }, bodyBase64: Buffer.from(a.body, 'utf8').toString('base64') };
}

export interface HubOptions {
  /** Real time in ms: the wall clock on one process; the recorded step's time on a shared sandbox. */
  now: () => number;
  /**
   * True on one process: each attempt's timeout is a real timer. False on a shared sandbox, where the
   * timeout is a recorded step (`expire`) so every instance settles the attempt at the same point of the log.
   */
  timers: boolean;
  /** Called when an attempt is handed to the listeners (a shared sandbox wakes the instances holding them). */
  onForward?: () => void;
}

/**
 * Which listeners a tenant has, which attempts await an answer, and which answer counts (D-119). On one
 * process it is fed by the streams directly; on a shared sandbox only by recorded steps, so it is the same
 * on every instance and the outbox takes the same path everywhere.
 */
export class ListenerHub implements WebhookRelay {
  readonly replicated: boolean;
  private readonly byTenant = new Map<string, Map<string, Listener>>();
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly opts: HubOptions = { now: () => Date.now(), timers: true }) {
    this.replicated = !opts.timers;
  }

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

  /** Whether the listener is connected (on any instance). */
  has(listenerId: string): boolean {
    for (const map of this.byTenant.values()) if (map.has(listenerId)) return true;
    return false;
  }

  /** The connected listeners as plain data: what a shared sandbox's snapshot keeps of the hub (D-140). */
  presence(): { listenerId: string; tenantId: string; connectedAt: string; instance?: string }[] {
    const out = [];
    for (const map of this.byTenant.values())
      for (const l of map.values())
        out.push({
          listenerId: l.id,
          tenantId: l.tenantId,
          connectedAt: l.connectedAt,
          ...(l.instance ? { instance: l.instance } : {}),
        });
    return out;
  }

  /** Puts back the listeners `presence` gave (loading a snapshot: none of them is on this instance). */
  restore(list: ReturnType<ListenerHub['presence']>): void {
    for (const l of list)
      this.add({ id: l.listenerId, tenantId: l.tenantId, connectedAt: l.connectedAt, instance: l.instance });
  }

  /** True while an attempt awaits a listener's answer. */
  get busy(): boolean {
    return this.pending.size > 0;
  }

  /** The attempts awaiting an answer as plain data: what a shared sandbox's snapshot keeps of them (D-140). */
  pendingState(): PendingRelayState[] {
    return [...this.pending.values()].map((p) => ({
      attempt: structuredClone(p.attempt),
      waiting: [...p.waiting],
      firstFailure: p.firstFailure && { ...p.firstFailure },
      startedAt: p.startedAt,
      timeoutMs: p.timeoutMs,
    }));
  }

  /**
   * Puts back the attempts `pendingState` gave (loading a snapshot, before the outbox's import asks for their
   * answers with `resume`); a listener connecting later is sent them, as on the instances that kept them.
   */
  restorePending(list: readonly PendingRelayState[]): void {
    for (const s of list) {
      const p = this.open(structuredClone(s.attempt), s.timeoutMs, s.startedAt);
      for (const id of s.waiting) p.waiting.add(id);
      p.firstFailure = s.firstFailure && { ...s.firstFailure };
    }
  }

  /** The answer to come of an attempt restored as awaiting one (null: none such). */
  resume(attemptId: string): Promise<SendOutcome> | null {
    return this.pending.get(attemptId)?.answer ?? null;
  }

  /** Whether the attempt still awaits an answer. */
  awaiting(attemptId: string): boolean {
    return this.pending.has(attemptId);
  }

  /** The attempts whose timeout has passed at real time `now` (a shared sandbox records their expiry). */
  overdue(now: number): string[] {
    const out = [];
    for (const [id, p] of this.pending) if (now - p.startedAt >= p.timeoutMs) out.push(id);
    return out;
  }

  forward(attempt: RelayedAttempt, timeoutMs: number): Promise<SendOutcome> {
    const p = this.open(attempt, timeoutMs, this.opts.now());
    this.opts.onForward?.();
    for (const l of this.byTenant.get(attempt.tenantId)?.values() ?? []) this.sendTo(l, p);
    return p.answer;
  }

  /** Registers an attempt as awaiting an answer (its timeout a real timer on one process). */
  private open(attempt: RelayedAttempt, timeoutMs: number, startedAt: number): Pending {
    let timer: NodeJS.Timeout | undefined;
    let resolve!: (out: SendOutcome) => void;
    const p: Pending = {
      attempt,
      waiting: new Set(),
      firstFailure: null,
      startedAt,
      timeoutMs,
      answer: new Promise<SendOutcome>((r) => (resolve = r)),
      settle: (out) => {
        if (!this.pending.delete(attempt.attemptId)) return;
        clearTimeout(timer);
        resolve(out);
      },
    };
    if (this.opts.timers) {
      timer = setTimeout(() => this.expire(attempt.attemptId), Math.max(0, startedAt + timeoutMs - this.opts.now()));
      timer.unref();
    }
    this.pending.set(attempt.attemptId, p);
    return p;
  }

  /** The attempt's timeout passed: the first failure reported counts, else "no listener answered". */
  expire(attemptId: string): void {
    const p = this.pending.get(attemptId);
    if (!p) return;
    p.settle(
      p.firstFailure ?? {
        statusCode: null,
        error: `no listener answered within ${p.timeoutMs} ms`,
        durationMs: Math.max(0, Math.round(this.opts.now() - p.startedAt)),
        responseBody: '',
        responseTruncated: false,
      },
    );
  }

  /** Connects a listener; the attempts of its tenant still awaiting an answer are sent to it at once. */
  add(l: Listener): void {
    const map = this.byTenant.get(l.tenantId) ?? new Map<string, Listener>();
    this.byTenant.set(l.tenantId, map);
    map.set(l.id, l);
    for (const p of this.pending.values()) if (p.attempt.tenantId === l.tenantId) this.sendTo(l, p);
  }

  remove(listenerId: string): void {
    for (const [tenantId, map] of this.byTenant) {
      if (!map.delete(listenerId)) continue;
      if (map.size === 0) this.byTenant.delete(tenantId);
    }
    for (const p of [...this.pending.values()]) {
      if (p.waiting.delete(listenerId) && p.waiting.size === 0 && p.firstFailure) p.settle(p.firstFailure);
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
    l.send?.(p.attempt);
  }
}

/** How the stream route connects and disconnects the listener it serves. */
export interface ListenerStreams {
  /** Connects the listener `listenerId` of the tenant, whose attempts `send` writes; resolves once it counts. */
  open(listenerId: string, tenantId: string, send: (a: RelayedAttempt) => void, end: () => void): Promise<void>;
  close(listenerId: string): Promise<void>;
}

/** The listeners of one core: its hub and how streams join it. */
export interface ListenerBoard {
  hub: ListenerHub;
  streams: ListenerStreams;
}

/** One process: a stream joins the hub at once, and the hub's timers time attempts out. */
function localBoard(hub: ListenerHub): ListenerBoard {
  return {
    hub,
    streams: {
      open(id, tenantId, send) {
        hub.add({ id, tenantId, connectedAt: new Date().toISOString(), send });
        return Promise.resolve();
      },
      close(listenerId) {
        hub.remove(listenerId);
        return Promise.resolve();
      },
    },
  };
}

const boards = new WeakMap<Core, ListenerBoard | null>();

/**
 * Gives a core the listener board of a shared sandbox (D-119), before any step is applied: its hub
 * is replicated, so the outbox takes it on a store that replays calls.
 */
export function useListenerBoard(core: Core, board: ListenerBoard): void {
  if (!core.webhooks.useRelay(board.hub)) throw new Error('the webhook outbox refused the listener hub');
  boards.set(core, board);
}

/** The core's listeners, connected to its webhook outbox on first use; null when the outbox takes none. */
export function boardOf(core: Core): ListenerBoard | null {
  if (!boards.has(core)) {
    const hub = new ListenerHub();
    boards.set(core, core.webhooks.useRelay(hub) ? localBoard(hub) : null);
  }
  return boards.get(core)!;
}

function requireBoard(core: Core): ListenerBoard {
  const board = boardOf(core);
  if (!board) {
    throw new DomainError(
      'invalid_request',
      'webhook listeners are not served by this sandbox: its store makes every webhook attempt itself (D-119)',
      { status: 501 },
    );
  }
  return board;
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
    const { streams } = requireBoard(c.var.core);
    return streamSSE(c, async (stream) => {
      const listenerId = `lsn_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
      const write = (a: RelayedAttempt) =>
        void stream
          .writeSSE({ event: 'attempt', id: a.attemptId, data: JSON.stringify(attemptMessage(a)) })
          .catch(() => undefined);
      // attempts handed over before the ready event wait for it: the command learns its id first
      let early: RelayedAttempt[] | null = [];
      const send = (a: RelayedAttempt) => (early ? early.push(a) : write(a));
      let end!: () => void;
      const closed = new Promise<void>((resolve) => {
        end = resolve;
        stream.onAbort(resolve);
      });
      // counted once open resolves (on a shared sandbox: once every instance will hand it attempts); a
      // shared sandbox that drops it (its lease ran out) ends the stream, and the command reconnects
      await streams.open(listenerId, tenantId, send, end);
      const beat = setInterval(() => void stream.write(': heartbeat\n\n').catch(() => undefined), HEARTBEAT_MS);
      try {
        await stream.writeSSE({ event: 'ready', id: 'ready.0', data: JSON.stringify({ listenerId, tenantId }) });
        for (const a of early.splice(0)) write(a);
        early = null;
        await closed;
      } finally {
        clearInterval(beat);
        await streams.close(listenerId).catch(() => undefined);
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
    if (!requireBoard(c.var.core).hub.answer(tenantId, optString(body, 'listenerId', 100), attemptId, out)) {
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
    return c.json({ listeners: boardOf(c.var.core)?.hub.listeners(tenantId) ?? [] });
  });

  return r;
}
