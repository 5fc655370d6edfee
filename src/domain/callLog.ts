// The request log: the most recent API and MCP calls (method, path or tool, status, duration, and
// the first bytes of each body), the sandbox's counterpart of a payment provider's developer logs.
// Adapters record; the control API and console read. One ring per tenant and one for the calls of no
// tenant (D-147), so what a tenant's calls leave in the log depends on its calls alone and goes with the
// tenant into a snapshot. Memory is bounded twice over: at most CAPACITY entries per ring (the oldest roll
// off), and per entry at most LOG_TEXT_CAP characters of text or CAP_BYTES bytes of an answer per body.
// Requirements: none of the documents (a sandbox convenience, like a payment provider's developer logs); decisions D-104, D-147.

import { tagOfTenant } from './rng.js';

export const CAPACITY = 2000;
/**
 * The bound of each tenant's ring (D-147): a tenant's latest 200 calls. Memory grows with the tenants that have
 * calls in the log (up to about 6 KB per entry with a long answer, about 1 MB per busy tenant) until a store evicts
 * idle tenants; the ring of no tenant's calls keeps CAPACITY.
 */
export const TENANT_CAPACITY = 200;
export const LOG_TEXT_CAP = 2048;

export interface CallEntry {
  id: string;
  /** Sandbox-clock time the call arrived (ISO). */
  at: string;
  tenantId: string | null;
  api: 'rest' | 'mcp';
  method: string;
  path: string;
  /** The MCP method or tool (`tools/call search_jobs`), null for REST. */
  tool: string | null;
  status: number;
  durationMs: number;
  requestBody: string;
  responseBody: string;
  /** True when a body was longer than LOG_TEXT_CAP and was cut. */
  truncated: boolean;
}

/** A string cut to LOG_TEXT_CAP characters, flattened into a copy that holds nothing of the original. */
const cutCopy = (text: string) => Buffer.from(text.slice(0, LOG_TEXT_CAP), 'utf16le').toString('utf16le');

export const capBody = (text: string): { text: string; cut: boolean } =>
  text.length > LOG_TEXT_CAP ? { text: text.slice(0, LOG_TEXT_CAP), cut: true } : { text, cut: false };

/**
 * How many leading bytes of a UTF-8 body decide capBody() of its text: the first LOG_TEXT_CAP characters take
 * at most 3 bytes each (4 for two), and a body longer than this has more than LOG_TEXT_CAP characters.
 */
export const CAP_BYTES = 3 * LOG_TEXT_CAP + 3;

/**
 * How many leading bytes of a UTF-8 answer the log keeps: CAP_BYTES in general, but only LOG_TEXT_CAP + 1 when those
 * are all ASCII (one character each: they decide capBytes() alone, the cut included), which is the common case of a
 * JSON answer and a third of the memory.
 */
export function keptBytes(bytes: Uint8Array): number {
  const ascii = Math.min(bytes.byteLength, LOG_TEXT_CAP + 1);
  for (let i = 0; i < ascii; i++) if (bytes[i] & 0x80) return Math.min(bytes.byteLength, CAP_BYTES);
  return ascii;
}

/** capBody() of a UTF-8 body's text, from its first CAP_BYTES bytes (a copy: the result holds nothing larger). */
export function capBytes(head: Uint8Array): { text: string; cut: boolean } {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, CAP_BYTES)).toString('utf8');
  return text.length <= LOG_TEXT_CAP ? { text, cut: false } : { text: cutCopy(text), cut: true };
}

/** One finished call as an adapter hands it over; the log decides what of each body it keeps. */
export type CallRecord = Pick<CallEntry, 'tenantId' | 'api' | 'method' | 'path' | 'tool' | 'status' | 'durationMs'> & {
  /** Sandbox-clock time the call arrived (milliseconds since the epoch). */
  atMs: number;
  /** The request body's text. */
  request: string;
  /** The answer: its text, or its UTF-8 bytes (whole, or at least the first CAP_BYTES), never written to again. */
  response: string | Uint8Array;
};

