// Turns between callers (D-165). While more than one caller (one credential or session, else one client address)
// is calling, a caller has at most `limit` calls in progress; its later calls wait, in arrival order, until one of
// its own ends. One caller's burst then keeps at most `limit` calls of its own ahead of another caller's on the event
// loop and in a batch of the log, instead of every call it has sent. A caller alone is never held: its calls all
// start, as the log's batches serve many calls best. A waiting call starts exactly as it would have: its head is
// read, its body is not, and nothing answers it differently.
//
// A caller counts as calling once two of its calls arrived within one to two periods of `activeMs`, and for one to two
// periods after that (D-171): one call alone (a dropped tenant's next call, an operator's read, a page of the
// dashboard) makes no other caller wait, however long it takes. Calls are counted from the first that starts
// while another caller calls: a caller alone costs a lookup per call, nothing more. A call holds its turn until its
// answer ends or its connection closes, or for `holdMs` to 1.5 × `holdMs` at most (one sweep for every call): a
// stream held open (an MCP session's events, a webhook listener) gives its turn back after that, so a caller's later
// calls never wait on it.
//
// Only the callers that press are held (D-197): a caller whose calls in progress and waiting, with its next one, are
// at most half as many as another caller's starts that call beyond `limit`. A steady caller needs as many calls in
// progress as arrive while one is answered, and a burst makes every answer slower: held at `limit` too, its calls
// would queue behind their own while the burst's waited no more than they did. Callers that press alike (two runs of
// the harness) are held alike.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { peerIp } from './clientIp.js';
import { rawHeaderValue } from './headers.js';

export interface FairShareOptions {
  /** Calls of one caller in progress at once; 0: no limit. */
  limit: number;
  /** How long one call keeps its turn at most. */
  holdMs?: number;
  /** The period within which a caller's calls are counted (it counts as calling for one to two periods). */
  activeMs?: number;
}

/** What serves a call once it has its turn: one function for every call (nothing is made per call). */
export type Handle = (req: IncomingMessage, res: ServerResponse) => void;

export interface FairShare {
  /**
   * Hands the call to `handle` now, or once the caller has a turn (one of its calls ends, or it calls once no other
   * caller has lately); a call whose client left meanwhile is never handled.
   */
  admit(req: IncomingMessage, res: ServerResponse, handle: Handle): void;
  /** Calls waiting for a turn, over every caller (for reports and tests). */
  waiting(): number;
}

interface Waiting {
  req: IncomingMessage;
  res: ServerResponse;
  handle: Handle;
}

interface Share {
  key: string;
  running: number;
  queue: Waiting[];
  /** First waiting call not yet started (the queue is consumed from its head without shifting). */
  head: number;
}

/** A call holding a turn of its caller's. */
interface Turn {
  share: Share;
  since: number;
}

const TURN = Symbol('turn');
type Holder = ServerResponse & { [TURN]?: Turn };

const HOLD_MS = 250;
const ACTIVE_MS = 1000;
/** Calls within one to two periods that make a caller one that is calling (D-171). */
const CALLING = 2;
/** A caller is held at `limit` only while it has at least 1 / LIGHTER of the most calls another caller has (D-197). */
const LIGHTER = 2;

/**
 * Who a call belongs to: its credential, else its session's cookies, else its client's address. Read from the raw
 * head, as the fast path reads it: building `req.headers` costs more than the rest of a turn.
 */
export function callerOf(req: IncomingMessage): string {
  const raw = req.rawHeaders;
  return (
    rawHeaderValue(raw, 'authorization') ||
    rawHeaderValue(raw, 'x-api-key') ||
    rawHeaderValue(raw, 'cookie') ||
    `@${peerIp(req.socket.remoteAddress)}`
  );
}

