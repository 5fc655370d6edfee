// Requirements: none of the documents (the request log's capped bodies, D-104). The log decodes an answer
// from its first CAP_BYTES bytes only: for any bytes, that must give exactly what decoding the answer
// whole and capping the text gives.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CAPACITY,
  LOG_TEXT_CAP,
  CAP_BYTES,
  CallLog,
  TENANT_CAPACITY,
  capBody,
  capBytes,
  keptBytes,
} from './callLog.js';

const whole = (bytes: Uint8Array) => capBody(Buffer.from(bytes).toString('utf8'));

/** A REST call of no tenant as the log records it, made `k` ms after a fixed time, without its answer. */
const plainCall = (k = 0) => ({
  atMs: Date.UTC(2026, 10, 24) + k,
  tenantId: null,
  api: 'rest' as const,
  method: 'GET',
  path: '/x',
  tool: null,
  status: 200,
  durationMs: 1,
  request: '',
});

// text around the cap in every UTF-8 width (1 to 4 bytes), and raw bytes that are not valid UTF-8
const char = fc.constantFrom('a', '"', 'é', '—', '漢', '😀', '\u{10FFFF}');
const text = fc
  .tuple(fc.integer({ min: LOG_TEXT_CAP - 8, max: CAP_BYTES + 8 }), fc.array(char, { minLength: 1, maxLength: 7 }))
  .map(([n, cs]) => Array.from({ length: n }, (_, i) => cs[i % cs.length]).join(''));
const bytes = fc.oneof(
  text.map((t) => Buffer.from(t)),
  fc.uint8Array({ minLength: CAP_BYTES - 8, maxLength: CAP_BYTES * 2 }),
  fc.tuple(text, fc.uint8Array({ maxLength: 8 }), fc.nat()).map(([t, junk, at]) => {
    const b = Buffer.from(t);
    const i = at % b.length;
    return Buffer.concat([b.subarray(0, i), junk, b.subarray(i)]);
  }),
);

describe('capBytes', () => {
  it('gives what decoding the whole answer and capping its text gives', () => {
    fc.assert(
      fc.property(bytes, (b) => {
        expect(capBytes(b.subarray(0, CAP_BYTES))).toEqual(whole(b));
      }),
      { numRuns: 400 },
    );
  });

  it('needs only the bytes keptBytes() keeps: ASCII answers near the cap, with or without other bytes after it', () => {
    const ascii = fc
      .tuple(
        fc.integer({ min: LOG_TEXT_CAP - 3, max: LOG_TEXT_CAP + 3 }),
        fc.constantFrom('', 'é', '漢😀', 'a'),
        fc.nat(4),
      )
      .map(([n, tail, at]) => Buffer.from('x'.repeat(Math.max(0, n - at)) + tail + 'y'.repeat(at)));
    fc.assert(
      fc.property(fc.oneof(ascii, bytes), (b) => {
        const kept = keptBytes(b);
        expect(kept).toBeLessThanOrEqual(CAP_BYTES);
        expect(capBytes(b.subarray(0, kept))).toEqual(whole(b));
      }),
      { numRuns: 400 },
    );
    // a long JSON answer keeps a third of what the worst case needs
    expect(keptBytes(Buffer.from('{"jobs":[' + '1,'.repeat(4000) + ']}'))).toBe(LOG_TEXT_CAP + 1);
  });

  it('is what the log shows for an answer kept as bytes, truncation included', () => {
    const log = new CallLog();
    const body = Buffer.from('é'.repeat(LOG_TEXT_CAP + 1));
    const call = plainCall();
    log.record({ ...call, response: Buffer.from(body.subarray(0, CAP_BYTES)) });
    log.record({ ...call, response: Buffer.from('{"ok":true}') });
    const [long, short] = log.window().entries;
    expect(long).toMatchObject({
      at: '2026-11-24T00:00:00.000Z',
      responseBody: 'é'.repeat(LOG_TEXT_CAP),
      truncated: true,
    });
    expect(short).toMatchObject({ responseBody: '{"ok":true}', truncated: false });
    expect(Object.keys(long)).toEqual([
      'id',
      'at',
      'tenantId',
      'api',
      'method',
      'path',
      'tool',
      'status',
      'durationMs',
      'requestBody',
      'responseBody',
      'truncated',
    ]);
  });
});

