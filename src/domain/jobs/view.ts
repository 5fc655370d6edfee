// The one place a stored job becomes the public Job: exactly the 14 fields of the specification.
// Also its JSON as bytes, for the REST adapter: stored jobs never change, so each one is serialized and
// encoded once (up to its `sponsored` value, which depends on the tier and slot) and reused after that.
// Requirements: JOB-SEARCH-2, JOB-GET-1, JOB-SEARCH-7; decisions D-26.

import type { JobView, StoredJob } from './types.js';

export function toJobView(job: StoredJob, sponsored: boolean): JobView {
  return {
    id: job.id,
    title: job.title,
    company: job.company,
    location: job.location,
    payMin: job.payMin,
    payMax: job.payMax,
    payCurrency: job.payCurrency,
    payPeriod: job.payPeriod,
    remoteType: job.remoteType,
    jobType: job.jobType,
    postedAt: job.postedAt,
    url: job.url,
    applyUrl: job.applyUrl,
    sponsored,
  };
}

// `sponsored` is the last field, so a job's JSON is a fixed head plus `true}` or `false}`. The heads are
// kept as UTF-8 bytes: titles and companies carry non-Latin-1 characters (dashes), which make every
// page a two-byte string that would otherwise be measured and encoded again on each answer.
const TRUE_TAIL = Buffer.from('true}');
const FALSE_TAIL = Buffer.from('false}');
const heads = new WeakMap<StoredJob, Buffer>();

// Heads are packed into slabs of their own: in Node's shared buffer pool each one would keep a whole
// 8 KiB block (and whatever short-lived data shared it) alive for as long as the corpus lives.
const SLAB_BYTES = 64 * 1024;
let slab = Buffer.alloc(0);
let slabUsed = 0;

function keep(text: string): Buffer {
  const length = Buffer.byteLength(text);
  if (length > SLAB_BYTES / 8) return Buffer.from(text);
  if (slabUsed + length > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  const bytes = slab.subarray(slabUsed, slabUsed + length);
  bytes.write(text);
  slabUsed += length;
  return bytes;
}

/**
 * The UTF-8 bytes of the job's JSON up to its `sponsored` value, serialized on first use and kept
 * (shared: read, never write).
 */
export function jobViewHead(job: StoredJob): Buffer {
  let head = heads.get(job);
  if (head === undefined) {
    const json = JSON.stringify(toJobView(job, false));
    head = keep(json.slice(0, json.length - FALSE_TAIL.length));
    heads.set(job, head);
  }
  return head;
}

/** The bytes that end a job's JSON: its `sponsored` value and the closing brace. */
export const jobViewTail = (sponsored: boolean): Buffer => (sponsored ? TRUE_TAIL : FALSE_TAIL);

/** The UTF-8 bytes of JSON.stringify(toJobView(job, sponsored)). */
export function jobViewBytes(job: StoredJob, sponsored: boolean): Buffer<ArrayBuffer> {
  const head = jobViewHead(job);
  const tail = jobViewTail(sponsored);
  const out = Buffer.allocUnsafe(head.length + tail.length);
  tail.copy(out, head.copy(out, 0));
  return out;
}
