// The inverted index over active jobs, built once. Document i is the i-th active job in result order
// (postedAt descending, then id), so every posting list is sorted ascending AND in result order: an
// intersection yields matches already ordered, and paging by offset is stable.

import { fold, tokenize } from './text.js';
import { JOB_TYPES, OPPORTUNITY_TYPES, REMOTE_TYPES, type JobType, type OpportunityType, type RemoteType, type StoredJob } from './types.js';

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
    private readonly lists: { remote: Int32Array[]; jobType: Int32Array[]; opportunity: Int32Array[]; location: Int32Array[] },
    private readonly foldedLocations: string[],
    private readonly everything: Int32Array,
  ) {}

  /**
   * Builds the index. `visitPieces` hands over the searchable text of a job in pieces; pieces repeat
   * across jobs (titles, skills, sentence templates), so each distinct piece is tokenized once.
   */
  static build(jobs: readonly StoredJob[], visitPieces: (job: StoredJob, fn: (piece: string) => void) => void): SearchIndex {
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
    const candidates: Int32Array[] = [];
    const termLists: Int32Array[] = [];
    for (const term of new Set(filter.terms)) {
      const list = this.postings.get(term);
      if (!list) return EMPTY;
      termLists.push(list);
    }
    candidates.push(...termLists);
    const remote = filter.remoteType === undefined ? -1 : REMOTE_TYPES.indexOf(filter.remoteType);
    const jobType = filter.jobType === undefined ? -1 : JOB_TYPES.indexOf(filter.jobType);
    const opportunity = filter.opportunityType === undefined ? -1 : OPPORTUNITY_TYPES.indexOf(filter.opportunityType);
    if (remote >= 0) candidates.push(this.lists.remote[remote]);
    if (jobType >= 0) candidates.push(this.lists.jobType[jobType]);
    if (opportunity >= 0) candidates.push(this.lists.opportunity[opportunity]);
    let locationOk: Uint8Array | null = null;
    if (filter.location !== undefined) {
      const needle = fold(filter.location);
      locationOk = new Uint8Array(this.foldedLocations.length);
      let hits = 0;
      this.foldedLocations.forEach((loc, code) => {
        if (loc.includes(needle)) {
          locationOk![code] = 1;
          hits++;
          candidates.push(this.lists.location[code]);
        }
      });
      if (hits === 0) return EMPTY;
      // several matching locations are a union, so they only work as a check, not as a driver
      if (hits > 1) candidates.splice(candidates.length - hits, hits);
    }
    if (candidates.length === 0 && !locationOk) return this.everything;

    let driver = this.everything;
    for (const list of candidates) if (list.length < driver.length) driver = list;
    const termChecks = termLists.filter((l) => l !== driver);
    const cursors = new Int32Array(termChecks.length);
    const { remote: rc, jobType: jc, opportunity: oc, location: lc } = this.codes;
    const out = new Int32Array(driver.length);
    let found = 0;
    next: for (let k = 0; k < driver.length; k++) {
      const doc = driver[k];
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
      out[found++] = doc;
    }
    return out.subarray(0, found);
  }
}
