// A tenant's own key on the control API (D-133) and the automatic reviewer (D-134) on the shared sandbox:
// two instances on one PostgreSQL; the setting made with the tenant's key on one instance decides a
// request submitted on the other, once the tenant's clock is advanced (with its key) on either; both
// instances agree at once, and another tenant's key is refused alike on both.

import { describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../src/main.js';
import { postgresUnavailable, sharedInstances, twoSharedInstances } from './support/postgres.js';
import { ADMIN_TOKEN, client } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const why = postgresUnavailable();
if (why) console.warn(why);

const shared = sharedInstances('http://sandbox.test', { seedDemo: false, corpusSize: 50 });

describe.skipIf(why !== null)("a tenant's own key and its automatic reviewer on a shared sandbox", () => {
  let a: RunningSandbox;
  let b: RunningSandbox;
  twoSharedInstances(shared, (p) => ({ a, b } = p));

  it('decides on every instance alike, after the delay on the tenant clock moved by its own key', async () => {
    const made = await client(a.listenUrl, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { planTier: 'pro' });
    const other = await client(b.listenUrl, ADMIN_TOKEN)('POST', '/sandbox/v1/tenants', { planTier: 'pro' });
    const t = made.json as { tenantId: string; apiKey: string };
    const onA = client(a.listenUrl, t.apiKey);
    const onB = client(b.listenUrl, t.apiKey);
    const set = await onA('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, {
      autoReview: { afterSeconds: 300, rule: 'approve' },
    });
    expect(set.status, set.text).toBe(200);
    expect((await onB('GET', `/sandbox/v1/tenants/${t.tenantId}`)).json.autoReview).toEqual({
      afterSeconds: 300,
      rule: 'approve',
    });

    const sub = await onB('POST', `${SCREENING}/screen`, submitBody());
    expect(sub.status, sub.text).toBe(201);
    const id = sub.json.requestId as string;
    await waitFor(
      async () => (await onA('GET', `/sandbox/v1/reviews/${id}`)).json?.state === 'pending_review',
      'pending review',
    );
    const moved = await onB('POST', `/sandbox/v1/tenants/${t.tenantId}/clock/advance`, { seconds: 300 });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.fired.byLabel['auto review']).toBe(1);
    for (const sb of [a, b]) {
      const r = (await client(sb.listenUrl, t.apiKey)('GET', `/sandbox/v1/reviews/${id}`)).json;
      expect(r.decision).toMatchObject({ decision: 'approved', reviewerId: 'auto' });
      expect(r.ledger.find((e: any) => e.toState === 'approved').actor).toBe('reviewer:auto');
      // another tenant's key: absent on every instance; an operator route: 403
      const foreign = client(sb.listenUrl, other.json.apiKey);
      expect((await foreign('GET', `/sandbox/v1/reviews/${id}`)).status).toBe(404);
      expect((await foreign('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { autoReview: null })).status).toBe(404);
      expect((await foreign('POST', '/sandbox/v1/reset')).status).toBe(403);
    }
  });
});
