// Webhook listeners on a shared sandbox (D-119, D-112): a developer's `listen` command may hold its stream
// on instance B while the step making an attempt runs on instance A. The log stays the one source of truth:
// - which listeners are connected is changed only by recorded `listen` steps (connected, gone), so every
//   instance's hub, and so every instance's outbox, routes each attempt the same way, live or replayed;
// - an attempt handed to listeners is a pending entry of every instance's hub; the commit of the step that
//   made it notifies `LISTEN_CHANNEL`, and the instances holding streams apply it and write it out;
// - a listener's answer is a recorded call (the answer route), whichever instance receives it; the timeout
//   ("no listener answered") is a recorded step too, submitted by any instance once real time passed it;
// - the instance holding a stream renews a lease on it in `sandbox_listener_leases`; a listener whose lease
//   ran out (its instance died) is dropped by a recorded step from any other instance, and the attempts it
//   held settle as on a disconnect (then retried on the schedule).
// Requirements: none of its own (it carries D-119's rules to a shared sandbox); decisions D-119, D-112, D-140.

import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Core } from '../domain/core.js';
import type { RelayedAttempt } from '../domain/webhooks/relay.js';
import { ListenerHub, useListenerBoard } from '../sandbox/control/listen.js';
import { LISTEN_CHANNEL, type Replica } from './replica.js';
import type { ListenOp } from './steps.js';

/** How long a lease lasts without renewal, and how often the holder renews it. */
const LEASE_SECONDS = 15;
const RENEW_MS = 4_000;
/** How often each instance looks for lapsed leases and attempts past their timeout. */
const SWEEP_MS = 1_000;
/** How often an instance holding streams applies the log when no notification came (a lost LISTEN). */
const POLL_MS = 1_000;

interface Local {
  send(a: RelayedAttempt): void;
  end(): void;
}

/**
 * Gives the core a replicated listener hub fed by the replica's `listen` steps; call before the log is applied.
 * Returns the hub, whose `presence`/`restore` and `pendingState`/`restorePending` a snapshot of the shared state keeps.
 */