describe('a ring per tenant (D-147)', () => {
  const call = (tenantId: string | null, n: number) => ({
    atMs: Date.UTC(2026, 10, 24) + n,
    tenantId,
    api: 'rest' as const,
    method: 'GET',
    path: `/api/v1/me?n=${n}`,
    tool: null,
    status: 200,
    durationMs: 1,
    request: '',
    response: Buffer.from(`{"n":${n}}`),
  });

  it("keeps a tenant's calls whatever other tenants do, merges every ring by time, and finds each entry by id", () => {
    const alone = new CallLog();
    const shared = new CallLog();
    const [a, b] = ['ten_ep0c00000001abcd', 'ten_ep0c00000002efgh'];
    let n = 0;
    for (let i = 0; i < 5; i++) {
      alone.record(call(a, n));
      shared.record(call(a, n++));
      // another tenant's flood rolls nothing of a's off, and a's entries keep their ids
      for (let j = 0; j < TENANT_CAPACITY / 2; j++) shared.record(call(b, n++));
      shared.record(call(null, n++));
    }
    expect(shared.exportTenant(a)).toEqual(alone.exportTenant(a));
    expect(shared.window(a).entries).toEqual(alone.window(a).entries);
    expect(shared.window(b).entries).toHaveLength(TENANT_CAPACITY);
    const merged = shared.window().entries;
    expect(merged).toHaveLength(5 + TENANT_CAPACITY + 5);
    expect(merged.map((e) => e.at)).toEqual([...merged.map((e) => e.at)].sort());
    for (const e of [merged[0], merged.at(-1)!, shared.window(a).entries[3]]) expect(shared.get(e.id)).toBe(e);
    expect(new Set(merged.map((e) => e.id)).size).toBe(merged.length);
  });

  it("exports, forgets and imports a tenant's ring: the same entries under the same ids, numbered on after them", () => {
    const log = new CallLog();
    const t = 'ten_ep0c00000003ijkl';
    for (let n = 0; n < 4; n++) log.record(call(t, n));
    const part = JSON.parse(JSON.stringify(log.exportTenant(t)));
    const before = log.window(t).entries.map((e) => ({ ...e }));
    log.forgetTenant(t);
    expect(log.window(t).entries).toEqual([]);
    expect(log.get(before[0].id)).toBeUndefined();
    log.importTenant(t, part);
    expect(log.window(t).entries).toEqual(before);
    log.record(call(t, 9));
    expect(log.window(t).entries.at(-1)!.id > before.at(-1)!.id).toBe(true);
  });
});

describe("a ring's arena of answer bytes", () => {
  it('shows every call still in the ring exactly as recorded, whatever the sizes of the answers and the roll-off', () => {
    const size = fc.oneof(
      fc.integer({ min: 0, max: 64 }),
      fc.integer({ min: 1000, max: 9000 }),
      fc.constant(CAP_BYTES + 50),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(size, fc.boolean()), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 3 }),
        (shape, laps) => {
          const log = new CallLog();
          const expected: string[] = [];
          const calls = Array.from({ length: shape.length * (laps * 30 + 1) }, (_, k) => shape[k % shape.length]);
          calls.forEach(([n, asText], k) => {
            const text = `${k}:`.padEnd(n, String.fromCharCode(97 + (k % 26)));
            expected.push(capBody(text).text);
            log.record({ ...plainCall(k), response: asText ? text : Buffer.from(text) });
          });
          const shown = log.window(null).entries.map((e) => e.responseBody);
          expect(shown).toEqual(expected.slice(-CAPACITY));
        },
      ),
      { numRuns: 60 },
    );
  });
});