export function fairShare({ limit, holdMs = HOLD_MS, activeMs = ACTIVE_MS }: FairShareOptions): FairShare {
  if (!Number.isInteger(limit) || limit < 0)
    throw new Error(`calls per caller needs a non-negative integer, got ${limit}`);
  const shares = new Map<string, Share>();
  let waiting = 0;
  // how many calls of each caller arrived in this period of activeMs and in the one before (at most CALLING: more is
  // not told apart), and the callers calling in each: with CALLING calls in it and the one before
  let periodStart = performance.now();
  let current = new Map<string, number>();
  let previous = new Map<string, number>();
  let calling = new Set<string>();
  let wasCalling = new Set<string>();
  const arrived = (key: string): void => {
    const now = performance.now();
    if (now - periodStart >= activeMs) {
      const gap = now - periodStart >= 2 * activeMs;
      previous = gap ? new Map() : current;
      wasCalling = gap ? new Set() : calling;
      current = new Map();
      calling = new Set();
      periodStart = now;
    }
    const n = current.get(key) ?? 0;
    if (n >= CALLING) return;
    current.set(key, n + 1);
    if (n + 1 + (previous.get(key) ?? 0) >= CALLING) calling.add(key);
  };
  /** Another caller than `key` is calling (CALLING calls lately). */
  const contended = (key: string): boolean =>
    calling.size > (calling.has(key) ? 1 : 0) || wasCalling.size > (wasCalling.has(key) ? 1 : 0);
  // the callers with calls waiting: one that is lighter than another may start them once that other's grow
  const pressing = new Set<Share>();
  const backlog = (share: Share): number => share.running + share.queue.length - share.head;
  /** `share`, with `more` calls besides those it has in progress or waiting, has 1 / LIGHTER of another's at most. */
  const lighter = (share: Share, more: number): boolean => {
    const mine = (backlog(share) + more) * LIGHTER;
    for (const other of shares.values()) if (other !== share && backlog(other) >= mine) return true;
    return false;
  };
  const mayStart = (share: Share, more = 0): boolean =>
    share.running < limit || !contended(share.key) || lighter(share, more);

  // the calls holding a turn, each given back at its answer's end or, by a sweep every holdMs / 2 while any is held,
  // once it has held its turn for holdMs (one timer for all, not one per call: this runs on every call)
  const held = new Set<Turn>();
  let sweeper: NodeJS.Timeout | null = null;
  const sweep = () => {
    const now = performance.now();
    for (const turn of held) if (now - turn.since >= holdMs) release(turn);
    if (held.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = null;
    }
  };
  const release = (turn: Turn): void => {
    if (!held.delete(turn)) return;
    turn.share.running--;
    next(turn.share);
  };
  function onClose(this: Holder): void {
    const turn = this[TURN];
    if (turn) release(turn);
  }

  const run = (share: Share, req: IncomingMessage, res: Holder, handle: Handle): void => {
    share.running++;
    const turn: Turn = { share, since: performance.now() };
    held.add(turn);
    if (!sweeper) {
      sweeper = setInterval(sweep, holdMs / 2);
      sweeper.unref();
    }
    res[TURN] = turn;
    res.on('close', onClose);
    handle(req, res);
  };

  const next = (share: Share): void => {
    while (share.head < share.queue.length && mayStart(share)) {
      const w = share.queue[share.head++];
      waiting--;
      if (!w.res.destroyed && !w.res.writableEnded) run(share, w.req, w.res, w.handle);
    }
    if (share.head === share.queue.length) {
      pressing.delete(share);
      share.queue = [];
      share.head = 0;
      if (share.running === 0) shares.delete(share.key);
    } else pressing.add(share);
  };
  /**
   * `share`'s calls grew: the callers waiting that are lighter now start theirs. One waits with `limit` calls in
   * progress and one more waiting at least, so none is lighter than fewer calls than LIGHTER times that.
   */
  const grew = (share: Share): void => {
    if (!pressing.size || backlog(share) < LIGHTER * (limit + 1)) return;
    for (const other of pressing) if (other !== share) next(other);
  };

  return {
    admit(req, res, handle) {
      if (limit === 0) return handle(req, res);
      const key = callerOf(req);
      arrived(key);
      let share = shares.get(key);
      if (!share) {
        // a caller alone, with no call holding a turn: nothing to count (its calls in progress count from the first
        // one that starts while another caller calls)
        if (!contended(key)) return handle(req, res);
        shares.set(key, (share = { key, running: 0, queue: [], head: 0 }));
      }
      if (share.head === share.queue.length && mayStart(share, 1)) run(share, req, res, handle);
      else {
        waiting++;
        share.queue.push({ req, res, handle });
        next(share);
      }
      grew(share);
    },
    waiting: () => waiting,
  };
}