/** A ring in a snapshot: the calls shown, each with its texts as shown and whether they were cut (D-137). */
export interface CallLogState {
  count: number;
  first: number;
  entries: (Omit<CallRecord, 'response'> & { response: string; flags: number })[];
}

const REQUEST_CUT = 1;
const RESPONSE_CUT = 2;

/** One call as a ring keeps it: the answer as text, or (response null) its first bytes in the ring's arena. */
interface Slot {
  atMs: number;
  durationMs: number;
  status: number;
  flags: number;
  tenantId: string | null;
  api: 'rest' | 'mcp';
  method: string;
  path: string;
  tool: string | null;
  request: string;
  response: string | null;
  /** Where the answer's bytes sit in the arena, and how many (response null). */
  off: number;
  len: number;
  built: CallEntry | null;
}

/** The arena a ring starts with at its first answer in bytes; it doubles when the live bytes need more. */
const ARENA_START = 8 * 1024;

/**
 * A ring of the latest `capacity` calls of one tenant (or of no tenant), numbered by position since the ring
 * began: an entry's id is `log_<position>` plus the ring's suffix (`_<tenant tag>`; none for calls of no
 * tenant). Slots are made as calls come and written over in place once the ring is full. An answer in bytes is
 * copied (its first CAP_BYTES at most) into the ring's arena, a circular byte buffer that grows only while the
 * bytes of the calls shown need more: once warm, recording allocates nothing and keeps nothing of an answer
 * alive, so a busy sandbox's heap does not grow with its traffic. Entries are built, and answers decoded, only
 * when the log is read; an entry once built is kept until its slot is written again.
 */
class Ring {
  /** Position p sits at p % this.capacity; slots of positions no longer shown may be empty. */
  slots: Slot[] = [];
  /** Calls recorded since the ring began: the next call's position. */
  count = 0;
  /** Position of the oldest call still shown (clear() moves it). */
  first = 0;
  private arena: Uint8Array | null = null;
  /** Where the next answer's bytes go. */
  private head = 0;
  /** No live call before this position has bytes in the arena (it only moves forward). */
  private tailPos = 0;

  constructor(
    readonly suffix: string,
    readonly capacity: number,
  ) {}

  idOf(position: number): string {
    return `log_${(position + 1).toString(36).padStart(6, '0')}${this.suffix}`;
  }

  record(call: CallRecord): void {
    const position = this.count;
    const i = position % this.capacity;
    let flags = 0;
    let request = call.request;
    if (request.length > LOG_TEXT_CAP) {
      request = cutCopy(request);
      flags |= REQUEST_CUT;
    }
    let response: string | null = null;
    let off = 0;
    let len = 0;
    if (typeof call.response === 'string') {
      response = call.response;
      // the answer's text is cut now, so an entry never holds on to the whole of it
      if (response.length > LOG_TEXT_CAP) {
        response = cutCopy(response);
        flags |= RESPONSE_CUT;
      }
    } else {
      const kept = keptBytes(call.response);
      const head = call.response.byteLength > kept ? call.response.subarray(0, kept) : call.response;
      len = head.byteLength;
      off = this.place(position, len);
      this.arena!.set(head, off);
    }
    this.count++;
    const s = this.slots[i];
    if (s === undefined) {
      this.slots[i] = {
        atMs: call.atMs,
        durationMs: call.durationMs,
        status: call.status,
        flags,
        tenantId: call.tenantId,
        api: call.api,
        method: call.method,
        path: call.path,
        tool: call.tool,
        request,
        response,
        off,
        len,
        built: null,
      };
      return;
    }
    s.atMs = call.atMs;
    s.durationMs = call.durationMs;
    s.status = call.status;
    s.flags = flags;
    s.tenantId = call.tenantId;
    s.api = call.api;
    s.method = call.method;
    s.path = call.path;
    s.tool = call.tool;
    s.request = request;
    s.response = response;
    s.off = off;
    s.len = len;
    s.built = null;
  }

