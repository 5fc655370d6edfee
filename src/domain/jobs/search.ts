// Job search: filters through the index, the per-tier page cap, and the free tier's promoted
// listings. The free tier's results are one fixed interleaving of the organic matches and the
// matching promoted jobs (every `sponsoredEvery`-th slot is promoted while promoted matches last),
// so offsets page through it consistently and no job appears twice.

import type { CoreContext } from '../context.js';
import { paymentRequired } from '../errors.js';
import { limits, type JobsTier } from '../plans.js';
import { parseSearchParams, type RawParams } from './params.js';
import type { SearchIndex } from './search-index.js';
import { tokenize } from './text.js';
import type { SearchParams, SearchResponse, StoredJob } from './types.js';
import { toJobView } from './view.js';

interface Slot {
  doc: number;
  sponsored: boolean;
}

export class JobSearch {
  constructor(
    private readonly active: readonly StoredJob[],
    private readonly index: SearchIndex,
    private readonly faults: CoreContext['faults'],
    private readonly sponsoredEvery = limits.policy.sponsoredEvery,
  ) {}

  search(tier: JobsTier, raw: RawParams = {}): SearchResponse {
    const params = parseSearchParams(raw);
    const { limit, offset } = params;
    const page = Math.floor(offset / limit);
    const { maxPages } = limits.spec.jobs[tier];
    if (page >= maxPages) {
      throw paymentRequired(
        `page ${page} (offset ${offset}, limit ${limit}) is past the ${tier} tier's cap of ${maxPages} pages (pages 0 to ${maxPages - 1}); ` +
          (tier === 'pro' ? 'narrow the search with q or filters' : 'upgrade for more pages, or narrow the search'),
        { upgradeUrl: limits.policy.upgradeUrl },
      );
    }
    const matches = this.match(params);
    const slots = tier === 'free' ? this.freeSlots(matches, offset, limit) : this.paidSlots(matches, offset, limit);
    return {
      tier,
      jobs: slots.map((s) => toJobView(this.active[s.doc], s.sponsored)),
      page,
      hasMore: offset + limit < matches.length,
    };
  }

  /** Every matching document in result order (exposed for counting and benchmarks). */
  match(params: Omit<SearchParams, 'limit' | 'offset'>): Int32Array {
    return this.index.match({
      terms: params.q ? tokenize(params.q) : [],
      location: params.location,
      remoteType: params.remote_type,
      jobType: params.job_type,
      opportunityType: params.opportunity_type,
    });
  }

  private paidSlots(matches: Int32Array, offset: number, limit: number): Slot[] {
    const leak = this.faults.bug('sponsored_on_paid');
    return Array.from(matches.subarray(offset, offset + limit), (doc) => ({ doc, sponsored: leak && this.active[doc].promoted }));
  }

  private freeSlots(matches: Int32Array, offset: number, limit: number): Slot[] {
    const every = this.sponsoredEvery;
    // Only the head of each list up to the requested slots matters, so stop scanning once both heads
    // are long enough (the free tier reads a few pages, the match list can be the whole corpus).
    const needOrganic = offset + limit;
    const needPromoted = Math.floor((offset + limit) / every) + 1;
    const organic: number[] = [];
    const promoted: number[] = [];
    for (let k = 0; k < matches.length && (organic.length < needOrganic || promoted.length < needPromoted); k++) {
      const doc = matches[k];
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
    return out;
  }
}
