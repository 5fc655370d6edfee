// Screening requests and their append-only audit ledger, with keyset pages over it.
import { randomUUID } from 'node:crypto';
import { fail } from './http.js';
import type { CandidateBlob, JobSpec } from './screening-schema.js';
import { Switches } from './violations.js';

export type State =
  'received' | 'scored' | 'pending_review' | 'approved' | 'rejected' | 'edited' | 'delivered' | 'failed';

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

/** A cursor is a position; `tenant` (a planted violation, cursor-carries-tenant) also names the tenant whose rows it pages. */
export const encodeCursor = (seq: number, tenant?: string) =>
  Buffer.from(JSON.stringify({ v: 1, after: seq, ...(tenant ? { t: tenant } : {}) })).toString('base64url');

export function decodeCursor(cursor: string): number {
  return decodeCursorWithTenant(cursor).after;
}

export function decodeCursorWithTenant(cursor: string): { after: number; tenant?: string } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      v?: unknown;
      after?: unknown;
      t?: unknown;
    };
    if (parsed.v === 1 && Number.isSafeInteger(parsed.after) && (parsed.after as number) >= 0) {
      return { after: parsed.after as number, ...(typeof parsed.t === 'string' ? { tenant: parsed.t } : {}) };
    }
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

  constructor(private readonly v: Switches = new Switches()) {}

  findByKey(tenantId: string, key: string): ScreeningRequest | undefined {
    return this.byIdempotency.get(`${tenantId}\u0000${key}`);
  }

  /** The request of any tenant that used `key` (only the planted violations idem-global and idem-cross-tenant-refused ask). */
  findByKeyAnyTenant(key: string): ScreeningRequest | undefined {
    for (const r of this.requests.values()) if (r.idempotencyKey === key) return r;
    return undefined;
  }

  create(tenantId: string, idempotencyKey: string, candidate: CandidateBlob, jobSpec: JobSpec): ScreeningRequest {
    const r: ScreeningRequest = {
      id: `${this.v.on('request-id-bare') ? '' : 'scr_'}${randomUUID()}`,
      tenantId,
      idempotencyKey,
      state: 'received',
      candidate,
      jobSpec,
    };
    this.requests.set(r.id, r);
    this.byIdempotency.set(`${tenantId}\u0000${idempotencyKey}`, r);
    this.append(r, null, 'received', 'system', { idempotencyKey });
    return r;
  }

  /** Moves a request and records the transition, unless `silent` (a planted violation) drops the row. */
  move(r: ScreeningRequest, to: State, actor: string, payload?: unknown, silent = false): void {
    const from = this.v.on('ledger-from-stale') && to === 'pending_review' ? 'received' : r.state;
    r.state = to;
    if (!silent) this.append(r, from, to, actor, payload);
    if (['approved', 'rejected', 'edited', 'delivered'].includes(to)) this.afterDecision(r, to);
  }

  /** Planted violations of the append-only ledger: rows changed or removed once a request is decided. */
  private afterDecision(r: ScreeningRequest, to: State): void {
    if (this.v.on('ledger-rewrites-intake')) {
      const intake = this.rows.find((row) => row.requestId === r.id && row.toState === 'received');
      if (intake) intake.payload = { idempotencyKey: r.idempotencyKey, outcome: to };
    }
    if (this.v.on('ledger-drops-scoring')) {
      const i = this.rows.findIndex((row) => row.requestId === r.id && row.toState === 'scored');
      if (i >= 0) this.rows.splice(i, 1);
    }
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
