// Job search: filters through the index, the per-tier page cap, and the free tier's promoted
// listings. The free tier's results are one fixed interleaving of the organic matches and the
// matching promoted jobs (every `sponsoredEvery`-th slot is promoted while promoted matches last),
// so offsets page through it consistently and no job appears twice. The corpus never changes once
// generated, so an answer's bytes are built once per tier, parameters and planted-bug state and kept.
// Requirements: JOB-SEARCH-1, JOB-SEARCH-3, JOB-SEARCH-7, JOB-SEARCH-8, JOB-TIER-2, POL-SEARCH-1, POL-TIER-1,
// POL-TIER-3; decisions D-20, D-27, D-44.

import type { CoreContext } from '../context.js';
import { paymentRequired } from '../../errors/errors.js';
import { limits, type JobsTier } from '../plans.js';
import { parseSearchParams, type RawParams } from './params.js';
import type { IndexFilter, MatchCursor, SearchIndex } from './search-index.js';
import { tokenize } from './text.js';
import type { SearchParams, SearchResponse, StoredJob } from './types.js';
import { jobViewHead, jobViewTail, toJobView } from './view.js';

const COMMA = ','.charCodeAt(0);

interface Slot {
  doc: number;
  sponsored: boolean;
}

// Built answers are kept up to this many bytes in all (the oldest go first).
const ANSWER_CACHE_BYTES = 8 * 1024 * 1024;

/** What decides an answer's bytes: the tier, the parameters, and whether paid results leak promoted jobs. */
function answerKey(tier: JobsTier, leak: boolean, p: SearchParams): string {
  const text = (v: string | undefined) => (v === undefined ? '-' : `${v.length}:${v}`);
  return `${tier} ${leak ? 1 : 0} ${p.limit} ${p.offset} ${text(p.q)}${text(p.location)}${text(p.remote_type)}${text(p.job_type)}${text(p.opportunity_type)}${text(p.locale)}`;
}

export class JobSearch {
  /**
   * Answers already built, by answerKey: the corpus never changes once generated, so the same key always
   * gives the same bytes. Nothing writes to an answer once built (the adapters only send it).
   */
  private readonly answers = new Map<string, Buffer<ArrayBuffer>>();
  private answerBytes = 0;

  constructor(
    private readonly active: readonly StoredJob[],
    private readonly index: SearchIndex,
    private readonly faults: CoreContext['faults'],
    private readonly sponsoredEvery = limits.policy.sponsoredEvery,
    /** Where a 402 past the page cap sends the caller (the dashboard's billing page, D-126). */
    private readonly upgradeUrl = 'http://127.0.0.1/app/billing',
  ) {}

  search(tier: JobsTier, raw: RawParams = {}): SearchResponse {
    const { slots, page, hasMore } = this.page(tier, parseSearchParams(raw));
    return {
      tier,
      jobs: slots.map((s) => toJobView(this.active[s.doc], s.sponsored)),
      page,
      hasMore,
    };
  }

  /** The UTF-8 bytes of JSON.stringify(this.search(tier, raw)), built from each job's cached bytes. */
  searchBody(tier: JobsTier, raw: RawParams = {}): Buffer<ArrayBuffer> {
    const params = parseSearchParams(raw);
    const key = answerKey(tier, this.faults.planted.sponsoredOnPaid(), params);
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    const body = this.build(tier, params);
    if (body.length <= ANSWER_CACHE_BYTES / 16) {
      for (const [old, bytes] of this.answers) {
        if (this.answerBytes + body.length <= ANSWER_CACHE_BYTES) break;
        this.answers.delete(old);
        this.answerBytes -= bytes.length;
      }
      this.answers.set(key, body);
      this.answerBytes += body.length;
    }
    return body;
  }

