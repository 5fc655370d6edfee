// A screening request as the store keeps it: compact, because a sandbox may hold hundreds of
// thousands. The candidate is kept as a short JSON text, the job spec is shared with every request that
// sent the same one, the ledger rows are a chain in the tenant's row store, and the score, computed once
// by the pipeline, is kept as the JSON text of its template (shared between requests that earned the same
// one) plus the candidate's name that fills it.
// Requirements: SCR-LEDGER-2, SCR-HOOK-4 (the kept ScoreResultV1); decisions D-02.

import type { TimerHandle } from '../clock.js';
import { copyData } from '../copy.js';
import { timeHi, timeLo, timeOf, timeOfSet } from '../packedTime.js';
import { flatten } from './flatten.js';
import type { StoredJobSpec } from './jobSpecs.js';
import { type LedgerRow, type RowChain, rowsOfChain } from './ledger.js';
import { subjectOf, withSubject } from './scorer.js';
import type { TenantRows } from './tenantRows.js';
import type {
  CandidateBlob,
  ReviewDecisionV1,
  ReviewEdits,
  ScoreResultV1,
  ScreeningRequest,
  ScreeningState,
  Submission,
} from './types.js';

// A candidate is kept as a JSON array of its field values in a fixed order (the keys are the same for
// every candidate, so they are not stored). Absent fields are null; a submission never holds a null.
const FIELDS = {
  resume_ref: ['resumeRef', 'filename'],
  structured: ['fullName', 'email', 'phone', 'summary', 'skills', 'experienceYears'],
} as const;
const KINDS = ['resume_ref', 'structured'] as const;

export function encodeCandidate(c: CandidateBlob): string {
  const fields: readonly string[] = FIELDS[c.kind];
  const values: unknown[] = [
    KINDS.indexOf(c.kind),
    ...fields.map((f) => (c as unknown as Record<string, unknown>)[f] ?? null),
  ];
  while (values.at(-1) === null) values.pop();
  return flatten(JSON.stringify(values));
}

/** The candidate, its keys in the contract's order. */
export function decodeCandidate(text: string): CandidateBlob {
  const [code, ...values] = JSON.parse(text) as [number, ...unknown[]];
  const kind = KINDS[code];
  const out: Record<string, unknown> = { kind };
  FIELDS[kind].forEach((f, i) => {
    if (values[i] !== undefined && values[i] !== null) out[f] = values[i];
  });
  return out as unknown as CandidateBlob;
}

/** A request as a snapshot keeps it: its fields and texts, its place in its tenant's ledger rows (D-137). */
export interface StoredRequestState {
  id: string;
  idempotencyKey: string;
  createdAt: number;
  candidate: string;
  jobSpec: string;
  state: ScreeningState;
  decision: ReviewDecisionV1 | null;
  edits: ReviewEdits | null;
  queuedForReviewAt: number | null;
  firstRow: number;
  lastRow: number;
  scoreText: string | null;
  scoreName: string | null;
}

export class StoredRequest implements ScreeningRequest, RowChain {
  // every field a snapshot keeps that can change is set through an accessor that gives the request a new stamp
  private _state: ScreeningState = 'received';
  private _decision: ReviewDecisionV1 | null = null;
  private _edits: ReviewEdits | null = null;
  // the times, each as two small integers (D-199)
  private queuedHi = timeHi(null);
  private queuedLo = timeLo(null);
  private readonly createdHi: number;
  private readonly createdLo: number;
  private _firstRow = -1;
  private _lastRow = -1;
  /** JSON text of the model's result template (shared), once scored, and the name that fills it (null: the
   * structured candidate's own fullName). */
  private scoreText: string | null = null;
  private scoreName: string | null = null;
  /**
   * A number no other request has, and this one had at no other time: new whenever a field a snapshot keeps changes
   * (a snapshot writer keeps the text of a block of requests while their stamps are the same, D-161, D-198).
   */
  private _stamp = nextStamp();
  /** The pending review-window timer. */
  expiry: TimerHandle | null = null;
  /** The requests made before this one (its place among them), for the copies taken before it existed. */
  private readonly born = RequestCopy.madeSoFar();

  constructor(
    readonly id: string,
    readonly idempotencyKey: string,
    createdAt: number,
    /** The tenant's ledger rows, which hold this request's chain. */
    readonly store: TenantRows,
    /** encodeCandidate() of the submitted candidate. */
    private readonly candidateText: string,
    readonly job: StoredJobSpec,
  ) {
    this.createdHi = timeHi(createdAt);
    this.createdLo = timeLo(createdAt);
  }

