import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../config.js';
import { createCore, type Core } from '../core.js';
import { openMemoryStore } from '../../store/memory.js';

describe('review-window timers', () => {
  let core: Core;
  beforeAll(async () => {
    core = await createCore(
      resolveConfig({ adminToken: 'sat_pipeline_test', seedDemo: false, corpusSize: 50 }),
      openMemoryStore,
    );
  });
  afterAll(() => core.clock.clear());

  const submit = (tenant: ReturnType<Core['tenants']['create']>['tenant'], n: number, title = 'Backend Engineer') =>
    core.screening.submit(tenant, {
      idempotencyKey: `k-${n}`,
      candidate: { kind: 'structured', fullName: `Candidate ${n}`, skills: ['Go'] },
      jobSpec: { title, mustHaves: ['Go'] },
    }).requestId;
  const settle = () => new Promise((r) => setImmediate(r));

  it('holds one clock timer per request in review, released by a decision or when the window closes', async () => {
    const { tenant } = core.tenants.create({ planTier: 'scale', name: 'timers' });
    const before = core.clock.pendingTimers();
    const ids = [1, 2, 3].map((n) => submit(tenant, n));
    submit(tenant, 4, 'Sandbox Expire');
    await settle();
    expect(ids.map((id) => core.screening.get(id)?.state)).toEqual([
      'pending_review',
      'pending_review',
      'pending_review',
    ]);
    expect(core.clock.pendingTimers()).toBe(before + 3);

    core.screening.decide(ids[0], { decision: 'approved', reviewerId: 'rev_1' });
    expect(core.clock.pendingTimers()).toBe(before + 2);

    core.clock.advance(71 * 3600);
    expect(core.screening.get(ids[1])?.state).toBe('pending_review');
    core.clock.advance(3600);
    expect(ids.map((id) => core.screening.get(id)?.state)).toEqual(['delivered', 'expired', 'expired']);
    expect(core.clock.pendingTimers()).toBe(before);
    expect(core.screening.get(ids[1])!.rows.map((r) => r.toState)).toEqual([
      'received',
      'parsed',
      'scored',
      'pending_review',
      'expired',
    ]);
  });

  it('scores a request once and keeps the result: later reads do not run the scorer again', async () => {
    const { tenant } = core.tenants.create({ planTier: 'scale', name: 'score once' });
    const id = core.screening.submit(tenant, {
      idempotencyKey: 'score-once',
      candidate: { kind: 'resume_ref', resumeRef: 'res_demo_backend' },
      jobSpec: { title: 'Backend Engineer', mustHaves: ['Go'] },
    }).requestId;
    await settle();
    const first = core.screening.get(id)!.score;
    expect(first?.schemaVersion).toBe(1);
    // without its resume the scorer could no longer score this candidate; the kept result stays
    const resume = core.screening.resumes.get('res_demo_backend')!;
    core.screening.resumes.delete('res_demo_backend');
    try {
      expect(core.screening.get(id)!.score).toEqual(first);
    } finally {
      core.screening.resumes.set('res_demo_backend', resume);
    }
  });

  it('drops every pending timer on reset', async () => {
    const { tenant } = core.tenants.create({ planTier: 'scale', name: 'reset' });
    submit(tenant, 10);
    await settle();
    expect(core.clock.pendingTimers()).toBeGreaterThan(0);
    core.reset();
    expect(core.clock.pendingTimers()).toBe(0);
    expect(core.screening.list()).toEqual([]);
  });
});