  /**
   * Where `n` bytes of the call at `position` go in the arena: after the bytes of the calls still live (the
   * `capacity - 1` before it that are shown), wrapping round to the start when the oldest of them leave room
   * there, else in an arena twice as large that the live bytes are moved into. The live bytes run from the
   * oldest live call's bytes (`tail`) to `head`, wrapped round the end when `head` is not past them.
   */
  private place(position: number, n: number): number {
    const live = Math.max(this.first, position - this.capacity + 1, this.tailPos);
    // the oldest live call with bytes in the arena (an empty answer holds none)
    let tail = live;
    for (; tail < position; tail++) {
      const s = this.slots[tail % this.capacity];
      if (s !== undefined && s.response === null && s.len > 0) break;
    }
    this.tailPos = tail;
    if (this.arena === null) this.arena = new Uint8Array(Math.max(ARENA_START, 2 * n));
    if (tail === position) this.head = 0;
    const size = this.arena.length;
    if (tail === position) {
      if (n > size) this.grow(position, tail, n);
    } else {
      const tailOff = this.slots[tail % this.capacity].off;
      if (this.head > tailOff) {
        if (this.head + n > size) {
          if (n <= tailOff) this.head = 0;
          else this.grow(position, tail, n);
        }
      } else if (this.head + n > tailOff) this.grow(position, tail, n);
    }
    const off = this.head;
    this.head += n;
    return off;
  }

  /** Moves the live bytes (positions tail..position-1), in order, to the start of a larger arena. */
  private grow(position: number, tail: number, n: number): void {
    let used = 0;
    for (let p = tail; p < position; p++) {
      const s = this.slots[p % this.capacity];
      if (s.response === null) used += s.len;
    }
    let size = this.arena!.length * 2;
    while (size < used + n) size *= 2;
    const next = new Uint8Array(size);
    let at = 0;
    for (let p = tail; p < position; p++) {
      const s = this.slots[p % this.capacity];
      if (s.response !== null) continue;
      next.set(this.arena!.subarray(s.off, s.off + s.len), at);
      s.off = at;
      at += s.len;
    }
    this.arena = next;
    this.head = at;
  }

  /** Position of the oldest call shown. */
  get oldest(): number {
    return Math.max(this.first, this.count - this.capacity);
  }

  entryAt(position: number): CallEntry {
    const s = this.slots[position % this.capacity];
    if (s.built) return s.built;
    const res =
      s.response !== null
        ? { text: s.response, cut: (s.flags & RESPONSE_CUT) !== 0 }
        : capBytes(this.arena!.subarray(s.off, s.off + s.len));
    return (s.built = {
      id: this.idOf(position),
      at: new Date(s.atMs).toISOString(),
      tenantId: s.tenantId,
      api: s.api,
      method: s.method,
      path: s.path,
      tool: s.tool,
      status: s.status,
      durationMs: s.durationMs,
      requestBody: s.request,
      responseBody: res.text,
      truncated: (s.flags & REQUEST_CUT) !== 0 || res.cut,
    });
  }

  window(): { entries: CallEntry[]; base: number } {
    const base = this.oldest;
    const entries: CallEntry[] = [];
    for (let p = base; p < this.count; p++) entries.push(this.entryAt(p));
    return { entries, base };
  }

  /** The entry at a position named by an id (its suffix already checked), if still shown. */
  get(position: number): CallEntry | undefined {
    return position >= this.oldest && position < this.count ? this.entryAt(position) : undefined;
  }

  exportState(): CallLogState {
    const entries: CallLogState['entries'] = [];
    for (let p = this.oldest; p < this.count; p++) {
      const s = this.slots[p % this.capacity];
      const e = this.entryAt(p);
      entries.push({
        atMs: s.atMs,
        tenantId: e.tenantId,
        api: e.api,
        method: e.method,
        path: e.path,
        tool: e.tool,
        status: e.status,
        durationMs: e.durationMs,
        request: e.requestBody,
        response: e.responseBody,
        flags: s.flags | (e.truncated && !(s.flags & REQUEST_CUT) ? RESPONSE_CUT : 0),
      });
    }
    return { count: this.count, first: this.first, entries };
  }

