// The request log: the most recent API and MCP calls (method, path or tool, status, duration, and
// the first bytes of each body), the sandbox's counterpart of a payment provider's developer logs.
// Adapters record; the control API and console read. Memory is bounded twice over: at most CAPACITY
// entries (the oldest roll off), and per entry at most LOG_TEXT_CAP characters of text or CAP_BYTES bytes
// of an answer per body.
// Requirements: none of the documents (a sandbox convenience, like a payment provider's developer logs); decisions D-104.

export const CAPACITY = 2000;
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

/** The log in a snapshot: the calls shown, each with its texts as shown and whether they were cut (D-136). */
export interface CallLogState {
  count: number;
  first: number;
  entries: (Omit<CallRecord, 'response'> & { response: string; flags: number })[];
}

const REQUEST_CUT = 1;
const RESPONSE_CUT = 2;

const idOf = (position: number) => `log_${(position + 1).toString(36).padStart(6, '0')}`;

/**
 * The log: a ring of the latest CAPACITY calls, kept column by column as they were handed over. An answer
 * in bytes is copied, up to its first CAP_BYTES, into its slot of one byte ring made once: recording
 * allocates nothing and keeps nothing of the answer alive, so a busy sandbox's heap does not grow with its
 * traffic. Entries are built, and answers decoded, only when the log is read; an entry once built is kept
 * until its slot is written again.
 */
export class CallLog {
  private readonly at = new Float64Array(CAPACITY);
  private readonly duration = new Float64Array(CAPACITY);
  private readonly status = new Uint16Array(CAPACITY);
  private readonly flags = new Uint8Array(CAPACITY);
  private readonly tenant: Array<string | null> = new Array(CAPACITY).fill(null);
  private readonly api: Array<'rest' | 'mcp'> = new Array(CAPACITY).fill('rest');
  private readonly method: string[] = new Array(CAPACITY).fill('');
  private readonly path: string[] = new Array(CAPACITY).fill('');
  private readonly tool: Array<string | null> = new Array(CAPACITY).fill(null);
  private readonly request: string[] = new Array(CAPACITY).fill('');
  /** The answer's text, or null when its bytes are in the byte ring. */
  private readonly response: Array<string | null> = new Array(CAPACITY).fill('');
  private readonly headLength = new Uint16Array(CAPACITY);
  /** CAP_BYTES per slot, made at the first answer in bytes. */
  private heads: Uint8Array | null = null;
  private readonly built: Array<CallEntry | null> = new Array(CAPACITY).fill(null);
  /** Calls recorded since start: the next call's position. */
  private count = 0;
  /** Position of the oldest call still shown (clear() moves it). */
  private first = 0;

  record(call: CallRecord): void {
    const slot = this.count++ % CAPACITY;
    let flags = 0;
    let request = call.request;
    if (request.length > LOG_TEXT_CAP) {
      request = cutCopy(request);
      flags |= REQUEST_CUT;
    }
    let response: string | null;
    if (typeof call.response === 'string') {
      response = call.response;
      // the answer's text is cut now, so an entry never holds on to the whole of it
      if (response.length > LOG_TEXT_CAP) {
        response = cutCopy(response);
        flags |= RESPONSE_CUT;
      }
    } else {
      response = null;
      const head = call.response.byteLength > CAP_BYTES ? call.response.subarray(0, CAP_BYTES) : call.response;
      (this.heads ??= new Uint8Array(CAPACITY * CAP_BYTES)).set(head, slot * CAP_BYTES);
      this.headLength[slot] = head.byteLength;
    }
    this.at[slot] = call.atMs;
    this.duration[slot] = call.durationMs;
    this.status[slot] = call.status;
    this.flags[slot] = flags;
    this.tenant[slot] = call.tenantId;
    this.api[slot] = call.api;
    this.method[slot] = call.method;
    this.path[slot] = call.path;
    this.tool[slot] = call.tool;
    this.request[slot] = request;
    this.response[slot] = response;
    this.built[slot] = null;
  }

  /** Position of the oldest call shown. */
  private get oldest(): number {
    return Math.max(this.first, this.count - CAPACITY);
  }

  private entryAt(position: number): CallEntry {
    const slot = position % CAPACITY;
    const known = this.built[slot];
    if (known) return known;
    const kept = this.response[slot];
    const at = slot * CAP_BYTES;
    const res =
      kept !== null
        ? { text: kept, cut: (this.flags[slot] & RESPONSE_CUT) !== 0 }
        : capBytes(this.heads!.subarray(at, at + this.headLength[slot]));
    const e: CallEntry = {
      id: idOf(position),
      at: new Date(this.at[slot]).toISOString(),
      tenantId: this.tenant[slot],
      api: this.api[slot],
      method: this.method[slot],
      path: this.path[slot],
      tool: this.tool[slot],
      status: this.status[slot],
      durationMs: this.duration[slot],
      requestBody: this.request[slot],
      responseBody: res.text,
      truncated: (this.flags[slot] & REQUEST_CUT) !== 0 || res.cut,
    };
    this.built[slot] = e;
    return e;
  }

  /** Entries oldest first (read only) and the position of the first one, for keyset paging. */
  window(): { entries: readonly CallEntry[]; base: number } {
    const base = this.oldest;
    const entries: CallEntry[] = [];
    for (let p = base; p < this.count; p++) entries.push(this.entryAt(p));
    return { entries, base };
  }

  get(id: string): CallEntry | undefined {
    if (!/^log_[0-9a-z]{6,11}$/.test(id)) return undefined;
    const position = parseInt(id.slice(4), 36) - 1;
    if (!(position >= this.oldest && position < this.count) || idOf(position) !== id) return undefined;
    return this.entryAt(position);
  }

  clear(): void {
    this.first = this.count;
  }

  /** The entries shown (oldest first) with the positions that number them, JSON-safe (D-136). */
  exportState(): CallLogState {
    const entries: CallLogState['entries'] = [];
    for (let p = this.oldest; p < this.count; p++) {
      const slot = p % CAPACITY;
      const e = this.entryAt(p);
      entries.push({
        atMs: this.at[slot],
        tenantId: e.tenantId,
        api: e.api,
        method: e.method,
        path: e.path,
        tool: e.tool,
        status: e.status,
        durationMs: e.durationMs,
        request: e.requestBody,
        response: e.responseBody,
        flags: this.flags[slot] | (e.truncated && !(this.flags[slot] & REQUEST_CUT) ? RESPONSE_CUT : 0),
      });
    }
    return { count: this.count, first: this.first, entries };
  }

  /** Shows exactly the exported entries, under the same ids; the next call is numbered after them. */
  importState(state: CallLogState): void {
    const start = state.count - state.entries.length;
    state.entries.forEach((e, i) => {
      const slot = (start + i) % CAPACITY;
      this.at[slot] = e.atMs;
      this.duration[slot] = e.durationMs;
      this.status[slot] = e.status;
      this.flags[slot] = e.flags;
      this.tenant[slot] = e.tenantId;
      this.api[slot] = e.api;
      this.method[slot] = e.method;
      this.path[slot] = e.path;
      this.tool[slot] = e.tool;
      this.request[slot] = e.request;
      this.response[slot] = e.response;
      this.built[slot] = null;
    });
    this.count = state.count;
    this.first = state.first;
  }
}
