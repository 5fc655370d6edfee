// One tenant's ledger rows, stored by column in fixed-size chunks: sequence and time in Float64Arrays,
// both states packed in one byte, the actor as an index into a shared table, the request id and the
// payload (a frozen object shared by the rows that have the same one) as references. A row costs
// about 40 bytes however many there are, appending never copies earlier rows, and a row's AuditEvent
// JSON is built by concatenating pieces that were mostly encoded once.
// Requirements: SCR-LEDGER-1, SCR-LEDGER-2, SCR-LEDGER-3, SCR-LEDGER-4, SCR-LEDGER-5, SCR-AUDIT-3; decisions D-21.

import { tagOfTenant } from '../rng.js';
import type { LedgerPayload } from './ledger.js';
import { SCREENING_STATES, type ScreeningState } from './types.js';

const BITS = 12;
const CHUNK = 1 << BITS;
const MASK = CHUNK - 1;
const FIRST_CAPACITY = 16;
/** `fromState` of a row that starts a request. */
const NO_STATE = 15;

const STATE_CODE = new Map<ScreeningState, number>(SCREENING_STATES.map((s, i) => [s, i]));
const STATE_JSON = SCREENING_STATES.map((s) => JSON.stringify(s));

/** The JSON text of each payload (frozen and shared by the rows that have it): a few hundred for 80,000 rows. */
const payloadTexts = new WeakMap<LedgerPayload, string>();
const payloadJson = (payload: LedgerPayload | null): string => {
  if (payload === null) return 'null';
  let text = payloadTexts.get(payload);
  if (text === undefined) payloadTexts.set(payload, (text = JSON.stringify(payload)));
  return text;
};

/** Actors are few (the system and each reviewer): stored once, referred to by index. */
export class ActorTable {
  private readonly index = new Map<string, number>();
  readonly names: string[] = [];
  readonly json: string[] = [];

  idOf(actor: string): number {
    let i = this.index.get(actor);
    if (i === undefined) {
      i = this.names.length;
      this.index.set(actor, i);
      this.names.push(actor);
      this.json.push(JSON.stringify(actor));
    }
    return i;
  }
}

class Chunk {
  seq: Float64Array;
  at: Float64Array;
  /** fromState code << 4 | toState code */
  states: Uint8Array;
  actor: Int32Array;
  /** 1 + index of the next row of the same request; 0 for none. */
  next: Int32Array;
  readonly requestId: string[] = [];
  readonly payload: (LedgerPayload | null)[] = [];

  constructor(capacity: number) {
    this.seq = new Float64Array(capacity);
    this.at = new Float64Array(capacity);
    this.states = new Uint8Array(capacity);
    this.actor = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
  }

  get capacity(): number {
    return this.seq.length;
  }

  /** Small tenants start small; a chunk doubles until it holds CHUNK rows. */
  grow(): void {
    const n = Math.min(CHUNK, this.capacity * 2);
    const copy = <T extends Float64Array | Uint8Array | Int32Array>(a: T, make: new (n: number) => T): T => {
      const b = new make(n);
      b.set(a);
      return b;
    };
    this.seq = copy(this.seq, Float64Array);
    this.at = copy(this.at, Float64Array);
    this.states = copy(this.states, Uint8Array);
    this.actor = copy(this.actor, Int32Array);
    this.next = copy(this.next, Int32Array);
  }
}

// ISO times the way Date#toISOString writes them, without a Date per row: neighbouring rows share
// their minute, so only the seconds and milliseconds are new.
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const YEAR_10000 = 253_402_300_800_000;
let minuteOf = NaN;
let minutePrefix = '';
/** `new Date(ms).toISOString()`, faster. */
export function isoOf(ms: number): string {
  // outside years 1970..9999 (or a fractional ms) toISOString's own rules apply
  if (!(ms >= 0 && ms < YEAR_10000 && Number.isInteger(ms))) return new Date(ms).toISOString();
  const minute = Math.floor(ms / 60_000);
  if (minute !== minuteOf) {
    minutePrefix = new Date(minute * 60_000).toISOString().slice(0, 17);
    minuteOf = minute;
  }
  const inMinute = ms - minute * 60_000;
  const second = Math.floor(inMinute / 1000);
  return `${minutePrefix}${TWO_DIGITS[second]}.${THREE_DIGITS[inMinute - second * 1000]}Z`;
}

/** An event's id: its number in its tenant's sequence and the tenant's tag (`_<tag>`, D-147). */
export const eventIdOf = (seq: number, suffix: string) => `evt_${seq.toString(36).padStart(8, '0')}${suffix}`;