  get createdAt(): number {
    return timeOfSet(this.createdHi, this.createdLo);
  }

  get tenantId(): string {
    return this.store.tenantId;
  }

  get state(): ScreeningState {
    return this._state;
  }
  set state(v: ScreeningState) {
    this.changing();
    this._state = v;
  }
  get decision(): ReviewDecisionV1 | null {
    return this._decision;
  }
  set decision(v: ReviewDecisionV1 | null) {
    this.changing();
    this._decision = v;
  }
  get edits(): ReviewEdits | null {
    return this._edits;
  }
  set edits(v: ReviewEdits | null) {
    this.changing();
    this._edits = v;
  }
  get queuedForReviewAt(): number | null {
    return timeOf(this.queuedHi, this.queuedLo);
  }
  set queuedForReviewAt(v: number | null) {
    this.changing();
    this.queuedHi = timeHi(v);
    this.queuedLo = timeLo(v);
  }
  get firstRow(): number {
    return this._firstRow;
  }
  set firstRow(v: number) {
    this.changing();
    this._firstRow = v;
  }
  get lastRow(): number {
    return this._lastRow;
  }
  set lastRow(v: number) {
    this.changing();
    this._lastRow = v;
  }

  /** A fresh copy of the candidate as submitted. */
  candidate(): CandidateBlob {
    return decodeCandidate(this.candidateText);
  }

  get submission(): Submission {
    return { idempotencyKey: this.idempotencyKey, candidate: this.candidate(), jobSpec: this.job.spec() };
  }

  /**
   * Keeps the model's result: the JSON text of its template (see scorer.ts) and the candidate name that
   * fills it, or null to take the structured candidate's fullName (which the request keeps anyway).
   */
  keepScore(templateJson: string, name: string | null): void {
    this.changing();
    this.scoreText = templateJson;
    this.scoreName = name;
  }

  get score(): ScoreResultV1 | null {
    if (this.scoreText === null) return null;
    const c = this.scoreName === null ? this.candidate() : null;
    const name = this.scoreName ?? (c?.kind === 'structured' ? c.fullName : '');
    return withSubject(JSON.parse(this.scoreText) as ScoreResultV1, subjectOf(name));
  }

  /**
   * Everything but the expiry timer, which its service re-arms from the clock's timers on import. A copy: the
   * decision and edits (the only fields that are not strings or numbers) are copied, the rest are values.
   */
  exportState(): StoredRequestState {
    return {
      id: this.id,
      idempotencyKey: this.idempotencyKey,
      createdAt: this.createdAt,
      candidate: this.candidateText,
      jobSpec: this.job.json,
      state: this.state,
      decision: copyData(this.decision),
      edits: copyData(this.edits),
      queuedForReviewAt: this.queuedForReviewAt,
      firstRow: this.firstRow,
      lastRow: this.lastRow,
      scoreText: this.scoreText,
      scoreName: this.scoreName,
    };
  }

  get stamp(): number {
    return this._stamp;
  }

  /** The JSON text of the model's result template, once scored (shared between requests that earned the same). */
  get scoreTemplate(): string | null {
    return this.scoreText;
  }

  /**
   * Before any field a snapshot keeps changes: each open copy that holds this request keeps its export first, then
   * the request takes a new stamp.
   */
  private changing(): void {
    if (RequestCopy.anyOpen()) RequestCopy.keep(this, this.born);
    this._stamp = nextStamp();
  }

  /** The request exported as `s`, its rows in `store`, its job spec the shared `job`. */
  static fromState(s: StoredRequestState, store: TenantRows, job: StoredJobSpec): StoredRequest {
    const req = new StoredRequest(s.id, s.idempotencyKey, s.createdAt, store, s.candidate, job);
    req.state = s.state;
    req.decision = structuredClone(s.decision);
    req.edits = structuredClone(s.edits);
    req.queuedForReviewAt = s.queuedForReviewAt;
    req.firstRow = s.firstRow;
    req.lastRow = s.lastRow;
    req.scoreText = s.scoreText;
    req.scoreName = s.scoreName;
    return req;
  }

  get rows(): LedgerRow[] {
    return rowsOfChain(this.store, this);
  }
}

let stamps = 0;
/** A request's next stamp: a counter of every request made and changed (a number far beyond any run's count). */
const nextStamp = (): number => ++stamps;

