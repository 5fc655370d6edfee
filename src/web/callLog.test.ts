// Requirements: none of the documents (the request log's bounded memory, D-104).

import { describe, expect, it } from 'vitest';
import { BODY_CAP, CAP_BYTES, CallLog, KEEP_BYTES } from '../domain/callLog.js';

const call = { atMs: Date.UTC(2026, 10, 24), tenantId: null, api: 'rest', method: 'GET', path: '/api/v1/jobs', tool: null, status: 200, durationMs: 1, request: '' } as const;
const kept = (log: CallLog, i: number) => (log as unknown as { response: (string | Uint8Array)[] }).response[i];

describe('the request log keeps an answer without holding on to it', () => {
  it('copies the first bytes of a long answer instead of keeping a view of the whole', () => {
    const log = new CallLog();
    const answer = new Uint8Array(1024 * 1024).fill(0x61);
    log.record({ ...call, response: answer });
    const head = kept(log, 0) as Uint8Array;
    expect(head.byteLength).toBe(CAP_BYTES);
    // a copy: the megabyte answer is not what the entry points into
    expect(head.buffer).not.toBe(answer.buffer);
    answer.fill(0x62);
    expect(head.every((b) => b === 0x61)).toBe(true);
    const [entry] = log.window().entries;
    expect(entry.truncated).toBe(true);
    expect(entry.responseBody).toMatch(/^a+$/);
  });

  it('keeps an answer up to KEEP_BYTES as it is, and cuts long texts into copies', () => {
    const log = new CallLog();
    const answer = Buffer.alloc(KEEP_BYTES, 0x61);
    log.record({ ...call, response: answer });
    expect(kept(log, 0)).toBe(answer);
    const text = 'b'.repeat(BODY_CAP * 4);
    log.record({ ...call, request: text, response: text });
    expect((kept(log, 1) as string).length).toBe(BODY_CAP);
    const [long, cut] = log.window().entries;
    expect(long).toMatchObject({ responseBody: 'a'.repeat(BODY_CAP), truncated: true });
    expect(cut).toMatchObject({ requestBody: 'b'.repeat(BODY_CAP), responseBody: 'b'.repeat(BODY_CAP), truncated: true });
  });

  it('shows nothing recorded before clear(), and keeps ids counting', () => {
    const log = new CallLog();
    log.record({ ...call, response: '{}' });
    const before = log.window().entries[0].id;
    log.clear();
    expect(log.window()).toEqual({ entries: [], base: 1 });
    expect(log.get(before)).toBeUndefined();
    log.record({ ...call, response: '{}' });
    const after = log.window().entries[0];
    expect(after.id > before).toBe(true);
    expect(log.get(after.id)).toBe(after);
    expect(log.get('log_zzzzzzzzzzzz')).toBeUndefined();
  });
});
