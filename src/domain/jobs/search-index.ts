// The inverted index over active jobs, built once. Document i is the i-th active job in result order
// (postedAt descending, then id), so every posting list is sorted ascending AND in result order: an
// intersection yields matches already ordered, and paging by offset is stable.
// Requirements: JOB-SEARCH-5, JOB-SEARCH-6, POL-SEARCH-2; decisions D-44.

import { fold, tokenize } from './text.js';
import {
  JOB_TYPES,
  OPPORTUNITY_TYPES,
  REMOTE_TYPES,
  type JobType,
  type OpportunityType,
  type RemoteType,
  type StoredJob,
} from './types.js';

export interface IndexFilter {
  /** Normalized terms (see text.ts); every one must match (AND). */
  terms: string[];
  /** Case- and diacritic-insensitive substring of the location. */
  location?: string;
  remoteType?: RemoteType;
  jobType?: JobType;
  opportunityType?: OpportunityType;
}

const EMPTY = new Int32Array(0);

/** A copy of `a` at least twice as long and long enough to hold index `needed`. */
function grow(a: Int32Array, needed: number, fillWith = 0): Int32Array {
  const out = new Int32Array(Math.max(a.length * 2, needed + 1)).fill(fillWith);
  out.set(a);
  return out;
}

/** Groups document numbers by a per-document code into sorted posting lists. */
function listsByCode(codes: ArrayLike<number>, distinct: number): Int32Array[] {
  const counts = new Int32Array(distinct);
  for (let i = 0; i < codes.length; i++) counts[codes[i]]++;
  const lists = Array.from(counts, (n) => new Int32Array(n));
  const fill = new Int32Array(distinct);
  for (let i = 0; i < codes.length; i++) lists[codes[i]][fill[codes[i]]++] = i;
  return lists;
}