/** A request as a copy kept it before it changed: its export, and its stamp then. */
interface Before {
  state: Readonly<StoredRequestState>;
  stamp: number;
}

/**
 * Requests as they were when a lazy export listed them (D-167), without making each one's export then: the list
 * takes the requests, and the export of each is made when the list is read. A request that changes before it is
 * read gives each copy of its tenant open since before the change its export as it was (`changing()` keeps it
 * first), so the copy reads as the state at the moment it was taken. A copy closes once all its requests were read
 * or passed over (a writer that kept the text of their block, D-161), or when its list is collected. Nothing of a
 * request is kept between copies but its stamp (D-198): an export is made for a copy that reads it and dropped with
 * the copy.
 */
export class RequestCopy {
  /** The copies not yet read whole, by tenant: a change looks only at its own tenant's. */
  private static readonly open = new Map<string, Set<RequestCopy>>();
  private static made = 0;
  private static readonly collected = new FinalizationRegistry<RequestCopy>((copy) => copy.close());
  private readonly before = new Map<StoredRequest, Before>();
  /** Requests made before this copy was taken: only those can be in it. */
  private readonly upTo = RequestCopy.made;
  /** Each request's export once read; null: passed over without its export. */
  private readonly states: (Readonly<StoredRequestState> | null | undefined)[];
  private unread: number;

  static madeSoFar(): number {
    return RequestCopy.made++;
  }

  /** Whether any copy is open (a change costs this check alone while none is). */
  static anyOpen(): boolean {
    return RequestCopy.open.size > 0;
  }

  /** The copies not yet read whole. */
  static openCopies(): RequestCopy[] {
    return [...RequestCopy.open.values()].flatMap((copies) => [...copies]);
  }

  /** Called by a request about to change: its tenant's copies that may hold it keep its export and stamp as they are. */
  static keep(request: StoredRequest, born: number): void {
    let before: Before | undefined;
    for (const copy of RequestCopy.open.get(request.tenantId) ?? [])
      if (born < copy.upTo && !copy.before.has(request))
        copy.before.set(request, (before ??= { state: Object.freeze(request.exportState()), stamp: request.stamp }));
  }

  /** A copy of `requests` (of `tenantId`) as they are now, open until read whole or until `closeWith`'s owner goes. */
  constructor(
    private readonly tenantId: string,
    private readonly requests: readonly StoredRequest[],
  ) {
    this.states = new Array<Readonly<StoredRequestState> | null | undefined>(requests.length);
    this.unread = requests.length;
    if (!this.unread) return;
    const open = RequestCopy.open.get(tenantId);
    if (open) open.add(this);
    else RequestCopy.open.set(tenantId, new Set([this]));
  }

  /** Closes the copy once `owner` (the list that reads it) is collected, if it was not read whole before. */
  closeWith(owner: object): void {
    if (this.unread) RequestCopy.collected.register(owner, this, this);
  }

  /** The i-th request's export as it was when the copy was taken (made now, unless it changed since). */
  at(i: number): Readonly<StoredRequestState> {
    let s = this.states[i];
    if (s === undefined || s === null) {
      const r = this.requests[i];
      s = this.before.get(r)?.state ?? Object.freeze(r.exportState());
      if (this.states[i] === undefined && --this.unread === 0) this.close();
      this.states[i] = s;
    }
    return s;
  }

  /**
   * What the i-th request's text depends on, as it was when the copy was taken, pushed on `into`: its stamp and the
   * numbers `textNumber` gives its job spec's text and its score's (-1: not scored). Makes no export.
   */
  tokenInto(i: number, textNumber: (text: string) => number, into: unknown[]): void {
    const r = this.requests[i];
    const b = this.before.get(r);
    const score = b ? b.state.scoreText : r.scoreTemplate;
    into.push(
      b ? b.stamp : r.stamp,
      textNumber(b ? b.state.jobSpec : r.job.json),
      score === null ? -1 : textNumber(score),
    );
  }

  /** The requests from `first` on, `count` of them, are not to be read (their text was kept): the copy needs them no more. */
  pass(first: number, count: number): void {
    for (let i = first; i < first + count; i++) {
      if (this.states[i] !== undefined) continue;
      this.states[i] = null;
      if (--this.unread === 0) this.close();
    }
  }

  private close(): void {
    const open = RequestCopy.open.get(this.tenantId);
    if (!open?.delete(this)) return;
    if (!open.size) RequestCopy.open.delete(this.tenantId);
    RequestCopy.collected.unregister(this);
    this.before.clear();
  }
}