  private build(tier: JobsTier, params: SearchParams): Buffer<ArrayBuffer> {
    const { slots, page, hasMore } = this.page(tier, params);
    const start = `{"tier":${JSON.stringify(tier)},"jobs":[`;
    const end = `],"page":${JSON.stringify(page)},"hasMore":${hasMore}}`;
    const heads = slots.map((s) => jobViewHead(this.active[s.doc]));
    let length = Buffer.byteLength(start) + Buffer.byteLength(end) + Math.max(0, slots.length - 1);
    for (let k = 0; k < slots.length; k++) length += heads[k].length + jobViewTail(slots[k].sponsored).length;
    const out = Buffer.allocUnsafe(length);
    let offset = out.write(start, 0);
    for (let k = 0; k < slots.length; k++) {
      if (k > 0) out[offset++] = COMMA;
      offset += heads[k].copy(out, offset);
      offset += jobViewTail(slots[k].sponsored).copy(out, offset);
    }
    out.write(end, offset);
    return out;
  }

  private page(tier: JobsTier, params: SearchParams): { slots: Slot[]; page: number; hasMore: boolean } {
    const { limit, offset } = params;
    const page = Math.floor(offset / limit);
    const { maxPages } = limits.spec.jobs[tier];
    if (page >= maxPages) {
      throw paymentRequired(
        `page ${page} (offset ${offset}, limit ${limit}) is past the ${tier} tier's cap of ${maxPages} pages (pages 0 to ${maxPages - 1}); ` +
          (tier === 'pro' ? 'narrow the search with q or filters' : 'upgrade for more pages, or narrow the search'),
        { upgradeUrl: this.upgradeUrl },
      );
    }
    const cursor = this.index.cursor(this.filterOf(params));
    const needed = offset + limit;
    const { slots, seen } =
      tier === 'free' ? this.freeSlots(cursor, offset, limit) : this.paidSlots(cursor, offset, limit);
    // more follow when the matches outnumber the slots up to this page's end; one more match settles it
    return { slots, page, hasMore: seen > needed || (seen === needed && cursor.next() >= 0) };
  }

  /** Every matching document in result order (exposed for counting and benchmarks). */
  match(params: Omit<SearchParams, 'limit' | 'offset'>): Int32Array {
    return this.index.match(this.filterOf(params));
  }

  private filterOf(params: Omit<SearchParams, 'limit' | 'offset'>): IndexFilter {
    return {
      terms: params.q ? tokenize(params.q) : [],
      location: params.location,
      remoteType: params.remote_type,
      jobType: params.job_type,
      opportunityType: params.opportunity_type,
    };
  }

  /** The slots of a paid page, and how many matches were read to fill them. */
  private paidSlots(cursor: MatchCursor, offset: number, limit: number): { slots: Slot[]; seen: number } {
    const leak = this.faults.planted.sponsoredOnPaid();
    const slots: Slot[] = [];
    let seen = cursor.skip(offset);
    if (seen < offset) return { slots, seen };
    for (let doc = limit > 0 ? cursor.next() : -1; doc >= 0; doc = slots.length < limit ? cursor.next() : -1) {
      seen++;
      slots.push({ doc, sponsored: leak && this.active[doc].promoted });
    }
    return { slots, seen };
  }

  /** The slots of a free page, and how many matches were read to fill them. */
  private freeSlots(cursor: MatchCursor, offset: number, limit: number): { slots: Slot[]; seen: number } {
    const every = this.sponsoredEvery;
    // Only the head of each list up to the requested slots matters, so stop reading once both heads
    // are long enough (the free tier reads a few pages, the match list can be the whole corpus).
    const needOrganic = offset + limit;
    const needPromoted = Math.floor((offset + limit) / every) + 1;
    const organic: number[] = [];
    const promoted: number[] = [];
    while (organic.length < needOrganic || promoted.length < needPromoted) {
      const doc = cursor.next();
      if (doc < 0) break;
      (this.active[doc].promoted ? promoted : organic).push(doc);
    }
    // state of the interleaving just before slot `offset`
    let p = Math.min(promoted.length, Math.floor(offset / every));
    let o = offset - p;
    if (o > organic.length) {
      o = organic.length;
      p = offset - organic.length;
    }
    const out: Slot[] = [];
    for (let k = offset; k < offset + limit; k++) {
      const promotedSlot = (k % every === every - 1 || o >= organic.length) && p < promoted.length;
      if (promotedSlot) out.push({ doc: promoted[p++], sponsored: true });
      else if (o < organic.length) out.push({ doc: organic[o++], sponsored: false });
      else break;
    }
    return { slots: out, seen: organic.length + promoted.length };
  }
}
