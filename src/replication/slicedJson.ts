// JSON text of a large value made in slices, between which the event loop turns: the same bytes as
// `JSON.stringify`, without holding every call up for the whole of it. A snapshot's part of a busy tenant (tens
// of thousands of requests and ledger rows) took hundreds of milliseconds as one `JSON.stringify`, during which
// no call of any tenant ran; its value is a copy no later step changes, so it can be turned into text a piece at
// a time. Only arrays and plain objects reached through plain objects are taken apart; an array's elements are
// each one `JSON.stringify` (a request, a row), unless the element is itself a long array.
// A list made when read (LazyList: a tenant's ledger rows in a snapshot) is taken apart as an array is.
// Requirements: none of its own; decision D-151.

import { LazyList } from '../domain/lazyList.js';

/** How long one slice may run before the event loop turns. */
export const JSON_SLICE_MS = 8;
/** Arrays at most this long are turned into text whole. */
const WHOLE_ARRAY = 64;
/** Text gathered before it is turned into bytes. */
const CHUNK_CHARS = 1 << 16;

const turn = () => new Promise<void>((r) => setImmediate(r));

/** Whether `JSON.stringify` would treat `v` as a plain container whose members it visits itself. */
function plainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** An array too long to be turned into text at once, or a list made when read (its elements made in slices too). */
const longArray = (v: unknown): v is unknown[] | LazyList<unknown> =>
  v instanceof LazyList ||
  (Array.isArray(v) && v.length > WHOLE_ARRAY && typeof (v as { toJSON?: unknown }).toJSON !== 'function');

/**
 * `Buffer.from(JSON.stringify(value), 'utf8')`, made in slices of at most `sliceMs` (each followed by a turn of
 * the event loop). `value` must not change until the promise settles (a copy made for this).
 */
export async function slicedJson(value: unknown, sliceMs = JSON_SLICE_MS): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let text: string[] = [];
  let chars = 0;
  const emit = (s: string) => {
    text.push(s);
    chars += s.length;
    if (chars >= CHUNK_CHARS) {
      chunks.push(Buffer.from(text.join(''), 'utf8'));
      text = [];
      chars = 0;
    }
  };
  let since = performance.now();
  const due = () => performance.now() - since >= sliceMs;
  const rest = async () => {
    await turn();
    since = performance.now();
  };

  // a member JSON.stringify leaves out (undefined, a function, a symbol) is left out of an object and is null in an array
  const leaf = (v: unknown): string | undefined => JSON.stringify(v);

  async function array(a: unknown[] | LazyList<unknown>): Promise<void> {
    const at = a instanceof LazyList ? (i: number) => a.at(i) : (i: number) => a[i];
    emit('[');
    for (let i = 0; i < a.length; i++) {
      if (i) emit(',');
      const v = at(i);
      if (longArray(v)) await array(v);
      else emit(leaf(v) ?? 'null');
      if ((i & 31) === 31 && due()) await rest();
    }
    emit(']');
  }

  async function object(o: Record<string, unknown>): Promise<void> {
    emit('{');
    let first = true;
    for (const key of Object.keys(o)) {
      const v = o[key];
      const container = longArray(v) || plainObject(v);
      const member = container ? null : leaf(v);
      if (!container && member === undefined) continue;
      emit(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      if (!container) emit(member!);
      else if (longArray(v)) await array(v);
      else await object(v);
      if (due()) await rest();
    }
    emit('}');
  }

  if (longArray(value)) await array(value);
  else if (plainObject(value)) await object(value);
  else {
    const whole = leaf(value);
    if (whole === undefined) throw new TypeError('this value has no JSON text');
    emit(whole);
  }
  if (text.length) chunks.push(Buffer.from(text.join(''), 'utf8'));
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}
