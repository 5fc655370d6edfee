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

export class CallLog {
  private entries: CallEntry[] = [];
  /** Position (since start) of entries[0]: positions keep counting as old entries roll off. */
  private first = 0;
  private seq = 0;

  append(entry: Omit<CallEntry, 'id'>): CallEntry {
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
    // drop in batches, so appending stays O(1) amortized
    if (this.entries.length >= 2 * CAPACITY) {
      const drop = this.entries.length - CAPACITY;
      this.entries = this.entries.slice(drop);
      this.first += drop;
    }
    return e;
  }

  /** Entries oldest first (read only) and the position of the first one, for keyset paging. */
  window(): { entries: readonly CallEntry[]; base: number } {
    const extra = Math.max(0, this.entries.length - CAPACITY);
    return { entries: extra ? this.entries.slice(extra) : this.entries, base: this.first + extra };
  }

  get(id: string): CallEntry | undefined {
    return this.window().entries.find((e) => e.id === id);
  }

  clear(): void {
    this.first += this.entries.length;
    this.entries = [];
  }
}
