// The request log: the most recent API and MCP calls (method, path or tool, status, duration, and
// the first bytes of each body), the sandbox's counterpart of a payment provider's developer logs.
// Adapters append; the control API and console read. Memory is bounded twice over: at most
// CAPACITY entries (the oldest roll off) and at most BODY_CAP characters per body.
// Requirements: none of the documents (a sandbox convenience, like a payment provider's developer logs); decisions D-104.

export const CAPACITY = 2000;
export const BODY_CAP = 2048;

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
  /** True when a body was longer than BODY_CAP and was cut. */
  truncated: boolean;
}

export const capBody = (text: string): { text: string; cut: boolean } =>
  text.length > BODY_CAP ? { text: text.slice(0, BODY_CAP), cut: true } : { text, cut: false };

/**
 * How many leading bytes of a UTF-8 body decide capBody() of its text: the first BODY_CAP characters take
 * at most 3 bytes each (4 for two), and a body longer than this has more than BODY_CAP characters.
 */
export const CAP_BYTES = 3 * BODY_CAP + 3;

/** capBody() of a UTF-8 body's text, from its first CAP_BYTES bytes (a copy: the result holds nothing larger). */
export function capBytes(head: Uint8Array): { text: string; cut: boolean } {
  const text = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, CAP_BYTES)).toString('utf8');
  if (text.length <= BODY_CAP) return { text, cut: false };
  return { text: Buffer.from(text.slice(0, BODY_CAP), 'utf16le').toString('utf16le'), cut: true };
}

export class CallLog {
  private entries: CallEntry[] = [];
  /** Per entry, the first bytes of an answer not decoded yet (decoded when the log is read), or null. */
  private answers: Array<Uint8Array | null> = [];
  private undecoded = 0;
  /** Position (since start) of entries[0]: positions keep counting as old entries roll off. */
  private first = 0;
  private seq = 0;

  append(entry: Omit<CallEntry, 'id'>): CallEntry {
    return this.push(entry, null);
  }

  /**
   * Appends a call whose answer is known by its first CAP_BYTES bytes (which nothing writes to again):
   * they are decoded into responseBody, and `truncated` updated, only when the log is read.
   */
  appendAnswer(entry: Omit<CallEntry, 'id' | 'responseBody'>, head: Uint8Array): CallEntry {
    return this.push({ ...entry, responseBody: '' }, head);
  }

  private push(entry: Omit<CallEntry, 'id'>, head: Uint8Array | null): CallEntry {
    // written out, not spread: one entry per API call
    const e: CallEntry = {
      id: `log_${(++this.seq).toString(36).padStart(6, '0')}`,
      at: entry.at,
      tenantId: entry.tenantId,
      api: entry.api,
      method: entry.method,
      path: entry.path,
      tool: entry.tool,
      status: entry.status,
      durationMs: entry.durationMs,
      requestBody: entry.requestBody,
      responseBody: entry.responseBody,
      truncated: entry.truncated,
    };
    this.entries.push(e);
    this.answers.push(head);
    if (head) this.undecoded++;
    // drop in batches, so appending stays O(1) amortized
    if (this.entries.length >= 2 * CAPACITY) {
      const drop = this.entries.length - CAPACITY;
      this.undecoded -= this.answers.slice(0, drop).filter((a) => a !== null).length;
      this.entries = this.entries.slice(drop);
      this.answers = this.answers.slice(drop);
      this.first += drop;
    }
    return e;
  }

  private decodeAll(): void {
    if (this.undecoded === 0) return;
    for (let i = 0; i < this.answers.length; i++) {
      const head = this.answers[i];
      if (head === null) continue;
      const res = capBytes(head);
      this.entries[i].responseBody = res.text;
      this.entries[i].truncated ||= res.cut;
      this.answers[i] = null;
    }
    this.undecoded = 0;
  }

  /** Entries oldest first (read only) and the position of the first one, for keyset paging. */
  window(): { entries: readonly CallEntry[]; base: number } {
    this.decodeAll();
    const extra = Math.max(0, this.entries.length - CAPACITY);
    return { entries: extra ? this.entries.slice(extra) : this.entries, base: this.first + extra };
  }

  get(id: string): CallEntry | undefined {
    return this.window().entries.find((e) => e.id === id);
  }

  clear(): void {
    this.first += this.entries.length;
    this.entries = [];
    this.answers = [];
    this.undecoded = 0;
  }
}
