// Screening requests and their append-only audit ledger, with keyset pages over it.
import { randomUUID } from 'node:crypto';
import { fail } from './http.js';
import type { CandidateBlob, JobSpec } from './screening-schema.js';

export type State = 'received' | 'scored' | 'pending_review' | 'approved' | 'rejected' | 'edited' | 'delivered' | 'failed';

export interface ScreeningRequest {
  id: string;
  tenantId: string;
  idempotencyKey: string;
  state: State;
  candidate: CandidateBlob;
  jobSpec: JobSpec;
  pendingSince?: number;
}

export interface AuditRow {
  seq: number;
  id: string;
  tenantId: string;
  requestId: string;
  fromState: State | null;
  toState: State;
  actor: string;
  payload?: unknown;
  createdAt: string;
}

export interface AuditQuery {
  since?: number;
  after?: number;
  limit: number;
  allTenants?: boolean;
  sinceOnCursor?: boolean;
  repeatLast?: boolean;
}

export const encodeCursor = (seq: number) => Buffer.from(JSON.stringify({ v: 1, after: seq })).toString('base64url');

export function decodeCursor(cursor: string): number {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; after?: unknown };
    if (parsed.v === 1 && Number.isSafeInteger(parsed.after) && (parsed.after as number) >= 0) return parsed.after as number;
  } catch {
    /* falls through to the refusal below */
  }
  throw fail(400, 'cursor: not a cursor issued by this service');
}

export class ScreeningStore {
  readonly requests = new Map<string, ScreeningRequest>();
  private readonly byIdempotency = new Map<string, ScreeningRequest>();
  private readonly rows: AuditRow[] = [];
  private seq = 0;

  findByKey(tenantId: string, key: string): ScreeningRequest | undefined {
    return this.byIdempotency.get(`${tenantId}\u0000${key}`);
  }

  create(tenantId: string, idempotencyKey: string, candidate: CandidateBlob, jobSpec: JobSpec): ScreeningRequest {
    const r: ScreeningRequest = { id: `scr_${randomUUID()}`, tenantId, idempotencyKey, state: 'received', candidate, jobSpec };
    this.requests.set(r.id, r);
    this.byIdempotency.set(`${tenantId}\u0000${idempotencyKey}`, r);
    this.append(r, null, 'received', 'system', { idempotencyKey });
    return r;
  }

  /** Moves a request and records the transition, unless `silent` (a planted violation) drops the row. */
  move(r: ScreeningRequest, to: State, actor: string, payload?: unknown, silent = false): void {
    const from = r.state;
    r.state = to;
    if (!silent) this.append(r, from, to, actor, payload);
  }

  private append(r: ScreeningRequest, from: State | null, to: State, actor: string, payload?: unknown): void {
    const seq = ++this.seq;
    this.rows.push({
      seq,
      id: `led-${seq.toString(36).padStart(6, '0')}`,
      tenantId: r.tenantId,
      requestId: r.id,
      fromState: from,
      toState: to,
      actor,
      ...(payload === undefined ? {} : { payload }),
      createdAt: new Date().toISOString(),
    });
  }

  page(tenantId: string, q: AuditQuery): { events: AuditRow[]; nextCursor: string | null } {
    const useSince = q.since !== undefined && (q.after === undefined || q.sinceOnCursor);
    const rows = this.rows.filter(
      (row) =>
        (q.allTenants || row.tenantId === tenantId) &&
        (q.after === undefined || row.seq > q.after) &&
        (!useSince || Date.parse(row.createdAt) > q.since!),
    );
    const events = rows.slice(0, q.limit);
    let nextCursor: string | null = null;
    if (rows.length > events.length) {
      const anchor = q.repeatLast && events.length > 1 ? events[events.length - 2] : events[events.length - 1];
      nextCursor = encodeCursor(anchor.seq);
    }
    return { events, nextCursor };
  }
}

export const exportRow = ({ seq: _seq, tenantId: _t, ...row }: AuditRow) => row;
