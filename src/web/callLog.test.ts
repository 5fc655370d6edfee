import { describe, expect, it } from 'vitest';
import { CallLog, CAP_BYTES } from '../domain/callLog.js';
import { recordCall } from './callLog.js';

const call = { at: '2026-11-24T00:00:00.000Z', tenantId: null, api: 'jobs', method: 'GET', path: '/api/v1/jobs', tool: null, status: 200, durationMs: 1 } as const;

describe('the request log keeps an answer without holding on to it', () => {
  it('copies the first bytes of a long answer instead of keeping a view of the whole', () => {
    const log = new CallLog();
    const answer = new Uint8Array(1024 * 1024).fill(0x61);
    recordCall(log, call as any, '', answer);
    const kept = (log as unknown as { answers: (Uint8Array | null)[] }).answers[0]!;
    expect(kept.byteLength).toBe(CAP_BYTES);
    // a copy: the megabyte answer is not what the entry points into
    expect(kept.buffer).not.toBe(answer.buffer);
    answer.fill(0x62);
    expect(kept.every((b) => b === 0x61)).toBe(true);
    const [entry] = log.window().entries;
    expect(entry.truncated).toBe(true);
    expect(entry.responseBody).toMatch(/^a+$/);
  });
});
