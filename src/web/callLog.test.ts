// Requirements: none of the documents (the request log's bounded memory, D-104).

import { describe, expect, it } from 'vitest';
import { LOG_TEXT_CAP, CAP_BYTES, CAPACITY, CallLog } from '../domain/callLog.js';

const call = {
  atMs: Date.UTC(2026, 10, 24),
  tenantId: null,
  api: 'rest',
  method: 'GET',
  path: '/api/v1/jobs',
  tool: null,
  status: 200,
  durationMs: 1,
  request: '',
} as const;

describe('the request log keeps an answer without holding on to it', () => {
  it('copies the first bytes of an answer, long or short, instead of keeping the answer', () => {
    const log = new CallLog();
    const long = new Uint8Array(1024 * 1024).fill(0x61);
    const short = Buffer.from('{"ok":true}');
    log.record({ ...call, response: long });
    log.record({ ...call, response: short });
    // the log's own columns hold no reference to either answer
    const held = Object.values(log as unknown as Record<string, unknown>).flatMap((v) => (Array.isArray(v) ? v : [v]));
    expect(held.some((v) => v instanceof Uint8Array && (v.buffer === long.buffer || v.buffer === short.buffer))).toBe(
      false,
    );
    long.fill(0x62);
    short.fill(0x20);
    const [a, b] = log.window().entries;
    expect(a).toMatchObject({ responseBody: 'a'.repeat(LOG_TEXT_CAP), truncated: true });
    expect(b).toMatchObject({ responseBody: '{"ok":true}', truncated: false });
  });

  it('allocates nothing for answers once warm, whatever the traffic', () => {
    const log = new CallLog();
    const answer = Buffer.alloc(CAP_BYTES * 2, 0x61);
    const arena = () => (log as unknown as { global: { arena: Uint8Array } }).global.arena;
    // a ring's arena grows while the calls it shows need more bytes, then stays (D-147)
    for (let i = 0; i < CAPACITY * 2; i++) log.record({ ...call, response: answer });
    const warm = arena();
    expect(warm.byteLength).toBeLessThanOrEqual(2 * CAPACITY * CAP_BYTES);
    for (let i = 0; i < CAPACITY * 2; i++) log.record({ ...call, response: answer });
    expect(arena()).toBe(warm);
  });

  it('cuts long texts into copies', () => {
    const log = new CallLog();
    const text = 'b'.repeat(LOG_TEXT_CAP * 4);
    log.record({ ...call, request: text, response: text });
    const slot = (log as unknown as { global: { slots: { request: string; response: string }[] } }).global.slots[0];
    expect([slot.request.length, slot.response.length]).toEqual([LOG_TEXT_CAP, LOG_TEXT_CAP]);
    const [cut] = log.window().entries;
    expect(cut).toMatchObject({
      requestBody: 'b'.repeat(LOG_TEXT_CAP),
      responseBody: 'b'.repeat(LOG_TEXT_CAP),
      truncated: true,
    });
  });

  it('shows nothing recorded before clear(), and keeps ids counting', () => {
    const log = new CallLog();
    log.record({ ...call, response: '{}' });
    const before = log.window().entries[0].id;
    log.clear();
    expect(log.window().entries).toEqual([]);
    expect(log.get(before)).toBeUndefined();
    log.record({ ...call, response: '{}' });
    const after = log.window().entries[0];
    expect(after.id > before).toBe(true);
    expect(log.get(after.id)).toBe(after);
    expect(log.get('log_zzzzzzzzzzzz')).toBeUndefined();
  });
});