/** First position p >= from with list[p] >= target (galloping, then binary search). */
function seek(list: Int32Array, from: number, target: number): number {
  let step = 1;
  let hi = from;
  while (hi < list.length && list[hi] < target) {
    from = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = Math.min(hi, list.length);
  while (from < hi) {
    const mid = (from + hi) >>> 1;
    if (list[mid] < target) from = mid + 1;
    else hi = mid;
  }
  return from;
}

export class SearchIndex {
  private constructor(
    readonly size: number,
    private readonly postings: Map<string, Int32Array>,
    private readonly codes: { remote: Uint8Array; jobType: Uint8Array; opportunity: Uint8Array; location: Uint16Array },
    private readonly lists: {
      remote: Int32Array[];
      jobType: Int32Array[];
      opportunity: Int32Array[];
      location: Int32Array[];
    },
    private readonly foldedLocations: string[],
    private readonly everything: Int32Array,
  ) {}

  /**
   * Builds the index. `visitPieces` hands over the searchable text of a job in pieces; pieces repeat
   * across jobs (titles, skills, sentence templates), so each distinct piece is tokenized once.
   */
  static build(
    jobs: readonly StoredJob[],
    visitPieces: (job: StoredJob, fn: (piece: string) => void) => void,
  ): SearchIndex {
    const n = jobs.length;
    const termIds = new Map<string, number>();
    const pieceTerms = new Map<string, Int32Array>();
    const termsOfPiece = (piece: string): Int32Array => {
      let ids = pieceTerms.get(piece);
      if (!ids) {
        ids = Int32Array.from(tokenize(piece), (term) => {
          let id = termIds.get(term);
          if (id === undefined) termIds.set(term, (id = termIds.size));
          return id;
        });
        pieceTerms.set(piece, ids);
      }
      return ids;
    };
    // pass 1: the distinct term ids of each document in one flat buffer, and each term's frequency
    let flat: Int32Array = new Int32Array(Math.max(1024, n * 80));
    let df: Int32Array = new Int32Array(1024);
    let stamp: Int32Array = new Int32Array(1024).fill(-1);
    const starts = new Int32Array(n + 1);
    let used = 0;
    let doc = 0;
    const addPiece = (piece: string) => {
      for (const id of termsOfPiece(piece)) {
        if (id >= df.length) {
          df = grow(df, id);
          stamp = grow(stamp, id, -1);
        }
        if (stamp[id] === doc) continue;
        stamp[id] = doc;
        df[id]++;
        if (used === flat.length) flat = grow(flat, used);
        flat[used++] = id;
      }
    };
    for (; doc < n; doc++) {
      starts[doc] = used;
      visitPieces(jobs[doc], addPiece);
    }
    starts[n] = used;
    // pass 2: fill each posting list in document order, so it comes out sorted
    const byId = Array.from(df.subarray(0, termIds.size), (count) => new Int32Array(count));
    const fill = new Int32Array(termIds.size);
    for (let i = 0; i < n; i++) {
      for (let k = starts[i]; k < starts[i + 1]; k++) byId[flat[k]][fill[flat[k]]++] = i;
    }
    const postings = new Map<string, Int32Array>();
    for (const [term, id] of termIds) postings.set(term, byId[id]);

    const locations: string[] = [];
    const locationIds = new Map<string, number>();
    const codes = {
      remote: new Uint8Array(n),
      jobType: new Uint8Array(n),
      opportunity: new Uint8Array(n),
      location: new Uint16Array(n),
    };
    for (let i = 0; i < n; i++) {
      const j = jobs[i];
      codes.remote[i] = REMOTE_TYPES.indexOf(j.remoteType);
      codes.jobType[i] = JOB_TYPES.indexOf(j.jobType);
      codes.opportunity[i] = OPPORTUNITY_TYPES.indexOf(j.opportunityType);
      let loc = locationIds.get(j.location);
      if (loc === undefined) {
        loc = locations.length;
        locationIds.set(j.location, loc);
        locations.push(j.location);
      }
      codes.location[i] = loc;
    }
    const lists = {
      remote: listsByCode(codes.remote, REMOTE_TYPES.length),
      jobType: listsByCode(codes.jobType, JOB_TYPES.length),
      opportunity: listsByCode(codes.opportunity, OPPORTUNITY_TYPES.length),
      location: listsByCode(codes.location, locations.length),
    };
    const everything = Int32Array.from({ length: n }, (_, i) => i);
    return new SearchIndex(n, postings, codes, lists, locations.map(fold), everything);
  }

  get termCount(): number {
    return this.postings.size;
  }

  /** Every matching document, in result order. The returned array must not be modified. */
  match(filter: IndexFilter): Int32Array {
    const cursor = this.cursor(filter);
    // a lone posting list already is the answer, in order: hand it out rather than a copy
    if (cursor.plain) return cursor.driver;
    const out = new Int32Array(cursor.driver.length);
    let found = 0;
    for (let doc = cursor.next(); doc >= 0; doc = cursor.next()) out[found++] = doc;
    return out.subarray(0, found);
  }

  /**
   * The matching documents one at a time, in result order, for readers that need only the head of the
   * list (a page and whether more follow): nothing is copied, the shortest list drives and the others
   * are only checked.
   */
  cursor(filter: IndexFilter): MatchCursor {
    const candidates: Int32Array[] = [];
    const termLists: Int32Array[] = [];
    for (const term of filter.terms.length > 1 ? new Set(filter.terms) : filter.terms) {
      const list = this.postings.get(term);
      if (!list) return MatchCursor.over(EMPTY);
      termLists.push(list);
      candidates.push(list);
    }
    const remote = filter.remoteType === undefined ? -1 : REMOTE_TYPES.indexOf(filter.remoteType);
    const jobType = filter.jobType === undefined ? -1 : JOB_TYPES.indexOf(filter.jobType);
    const opportunity = filter.opportunityType === undefined ? -1 : OPPORTUNITY_TYPES.indexOf(filter.opportunityType);
    if (remote >= 0) candidates.push(this.lists.remote[remote]);
    if (jobType >= 0) candidates.push(this.lists.jobType[jobType]);
    if (opportunity >= 0) candidates.push(this.lists.opportunity[opportunity]);
    let locationOk: Uint8Array | null = null;
    let hits = 0;
    if (filter.location !== undefined) {
      const needle = fold(filter.location);
      for (let code = 0; code < this.foldedLocations.length; code++) {
        if (!this.foldedLocations[code].includes(needle)) continue;
        locationOk ??= new Uint8Array(this.foldedLocations.length);
        locationOk[code] = 1;
        hits++;
        candidates.push(this.lists.location[code]);
      }
      if (hits === 0) return MatchCursor.over(EMPTY);
      // several matching locations are a union, so they only work as a check, not as a driver
      if (hits > 1) candidates.splice(candidates.length - hits, hits);
    }
    if (candidates.length === 0 && !locationOk) return MatchCursor.over(this.everything);

    let driver = this.everything;
    for (const list of candidates) if (list.length < driver.length) driver = list;
    // a single list (one term, or one filter, or one matching location) is the answer as it stands:
    // it is the driver, or as long as the whole corpus, so every check would pass
    if (candidates.length === 1 && hits <= 1) return MatchCursor.over(driver);
    const termChecks = termLists.filter((l) => l !== driver);
    return new MatchCursor(driver, termChecks, this.codes, remote, jobType, opportunity, locationOk);
  }
}

/** A walk over the documents of one filter; `next()` gives the next match or -1 once there is none. */
export class MatchCursor {
  private k = 0;
  private done = false;
  private readonly cursors: Int32Array;
  /** True when the driver list is the whole answer and nothing needs checking. */
  readonly plain: boolean;

  constructor(
    readonly driver: Int32Array,
    private readonly termChecks: Int32Array[],
    private readonly codes: { remote: Uint8Array; jobType: Uint8Array; opportunity: Uint8Array; location: Uint16Array },
    private readonly remote: number,
    private readonly jobType: number,
    private readonly opportunity: number,
    private readonly locationOk: Uint8Array | null,
  ) {
    this.cursors = termChecks.length === 0 ? EMPTY : new Int32Array(termChecks.length);
    this.plain = termChecks.length === 0 && remote < 0 && jobType < 0 && opportunity < 0 && !locationOk;
  }

  static over(list: Int32Array): MatchCursor {
    return new MatchCursor(list, [], NO_CODES, -1, -1, -1, null);
  }

  next(): number {
    const driver = this.driver;
    if (this.plain) return this.k < driver.length ? driver[this.k++] : -1;
    if (this.done) return -1;
    const { remote: rc, jobType: jc, opportunity: oc, location: lc } = this.codes;
    const { remote, jobType, opportunity, locationOk, termChecks, cursors } = this;
    next: while (this.k < driver.length) {
      const doc = driver[this.k++];
      if (remote >= 0 && rc[doc] !== remote) continue;
      if (jobType >= 0 && jc[doc] !== jobType) continue;
      if (opportunity >= 0 && oc[doc] !== opportunity) continue;
      if (locationOk && locationOk[lc[doc]] === 0) continue;
      for (let t = 0; t < termChecks.length; t++) {
        const list = termChecks[t];
        const p = (cursors[t] = seek(list, cursors[t], doc));
        if (p >= list.length) break next;
        if (list[p] !== doc) continue next;
      }
      return doc;
    }
    this.done = true;
    return -1;
  }

  /** Passes over up to `n` matches; returns how many there were. */
  skip(n: number): number {
    if (this.plain) {
      const skipped = Math.min(n, this.driver.length - this.k);
      this.k += skipped;
      return skipped;
    }
    let skipped = 0;
    while (skipped < n && this.next() >= 0) skipped++;
    return skipped;
  }
}

const NO_CODES = {
  remote: new Uint8Array(0),
  jobType: new Uint8Array(0),
  opportunity: new Uint8Array(0),
  location: new Uint16Array(0),
};
