// JSON text of a large value made in slices, between which the event loop turns: the same bytes as
// `JSON.stringify`, without holding every call up for the whole of it. A snapshot's part of a busy tenant (tens
// of thousands of requests and ledger rows) took hundreds of milliseconds as one `JSON.stringify`, during which
// no call of any tenant ran; its value is a copy no later step changes, so it can be turned into text a piece at
// a time. Only arrays and plain objects reached through plain objects are taken apart; an array's elements are
// each one `JSON.stringify` (a request, a row), unless the element is itself a long array.
// A list made when read (LazyList: a tenant's ledger rows in a snapshot) is taken apart as an array is, with each
// element's text from the list when it gives it. Compressed as it is made (`slicedGzip`, a snapshot's part), a list
// that names its source is written by blocks, each its own gzip member, kept for the next time while the block's
// elements are the same (D-161).
// Requirements: none of its own; decisions D-151, D-161.

import { constants, createGunzip, createGzip, type Gzip, type ZlibOptions } from 'node:zlib';
import { LazyList } from '../domain/lazyList.js';

/** How long one slice may run before the event loop turns. */
export const JSON_SLICE_MS = 8;
/** Arrays at most this long are turned into text whole. */
const WHOLE_ARRAY = 64;
/** Text gathered before it is turned into bytes. */
const CHUNK_CHARS = 1 << 16;
/**
 * zlib's output piece: its default (16 KiB) made the event loop hear of every few pieces of text; each stream holds
 * one, and a snapshot of a thousand small parts opens a thousand streams, so not more.
 */
const GZIP_CHUNK = 1 << 16;

const turn = () => new Promise<void>((r) => setImmediate(r));
/**
 * What follows a slice that held the event loop for `workedMs`: a turn of the event loop (`restRatio` 0), or a pause
 * of `restRatio` times the slice, in which calls have the event loop to themselves (work in the background, D-166).
 */
const restAfter = (workedMs: number, restRatio: number): Promise<void> =>
  restRatio > 0 ? new Promise<void>((r) => setTimeout(r, Math.max(1, workedMs * restRatio))) : turn();

/** Elements per block of a list read from an append-only store, compressed once and kept (D-161). */
const BLOCK_BITS = 12;
const BLOCK = 1 << BLOCK_BITS;
const BLOCK_MASK = BLOCK - 1;
/** zlib's fastest level: a busy tenant's part is made anew at every snapshot (D-161). */
const GZIP: ZlibOptions = { level: constants.Z_BEST_SPEED, chunkSize: GZIP_CHUNK };
/**
 * A gzip member compressed off the event loop as its text is written to `stream` (zlib's fastest level), its bytes
 * the pieces zlib gives, never joined (D-178). `done` is heard by whoever awaits it, once the text is written (an
 * error of zlib's meanwhile must not go unheard until then).
 */
function gzipMember(): { stream: Gzip; done: Promise<Buffer[]> } {
  const stream = createGzip(GZIP);
  const out: Buffer[] = [];
  stream.on('data', (b: Buffer) => out.push(b));
  const done = new Promise<Buffer[]>((resolve, reject) => {
    stream.once('end', () => resolve(out));
    stream.once('error', reject);
  });
  done.catch(() => undefined);
  return { stream, done };
}

/**
 * zlib's output piece when a stored state is decompressed (D-170): with its default (16 KiB), 30 MB of a tenant's
 * JSON came back in about 1,900 pieces, each handled on the event loop (110–210 ms in all, turns of up to 35 ms); in
 * pieces of 1 MiB it took 25–48 ms, turns of at most 6 ms.
 */
const INFLATE: ZlibOptions = { chunkSize: 1 << 20 };

/**
 * A stored state's bytes decompressed off the event loop, in large pieces (`INFLATE`) that are never joined (30 MB
 * joined at once held the event loop for 60 ms): `slicedParse` reads them in turn.
 */
export async function slicedGunzip(data: Buffer): Promise<Buffer[]> {
  const inflate = createGunzip(INFLATE);
  inflate.end(data);
  const pieces: Buffer[] = [];
  for await (const piece of inflate) pieces.push(piece as Buffer);
  return pieces;
}

/** A block's text with lines, compressed as a gzip member of its own, the size of the text, its elements' tokens. */
interface KeptBlock {
  /** Its compressed bytes, as zlib gave them. */
  data: Buffer[];
  rawBytes: number;
  tokens: readonly unknown[] | null;
}
const sameTokens = (kept: readonly unknown[] | null, now: readonly unknown[] | null): boolean => {
  if (kept === null || now === null) return kept === now;
  for (let i = 0; i < kept.length; i++) if (kept[i] !== now[i]) return false;
  return true;
};
/**
 * The blocks of the lists read from one source (LazyList's `blocks`), by block: a busy tenant's ledger rows and
 * requests are written at every snapshot, and most of their blocks are the same as the last time. Compressed, they
 * cost a few bytes an element; held as long as the source is (a tenant dropped from memory drops its stores).
 */