export class TenantRows {
  private readonly chunks: Chunk[] = [];
  private count = 0;
  /** What every event id of the tenant ends in: its tag (D-147). */
  readonly suffix: string;

  constructor(
    readonly tenantId: string,
    /** The ledger's table of actors the rows name theirs by (a reset makes a new one). */
    readonly actors: ActorTable,
    /** The number of the tenant's latest row: its sequence goes on from here (D-147). */
    public seq: number,
  ) {
    this.suffix = `_${tagOfTenant(tenantId)}`;
  }

  get length(): number {
    return this.count;
  }

  /** Appends a row; `previous` is the index of the request's previous row (or -1), to chain them. */
  push(
    seq: number,
    requestId: string,
    from: ScreeningState | null,
    to: ScreeningState,
    actor: string,
    payload: LedgerPayload | null,
    at: number,
    previous: number,
  ): number {
    const i = this.count;
    let c = this.chunks[i >>> BITS];
    if (!c) this.chunks.push((c = new Chunk(this.chunks.length === 0 ? FIRST_CAPACITY : CHUNK)));
    const o = i & MASK;
    if (o === c.capacity) c.grow();
    c.seq[o] = seq;
    c.at[o] = at;
    c.states[o] = ((from === null ? NO_STATE : STATE_CODE.get(from)!) << 4) | STATE_CODE.get(to)!;
    c.actor[o] = this.actors.idOf(actor);
    c.next[o] = 0;
    c.requestId[o] = requestId;
    c.payload[o] = payload;
    if (previous >= 0) this.chunks[previous >>> BITS].next[previous & MASK] = i + 1;
    this.count++;
    return i;
  }

  seqAt(i: number): number {
    return this.chunks[i >>> BITS].seq[i & MASK];
  }

  atOf(i: number): number {
    return this.chunks[i >>> BITS].at[i & MASK];
  }

  requestIdAt(i: number): string {
    return this.chunks[i >>> BITS].requestId[i & MASK];
  }

  fromStateAt(i: number): ScreeningState | null {
    const code = this.chunks[i >>> BITS].states[i & MASK] >> 4;
    return code === NO_STATE ? null : SCREENING_STATES[code];
  }

  toStateAt(i: number): ScreeningState {
    return SCREENING_STATES[this.chunks[i >>> BITS].states[i & MASK] & 15];
  }

  actorAt(i: number): string {
    return this.actors.names[this.chunks[i >>> BITS].actor[i & MASK]];
  }

  payloadAt(i: number): LedgerPayload | null {
    return this.chunks[i >>> BITS].payload[i & MASK];
  }

  /** Index of the next row of the same request, or -1. */
  nextOfRequest(i: number): number {
    return this.chunks[i >>> BITS].next[i & MASK] - 1;
  }

  /** The row as the AuditEvent JSON text, exactly as JSON.stringify(toAuditEvent(row)) writes it. */
  json(i: number): string {
    const c = this.chunks[i >>> BITS];
    const o = i & MASK;
    const states = c.states[o];
    const from = states >> 4;
    const payload = c.payload[o];
    return (
      `{"id":"${eventIdOf(c.seq[o], this.suffix)}","requestId":${JSON.stringify(c.requestId[o])},"fromState":${from === NO_STATE ? 'null' : STATE_JSON[from]}` +
      `,"toState":${STATE_JSON[states & 15]},"actor":${this.actors.json[c.actor[o]]},"payload":${payloadJson(payload)},"createdAt":"${isoOf(c.at[o])}"}`
    );
  }

  /**
   * The row as a snapshot keeps it (ledger.ts's LedgerRowState: sequence, request id, both states, actor, payload,
   * time), exactly as JSON.stringify writes that tuple: a busy tenant's 80,000 rows are written at every snapshot,
   * and this takes a fraction of turning each tuple into JSON (D-161).
   */
  stateJson(i: number): string {
    const c = this.chunks[i >>> BITS];
    const o = i & MASK;
    const states = c.states[o];
    const from = states >> 4;
    return `[${c.seq[o]},${JSON.stringify(c.requestId[o])},${from === NO_STATE ? 'null' : STATE_JSON[from]},${STATE_JSON[states & 15]},${this.actors.json[c.actor[o]]},${payloadJson(c.payload[o])},${c.at[o]}]`;
  }

  /** Rows [start, end) as AuditEvent JSON texts joined by commas. */
  jsonOfRun(start: number, end: number): string {
    const out: string[] = [];
    for (let i = start; i < end; i++) out.push(this.json(i));
    return out.join(',');
  }
}