  importState(state: CallLogState): void {
    const start = state.count - state.entries.length;
    this.slots = [];
    state.entries.forEach((e, i) => (this.slots[(start + i) % this.capacity] = { ...e, off: 0, len: 0, built: null }));
    this.arena = null;
    this.head = 0;
    this.tailPos = state.count;
    this.count = state.count;
    this.first = state.first;
  }
}

const LOG_ID = /^log_([0-9a-z]{6,11})(?:_([0-9a-z]+))?$/;

/** Creation order across rings: by time, then the calls of no tenant before a tenant's, tenants by id, then position. */
const beforeAcross = (a: CallEntry, b: CallEntry): boolean =>
  a.at !== b.at
    ? a.at < b.at
    : a.tenantId !== b.tenantId
      ? a.tenantId === null || (b.tenantId !== null && a.tenantId < b.tenantId)
      : a.id.length !== b.id.length
        ? a.id.length < b.id.length
        : a.id < b.id;

/** The request log: one ring for the calls of no tenant, one per tenant (made on its first call). */
export class CallLog {
  private readonly global = new Ring('', CAPACITY);
  private rings = new Map<string, Ring>();
  /** Tenant by tag, to find the ring an entry id names. */
  private byTag = new Map<string, string>();

  record(call: CallRecord): void {
    (call.tenantId === null ? this.global : this.ringOf(call.tenantId)).record(call);
  }

  private ringOf(tenantId: string): Ring {
    let r = this.rings.get(tenantId);
    if (r === undefined) {
      const tag = tagOfTenant(tenantId);
      this.rings.set(tenantId, (r = new Ring(`_${tag}`, TENANT_CAPACITY)));
      this.byTag.set(tag, tenantId);
    }
    return r;
  }

  /**
   * Entries oldest first (read only) and the position of the first one, for keyset paging: one tenant's ring
   * (null: the calls of no tenant), or, with no argument, every ring merged in creation order (by time; base 0,
   * positions then count in the merged list).
   */
  window(tenantId?: string | null): { entries: readonly CallEntry[]; base: number } {
    if (tenantId === null) return this.global.window();
    if (tenantId !== undefined) return this.rings.get(tenantId)?.window() ?? { entries: [], base: 0 };
    const all = this.global.window().entries;
    for (const r of this.rings.values()) for (const e of r.window().entries) all.push(e);
    return { entries: all.sort((a, b) => (beforeAcross(a, b) ? -1 : beforeAcross(b, a) ? 1 : 0)), base: 0 };
  }

  get(id: string): CallEntry | undefined {
    const m = LOG_ID.exec(id);
    if (!m) return undefined;
    const ring = m[2] === undefined ? this.global : this.rings.get(this.byTag.get(m[2]) ?? '');
    const position = parseInt(m[1], 36) - 1;
    if (!ring || ring.idOf(position) !== id) return undefined;
    return ring.get(position);
  }

  /** Hides every entry shown (reset): the rings go on numbering, so no id is handed out twice. */
  clear(): void {
    for (const r of [this.global, ...this.rings.values()]) {
      r.first = r.count;
      r.slots = [];
    }
  }

  /** The ring of no tenant's calls, JSON-safe (D-137). */
  exportState(): CallLogState {
    return this.global.exportState();
  }

  /** Shows exactly the exported entries, under the same ids; the next call is numbered after them. */
  importState(state: CallLogState): void {
    this.global.importState(state);
    this.rings.clear();
    this.byTag.clear();
  }

  /** A tenant's ring (null: it made no call), JSON-safe (D-147). */
  exportTenant(tenantId: string): CallLogState | null {
    return this.rings.get(tenantId)?.exportState() ?? null;
  }

  importTenant(tenantId: string, state: CallLogState | null): void {
    this.forgetTenant(tenantId);
    if (state !== null) this.ringOf(tenantId).importState(state);
  }

  forgetTenant(tenantId: string): void {
    if (this.rings.delete(tenantId)) this.byTag.delete(tagOfTenant(tenantId));
  }
}
