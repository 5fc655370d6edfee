// The listener hub's rules apart from any transport (D-119, D-140): which answer counts, and what a shared
// sandbox's snapshot keeps of it (the connected listeners, and the attempts awaiting an answer as data).

import { describe, expect, it } from 'vitest';
import type { RelayedAttempt } from '../../domain/webhooks/relay.js';
import type { SendOutcome } from '../../domain/webhooks/sender.js';
import { ListenerHub } from './listen.js';

const attempt = (tenantId: string, n = 1): RelayedAttempt => ({
  attemptId: `whd_1.${n}`,
  deliveryId: 'whd_1',
  attempt: n,
  tenantId,
  requestId: 'scr_1',
  event: 'screening.scored',
  headers: {},
  body: '{}',
});
const answer = (statusCode: number | null): SendOutcome => ({
  statusCode,
  error: statusCode === 200 ? null : 'local failure',
  durationMs: 3,
  responseBody: '',
  responseTruncated: false,
});

describe('the listener hub', () => {
  it('settles with the first 2xx, or with the first failure once every listener sent the attempt answered', async () => {
    let now = 1_000;
    const hub = new ListenerHub({ now: () => now, timers: false });
    const sent: string[] = [];
    hub.add({ id: 'lsn_a', tenantId: 'ten_1', connectedAt: 'x', send: () => sent.push('a') });
    hub.add({ id: 'lsn_b', tenantId: 'ten_1', connectedAt: 'x', send: () => sent.push('b') });
    const ok = hub.forward(attempt('ten_1', 1), 15_000);
    expect(sent).toEqual(['a', 'b']);
    expect(hub.answer('ten_1', 'lsn_a', 'whd_1.1', answer(500))).toBe(true);
    expect(hub.busy).toBe(true);
    expect(hub.answer('ten_1', 'lsn_b', 'whd_1.1', answer(200))).toBe(true);
    expect((await ok).statusCode).toBe(200);
    const failed = hub.forward(attempt('ten_1', 2), 15_000);
    expect(hub.answer('ten_2', 'lsn_a', 'whd_1.2', answer(200))).toBe(false);
    hub.answer('ten_1', 'lsn_a', 'whd_1.2', answer(500));
    hub.remove('lsn_b');
    expect((await failed).statusCode).toBe(500);
    // a recorded timeout, not a timer, ends an attempt nobody answers on a shared sandbox
    const silent = hub.forward(attempt('ten_1', 3), 15_000);
    now += 15_000;
    expect(hub.overdue(now)).toEqual(['whd_1.3']);
    hub.expire('whd_1.3');
    expect((await silent).error).toBe('no listener answered within 15000 ms');
    expect(hub.busy).toBe(false);
  });

  it('gives a snapshot the connected listeners and takes them back, on another instance', () => {
    const hub = new ListenerHub({ now: () => 0, timers: false });
    hub.add({ id: 'lsn_a', tenantId: 'ten_1', connectedAt: '2026-11-26T00:00:00.000Z', instance: 'ins_1' });
    hub.add({ id: 'lsn_b', tenantId: 'ten_2', connectedAt: '2026-11-26T00:00:01.000Z', instance: 'ins_2' });
    const copy = new ListenerHub({ now: () => 0, timers: false });
    copy.restore(JSON.parse(JSON.stringify(hub.presence())) as ReturnType<ListenerHub['presence']>);
    expect(copy.presence()).toEqual(hub.presence());
    expect(copy.listeners()).toEqual(hub.listeners());
    expect(copy.connected('ten_1') && copy.connected('ten_2') && !copy.connected('ten_3')).toBe(true);
  });

  it('gives a snapshot the attempts awaiting an answer; another instance settles them exactly as the first would', async () => {
    const hub = new ListenerHub({ now: () => 1_000, timers: false });
    hub.add({ id: 'lsn_a', tenantId: 'ten_1', connectedAt: 'x', instance: 'ins_1' });
    hub.add({ id: 'lsn_b', tenantId: 'ten_1', connectedAt: 'x', instance: 'ins_1' });
    void hub.forward(attempt('ten_1', 1), 15_000);
    // lsn_a answered with a failure: only lsn_b is still awaited, and that failure counts if it goes
    hub.answer('ten_1', 'lsn_a', 'whd_1.1', answer(500));
    const copy = new ListenerHub({ now: () => 2_000, timers: false });
    copy.restore(JSON.parse(JSON.stringify(hub.presence())) as ReturnType<ListenerHub['presence']>);
    copy.restorePending(JSON.parse(JSON.stringify(hub.pendingState())) as ReturnType<ListenerHub['pendingState']>);
    expect(copy.pendingState()).toEqual(hub.pendingState());
    expect(copy.resume('whd_1.2')).toBeNull();
    const restored = copy.resume('whd_1.1')!;
    expect(copy.overdue(16_000)).toEqual(['whd_1.1']);
    copy.remove('lsn_b');
    hub.remove('lsn_b');
    expect(await restored).toEqual(answer(500));
    expect(copy.busy || hub.busy).toBe(false);
  });
});