const keptBlocks = new WeakMap<object, KeptBlock[]>();
const keptOf = (key: object): KeptBlock[] => {
  let list = keptBlocks.get(key);
  if (!list) keptBlocks.set(key, (list = []));
  return list;
};

/**
 * Where `writeSliced` puts the text: a piece at a time (`text`), and the full blocks of a list from an append-only
 * store through `block`, which may keep them (`make` writes the block's text to the given sink).
 */
interface TextSink {
  text: (piece: Buffer) => void;
  block?: (
    source: object,
    index: number,
    /** The elements' tokens (null: an append-only source, whose full blocks never change). */
    tokens: readonly unknown[] | null,
    make: (sink: (piece: Buffer) => void) => Promise<void>,
  ) => Promise<void>;
}

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
 * the event loop, or a pause of `restRatio` times the slice: `restAfter`). `value` must not change until the
 * promise settles (a copy made for this).
 * `lines`: every leaf reached through the containers taken apart (an element of a long array, a member of a
 * plain object) stands between two line feeds, which JSON reads as white space: the same value for
 * `JSON.parse`, and `slicedParse` reads it back in slices. JSON.stringify never writes a line feed itself (one
 * inside a string is escaped), so the text between the n-th and the (n+1)-th line feed is a whole leaf for odd n.
 */
