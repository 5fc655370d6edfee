// Turns between callers (D-165). While more than one caller (one credential or session, else one client address)
// is calling, a caller has at most `limit` calls in progress; its later calls wait, in arrival order, until one of
// its own ends. One caller's burst then keeps at most `limit` calls of its own ahead of another caller's on the event
// loop and in a batch of the log, instead of every call it has sent. A caller alone is never held: its calls all
// start, as the log's batches serve many calls best. A waiting call starts exactly as it would have: its head is
// read, its body is not, and nothing answers it differently.
//
// A caller counts as calling for `activeMs` after its last call arrived. A call holds its turn until its answer ends
// or its connection closes, or for `holdMs` at most: a stream held open (an MCP session's events, a webhook
// listener) gives its turn back after that, so a caller's later calls never wait on it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { peerIp } from './clientIp.js';

export interface FairShareOptions {
  /** Calls of one caller in progress at once; 0: no limit. */
  limit: number;
  /** How long one call keeps its turn at most. */
  holdMs?: number;
  /** How long a caller counts as calling after its last call arrived. */
  activeMs?: number;
}

export interface FairShare {
  /**
   * Runs `start` now, or once the caller has a turn (one of its calls ends, or it calls once no other caller has
   * lately); a call whose client left meanwhile never starts.
   */
  admit(req: IncomingMessage, res: ServerResponse, start: () => void): void;
  /** Calls waiting for a turn, over every caller (for reports and tests). */
  waiting(): number;
}

interface Waiting {
  res: ServerResponse;
  start: () => void;
}

interface Share {
  running: number;
  queue: Waiting[];
  /** First waiting call not yet started (the queue is consumed from its head without shifting). */
  head: number;
}

const HOLD_MS = 250;
const ACTIVE_MS = 1000;

/** Who a call belongs to: its credential, else its session's cookies, else its client's address. */
export function callerOf(req: IncomingMessage): string {
  const h = req.headers;
  const credential = h.authorization || h['x-api-key'] || h.cookie;
  if (typeof credential === 'string') return credential;
  return `@${peerIp(req.socket.remoteAddress)}`;
}

export function fairShare({ limit, holdMs = HOLD_MS, activeMs = ACTIVE_MS }: FairShareOptions): FairShare {
  if (!Number.isInteger(limit) || limit < 0)
    throw new Error(`calls per caller needs a non-negative integer, got ${limit}`);
  const shares = new Map<string, Share>();
  let waiting = 0;
  // the callers whose calls arrived in this period of activeMs and in the one before
  let periodStart = performance.now();
  let current = new Set<string>();
  let previous = new Set<string>();
  const arrived = (key: string): void => {
    const now = performance.now();
    if (now - periodStart >= activeMs) {
      previous = now - periodStart >= 2 * activeMs ? new Set() : current;
      current = new Set();
      periodStart = now;
    }
    current.add(key);
  };
  /** Another caller than `key` called lately. */
  const contended = (key: string): boolean =>
    current.size > (current.has(key) ? 1 : 0) || previous.size > (previous.has(key) ? 1 : 0);
  const mayStart = (key: string, share: Share): boolean => share.running < limit || !contended(key);

  const run = (key: string, share: Share, w: Waiting): void => {
    share.running++;
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      share.running--;
      next(key, share);
    };
    const timer = setTimeout(release, holdMs);
    timer.unref();
    w.res.once('close', release);
    w.start();
  };

  const next = (key: string, share: Share): void => {
    while (share.head < share.queue.length && mayStart(key, share)) {
      const w = share.queue[share.head++];
      waiting--;
      if (!w.res.destroyed && !w.res.writableEnded) run(key, share, w);
    }
    if (share.head === share.queue.length) {
      share.queue = [];
      share.head = 0;
      if (share.running === 0) shares.delete(key);
    }
  };

  return {
    admit(req, res, start) {
      if (limit <= 0) return start();
      const key = callerOf(req);
      arrived(key);
      let share = shares.get(key);
      if (!share) shares.set(key, (share = { running: 0, queue: [], head: 0 }));
      if (share.head === share.queue.length && mayStart(key, share)) return run(key, share, { res, start });
      waiting++;
      share.queue.push({ res, start });
      next(key, share);
    },
    waiting: () => waiting,
  };
}