export function shareListeners(replica: Replica, core: Core): ListenerHub {
  const db = replica.db;
  // an instance's name for its leases: drawn here, outside any step, and recorded in each `connect` step
  const instance = `ins_${randomBytes(8).toString('hex')}`;
  const local = new Map<string, Local>();
  // what this instance already submitted, so a sweep does not submit it again while it commits
  const submitted = new Set<string>();
  const hub = new ListenerHub({ now: replica.now, timers: false, onForward: () => replica.wakeListeners() });
  let wake: Promise<pg.PoolClient> | null = null;
  let timers: NodeJS.Timeout[] = [];
  // set once this instance stops: a listener that reconnects meanwhile (its stream just ended, the HTTP server still
  // answers) is refused before it takes a connection, which the stop would wait for and never get back
  let closing = false;

  const apply = (op: ListenOp) => {
    switch (op.op) {
      case 'connect': {
        const mine = op.instance === instance ? local.get(op.listenerId) : undefined;
        hub.add({
          id: op.listenerId,
          tenantId: op.tenantId,
          connectedAt: new Date(replica.now()).toISOString(),
          instance: op.instance,
          // written after the step that handed it over is applied, and only while it still awaits an answer
          // (a catch-up may apply the attempt and its answer together)
          ...(mine
            ? { send: (a: RelayedAttempt) => setImmediate(() => hub.awaiting(a.attemptId) && mine.send(a)) }
            : {}),
        });
        return;
      }
      case 'gone': {
        hub.remove(op.listenerId);
        const mine = local.get(op.listenerId);
        if (mine) {
          local.delete(op.listenerId);
          mine.end();
        }
        return;
      }
      case 'timeout':
        hub.expire(op.attemptId);
        return;
    }
  };
  replica.handleListen(apply);

  const submit = (key: string, op: ListenOp) => {
    if (submitted.has(key)) return;
    submitted.add(key);
    replica
      .submitListen(op)
      .catch(() => undefined)
      .finally(() => submitted.delete(key));
  };

  /** Applies the log here now: the attempts handed to this instance's listeners are written out. */
  const catchUp = () => void replica.read(() => Promise.resolve(undefined)).catch(() => undefined);

  /** One connection per instance LISTENs for the commits that handed attempts to listeners. */
  function listenForWakes(): Promise<pg.PoolClient> {
    if (closing) return Promise.reject(new Error('the sandbox is closing'));
    wake ??= (async () => {
      const client = await db.connect();
      let released = false;
      const drop = (err: Error | true) => {
        if (released) return;
        released = true;
        client.release(err);
      };
      client.on('notification', catchUp);
      client.on('error', () => {
        wake = null;
        drop(true);
      });
      try {
        await client.query(`LISTEN ${LISTEN_CHANNEL}`);
      } catch (err) {
        // closed, or the pool's end would wait for it for good
        drop(err as Error);
        throw err;
      }
      return client;
    })().catch((err: unknown) => {
      wake = null;
      throw err;
    });
    return wake;
  }

  async function sweep(): Promise<void> {
    for (const attemptId of hub.overdue(Date.now())) submit(`timeout:${attemptId}`, { op: 'timeout', attemptId });
    const others = hub
      .listeners()
      .map((l) => l.listenerId)
      .filter((id) => !local.has(id));
    if (!others.length) return;
    const { rows } = await db.query<{ listener_id: string }>(
      'SELECT listener_id FROM sandbox_listener_leases WHERE listener_id = ANY($1) AND expires_at > now()',
      [others],
    );
    const alive = new Set(rows.map((r) => r.listener_id));
    for (const id of others)
      if (!alive.has(id) && hub.has(id)) submit(`gone:${id}`, { op: 'gone', listenerId: id, reason: 'lease' });
  }

  const renew = () =>
    local.size
      ? db.query(
          `UPDATE sandbox_listener_leases SET expires_at = now() + interval '${LEASE_SECONDS} seconds' WHERE instance = $1`,
          [instance],
        )
      : Promise.resolve();

  const every = (ms: number, fn: () => Promise<unknown> | void) => {
    const t = setInterval(() => void Promise.resolve(fn()).catch(() => undefined), ms);
    t.unref();
    timers.push(t);
  };
  every(SWEEP_MS, sweep);
  every(RENEW_MS, renew);
  every(POLL_MS, () => (local.size ? catchUp() : undefined));

  useListenerBoard(core, {
    hub,
    streams: {
      async open(listenerId, tenantId, send, end) {
        local.set(listenerId, { send, end });
        try {
          await listenForWakes();
          await db.query(
            `INSERT INTO sandbox_listener_leases (listener_id, tenant_id, instance, expires_at)
             VALUES ($1, $2, $3, now() + interval '${LEASE_SECONDS} seconds')`,
            [listenerId, tenantId, instance],
          );
          await replica.submitListen({ op: 'connect', listenerId, tenantId, instance });
        } catch (err) {
          local.delete(listenerId);
          throw err;
        }
      },
      async close(listenerId) {
        // dropped already (its lease ran out): nothing to record
        if (!local.delete(listenerId)) return;
        await replica.submitListen({ op: 'gone', listenerId, reason: 'disconnected' });
        await db.query('DELETE FROM sandbox_listener_leases WHERE listener_id = $1', [listenerId]);
      },
    },
  });

  // a polite stop drops this instance's listeners at once (a crash leaves it to their leases)
  replica.onClose(async () => {
    closing = true;
    for (const t of timers) clearInterval(t);
    timers = [];
    for (const [listenerId, l] of [...local]) {
      await replica.submitListen({ op: 'gone', listenerId, reason: 'disconnected' }).catch(() => undefined);
      l.end();
    }
    local.clear();
    await db.query('DELETE FROM sandbox_listener_leases WHERE instance = $1', [instance]).catch(() => undefined);
    const client = await wake?.catch(() => null);
    wake = null;
    client?.release(true);
  });
  return hub;
}