export async function slicedJson(
  value: unknown,
  sliceMs = JSON_SLICE_MS,
  lines = false,
  restRatio = 0,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await writeSliced(value, sliceMs, lines, { text: (b) => chunks.push(b) }, restRatio);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** How work in slices shares the event loop: at most `sliceMs` of work, then `restAfter` with `restRatio`. */
export interface Pace {
  sliceMs: number;
  restRatio: number;
}

/**
 * How work in the background shares the event loop with calls (a tenant's state read ahead of its calls, D-186):
 * slices of at most 4 ms, as long as a batch of the log may hold calls (D-151), each followed by a pause as long
 * (D-166). A call needs several turns of the event loop (read, batch, commit, answer): slices after single turns each
 * added to every one of them.
 */
export const BACKGROUND: Readonly<Pace> = Object.freeze({ sliceMs: 4, restRatio: 1 });

/**
 * How a snapshot's JSON shares the event loop with calls: `BACKGROUND`'s slices, each followed by a pause three times
 * as long (D-194). A busy tenant's part is made anew at every snapshot; the collector's work it brings came in the
 * calls' way as much as its slices did.
 */
export const SNAPSHOT: Readonly<Pace> = Object.freeze({ sliceMs: BACKGROUND.sliceMs, restRatio: 3 });

/** Work that calls wait for (a load in a batch, a drop's write): slices of `JSON_SLICE_MS`, each followed by a turn. */
export const FOREGROUND: Readonly<Pace> = Object.freeze({ sliceMs: JSON_SLICE_MS, restRatio: 0 });

/**
 * `encode(value)` for each value in turn (never two at once: values encoded side by side each took a slice of
 * their own in one turn of the event loop, D-168), resting as `pace` says between values once a slice is used up.
 */
export async function slicedEach<T, R>(
  values: readonly T[],
  pace: Readonly<Pace>,
  encode: (value: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out: R[] = [];
  let since = performance.now();
  for (let i = 0; i < values.length; i++) {
    out.push(await encode(values[i], i));
    if (performance.now() - since >= pace.sliceMs) {
      await restAfter(performance.now() - since, pace.restRatio);
      since = performance.now();
    }
  }
  return out;
}

/**
 * Runs work made to pause between slices (a generator, src/domain/slices.ts) to its end, with a turn of the event
 * loop for calls after every `sliceMs` of it (D-170), or a pause of `restRatio` times the slice.
 */
export async function slicedWork(work: Iterator<void, unknown>, sliceMs = JSON_SLICE_MS, restRatio = 0): Promise<void> {
  let since = performance.now();
  while (!work.next().done) {
    if (performance.now() - since >= sliceMs) {
      await restAfter(performance.now() - since, restRatio);
      since = performance.now();
    }
  }
}

/**
 * `slicedJson`'s text compressed with gzip as it is made (what a snapshot's part and a stored tenant are): the text
 * is never held whole, only its compressed bytes, compressed off the event loop at zlib's fastest level. With
 * `lines`, each full block of a list that names its source is a gzip member of its own, kept and written again
 * as it is the next time while its elements are the same; gzip reads members one after the other as one text (RFC 1952), so the bytes
 * decompress to `slicedJson`'s (D-161). `rawBytes`: the size of the text. The compressed bytes are the
 * `pieces` in order, as zlib and the kept blocks gave them, never joined: a part of megabytes joined into one new
 * buffer held the event loop for about 4 ms a megabyte on these machines (fresh memory), and so did handing it to
 * the database as one parameter (D-178).
 */
export async function slicedGzip(
  value: unknown,
  sliceMs = JSON_SLICE_MS,
  lines = false,
  restRatio = 0,
): Promise<{ pieces: Buffer[]; bytes: number; rawBytes: number }> {
  // the members in order: a stream's (compressed as its text comes), or a kept block's
  const members: Promise<Buffer[]>[] = [];
  // the member being compressed as its text comes (none between a kept block and the next piece of text)
  const current: { stream: Gzip | null } = { stream: null };
  let rawBytes = 0;
  const open = () => {
    const member = gzipMember();
    members.push(member.done);
    return member.stream;
  };
  const sink: TextSink = {
    text: (piece) => {
      rawBytes += piece.length;
      (current.stream ??= open()).write(piece);
    },
    block: async (source, index, tokens, make) => {
      const kept = keptOf(source);
      let b = kept[index];
      if (b === undefined || !sameTokens(b.tokens, tokens)) {
        // compressed as its text is made, never joined (a block of requests is megabytes of text, D-178)
        const member = gzipMember();
        let text = 0;
        await make((piece) => {
          text += piece.length;
          member.stream.write(piece);
        });
        member.stream.end();
        b = { data: await member.done, rawBytes: text, tokens };
        kept[index] = b;
      }
      current.stream?.end();
      current.stream = null;
      members.push(Promise.resolve(b.data));
      rawBytes += b.rawBytes;
    },
  };
  try {
    await writeSliced(value, sliceMs, lines, lines ? sink : { text: sink.text }, restRatio);
  } catch (err) {
    current.stream?.destroy();
    throw err;
  }
  current.stream?.end();
  const pieces = (await Promise.all(members)).flat();
  return { pieces, bytes: pieces.reduce((n, b) => n + b.length, 0), rawBytes };
}

/** The text of `value` (as `slicedJson` makes it), handed to `out` a piece at a time. */
async function writeSliced(
  value: unknown,
  sliceMs: number,
  lines: boolean,
  out: TextSink,
  restRatio = 0,
): Promise<void> {
  let sink = (piece: Buffer) => out.text(piece);
  let text: string[] = [];
  let chars = 0;
  const flush = () => {
    if (!text.length) return;
    sink(Buffer.from(text.join(''), 'utf8'));
    text = [];
    chars = 0;
  };
  const emit = (s: string) => {
    text.push(s);
    chars += s.length;
    if (chars >= CHUNK_CHARS) flush();
  };
  const emitLeaf = lines ? (s: string) => emit(`\n${s}\n`) : emit;
  let since = performance.now();
  const due = () => performance.now() - since >= sliceMs;
  const rest = async () => {
    await restAfter(performance.now() - since, restRatio);
    since = performance.now();
  };

  // a member JSON.stringify leaves out (undefined, a function, a symbol) is left out of an object and is null in an array
  const leaf = (v: unknown): string | undefined => JSON.stringify(v);

  async function array(a: unknown[] | LazyList<unknown>): Promise<void> {
    const textOf = a instanceof LazyList ? a.textOf : undefined;
    const at = a instanceof LazyList ? (i: number) => a.at(i) : (i: number) => a[i];
    // a list that gives its elements' text and names its source, written to a sink that may keep its blocks
    const blocks = out.block && textOf && a instanceof LazyList ? a.blocks : undefined;
    emit('[');
    for (let i = 0; i < a.length; i++) {
      if (i) emit(',');
      if (blocks && (i & BLOCK_MASK) === 0 && i + BLOCK <= a.length) {
        // a full block: the same text while its elements are the same (always, from an append-only source)
        flush();
        const first = i;
        let tokens: unknown[] | null = null;
        if (blocks.token) {
          tokens = [];
          for (let k = first; k < first + BLOCK; k++) blocks.token(k, tokens);
        }
        let made = false;
        await out.block!(blocks.source, i >>> BLOCK_BITS, tokens, async (into) => {
          made = true;
          const before = sink;
          sink = into;
          for (let j = first; j < first + BLOCK; j++) {
            if (j > first) emit(',');
            emitLeaf(textOf!(j));
            if ((j & 31) === 31 && due()) await rest();
          }
          flush();
          sink = before;
        });
        if (!made) blocks.passed?.(first, BLOCK);
        i += BLOCK - 1;
        if (due()) await rest();
        continue;
      }
      if (textOf) emitLeaf(textOf(i));
      else {
        const v = at(i);
        if (longArray(v)) await array(v);
        else emitLeaf(leaf(v) ?? 'null');
      }
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
      if (!container) emitLeaf(member!);
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
  flush();
}

const LINE_FEED = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * `JSON.parse` of JSON text, in slices of at most `sliceMs` (each followed by a turn of the event loop) when the
 * text was made by `slicedJson` with `lines` (a stored tenant of tens of thousands of requests is a hundred
 * megabytes of JSON: one `JSON.parse` held every call up for over a second); any other text is parsed at once.
 * Between the leaves, only the containers' brackets, their members' names, commas, colons and white space occur.
 */
export async function slicedParse(
  data: Buffer | string | readonly Buffer[],
  sliceMs = JSON_SLICE_MS,
  restRatio = 0,
): Promise<unknown> {
  // UTF-8 never has the byte of a line feed inside another character: the text is cut into lines as bytes,
  // each line turned into a string on its own (a hundred megabytes at once took most of a second); text given in
  // pieces (as it is decompressed, D-170) is read piece after piece, never joined whole
  const pieces = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : Buffer.isBuffer(data) ? [data] : data;
  if (!pieces.some((piece) => piece.indexOf(LINE_FEED) >= 0))
    return JSON.parse(Buffer.concat(pieces).toString('utf8')) as unknown;
  /** The text being read: what is left of the pieces read so far, then the next piece; `base` bytes came before it. */
  let bytes = pieces[0];
  let base = 0;
  let next = 1;
  /** The next piece after what is left of the text from `from`: false when there is none. */
  const more = (from: number): boolean => {
    if (next >= pieces.length) return false;
    base += from;
    bytes = from < bytes.length ? Buffer.concat([bytes.subarray(from), pieces[next++]]) : pieces[next++];
    return true;
  };
  const open: (unknown[] | Record<string, unknown>)[] = [];
  let name: string | null = null;
  let root: unknown;
  let rooted = false;
  const put = (v: unknown) => {
    const top = open[open.length - 1];
    if (top === undefined) {
      if (rooted) throw new SyntaxError('JSON text holds more than one value');
      root = v;
      rooted = true;
    } else if (Array.isArray(top)) top.push(v);
    else {
      if (name === null) throw new SyntaxError("a member's value has no name before it");
      // as JSON.parse makes it: an own member, even one named __proto__
      if (name === '__proto__')
        Object.defineProperty(top, name, { value: v, writable: true, enumerable: true, configurable: true });
      else top[name] = v;
      name = null;
    }
  };
  const containers = (from: number, to: number) => {
    const text = bytes.toString('utf8', from, to);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x7b || c === 0x5b) {
        const made = c === 0x7b ? {} : [];
        put(made);
        open.push(made);
      } else if (c === 0x7d || c === 0x5d) {
        const closed = open.pop();
        if (closed === undefined || Array.isArray(closed) !== (c === 0x5d))
          throw new SyntaxError(`unexpected ${text[i]} after byte ${base + from}`);
      } else if (c === QUOTE) {
        // a member's name (every string value is a leaf, on a line of its own)
        let end = i + 1;
        for (;;) {
          end = text.indexOf('"', end);
          if (end < 0) throw new SyntaxError(`a name at byte ${from} is not closed`);
          let escapes = 0;
          while (text.charCodeAt(end - 1 - escapes) === BACKSLASH) escapes++;
          if (escapes % 2 === 0) break;
          end++;
        }
        name = JSON.parse(text.slice(i, end + 1)) as string;
        i = end;
      } else if (c !== 0x2c && c !== 0x3a && c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a)
        throw new SyntaxError(`unexpected ${text[i]} after byte ${base + from}, between the leaves of JSON text`);
    }
  };
  let since = performance.now();
  let at = 0;
  for (let n = 1; ; n++) {
    const start = bytes.indexOf(LINE_FEED, at);
    const end = start < 0 ? -1 : bytes.indexOf(LINE_FEED, start + 1);
    if (end < 0) {
      // a leaf or the containers after the last one go on in the next piece
      if (more(at)) {
        at = 0;
        continue;
      }
      if (start >= 0) throw new SyntaxError(`the leaf at byte ${base + start} has no line feed after it`);
      containers(at, bytes.length);
      break;
    }
    containers(at, start);
    put(JSON.parse(bytes.toString('utf8', start + 1, end)));
    at = end + 1;
    if ((n & 31) === 0 && performance.now() - since >= sliceMs) {
      await restAfter(performance.now() - since, restRatio);
      since = performance.now();
    }
  }
  if (!rooted || open.length) throw new SyntaxError('JSON text ends inside a container');
  return root;
}
