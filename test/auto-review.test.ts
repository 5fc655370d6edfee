// The automatic reviewer of a tenant (D-134), over real HTTP: set with the tenant's own key, it decides
// the tenant's queued reviews once the tenant's clock has moved past the delay (not before), as reviewer
// `auto`, with the same ledger row and the same signed `screening.review_decided` delivery as a person's
// decision; a tenant without it stays pending.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '../src/domain/webhooks/signer.js';
import { browser } from './support/console.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, startReceiver, submitBody, waitFor } from './support/screening.js';

const sb = useSandbox({ corpusSize: 50 });
const LOW = {
  kind: 'structured',
  fullName: 'Budi Santoso',
  summary: 'Graphic designer.',
  skills: ['Figma'],
  experienceYears: 1,
};

let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});

const admin = () => client(sb.get().baseUrl, ADMIN_TOKEN);
const review = async (id: string) => (await admin()('GET', `/sandbox/v1/reviews/${id}`)).json;

async function submitted(apiKey: string, candidate?: unknown): Promise<string> {
  const res = await client(sb.get().baseUrl, apiKey)(
    'POST',
    `${SCREENING}/screen`,
    submitBody(candidate ? { candidate } : {}),
  );
  expect(res.status).toBe(201);
  const id = res.json.requestId as string;
  await waitFor(async () => ((await review(id)).state === 'pending_review' ? true : undefined), `${id} pending review`);
  return id;
}

const decidedHook = (id: string) =>
  rx.received.find(
    (r) => JSON.parse(r.body).requestId === id && r.headers['x-screening-event'] === 'screening.review_decided',
  );

describe('the automatic reviewer', () => {
  it("decides a tenant's reviews after the delay on its own clock, exactly as a person's decision; another tenant's stay pending", async () => {
    const { baseUrl } = sb.get();
    const a = await createTenant(baseUrl, {
      planTier: 'pro',
      webhookUrl: rx.url,
      webhookSecret: 'whsec_auto_review_a',
    });
    const b = await createTenant(baseUrl, {
      planTier: 'pro',
      webhookUrl: rx.url,
      webhookSecret: 'whsec_auto_review_b',
    });
    const own = client(baseUrl, a.apiKey);
    const setting = { afterSeconds: 600, rule: 'approve_if_score_at_least', minScore: 70, else: 'rejected' };
    const set = await own('PATCH', `/sandbox/v1/tenants/${a.tenantId}`, { autoReview: setting });
    expect(set.status).toBe(200);
    expect(set.json.autoReview).toEqual(setting);
    expect((await admin()('GET', `/sandbox/v1/tenants/${b.tenantId}`)).json.autoReview).toBeNull();

    const high = await submitted(a.apiKey);
    const low = await submitted(a.apiKey, LOW);
    const other = await submitted(b.apiKey);
    expect((await review(high)).score.score).toBeGreaterThanOrEqual(70);
    expect((await review(low)).score.score).toBeLessThan(70);

    // not before the delay: 599 s on a's clock leave both pending
    expect((await own('POST', `/sandbox/v1/tenants/${a.tenantId}/clock/advance`, { seconds: 599 })).status).toBe(200);
    expect((await review(high)).state).toBe('pending_review');
    expect((await review(low)).state).toBe('pending_review');
    const fired = await own('POST', `/sandbox/v1/tenants/${a.tenantId}/clock/advance`, { seconds: 1 });
    expect(fired.json.fired.byLabel).toMatchObject({ 'auto review': 2 });

    const h = await review(high);
    expect(h.decision).toMatchObject({ decision: 'approved', reviewerId: 'auto' });
    expect((await review(low)).decision).toMatchObject({ decision: 'rejected', reviewerId: 'auto' });
    const row = h.ledger.find((e: any) => e.toState === 'approved');
    expect(row).toMatchObject({ fromState: 'pending_review', actor: 'reviewer:auto' });
    expect(row.payload).toMatchObject({ decision: 'approved', reviewerRole: 'automatic reviewer' });
    expect(row.payload.latencyMs).toBeGreaterThanOrEqual(600_000); // on a's clock, plus the real time the test took
    // b has no automatic reviewer: still waiting for a person
    expect((await review(other)).state).toBe('pending_review');

    // the delivery is signed and shaped like a person's decision (b's, decided by hand now)
    const human = await admin()('POST', `/sandbox/v1/reviews/${other}/decision`, {
      decision: 'approved',
      reviewerId: 'sari',
    });
    expect(human.status).toBe(200);
    const auto = await waitFor(() => decidedHook(high), 'the automatic decision delivered');
    const person = await waitFor(() => decidedHook(other), "the person's decision delivered");
    expect(verify('whsec_auto_review_a', auto.body, auto.headers['x-screening-signature'] as string)).toBe(true);
    expect(Object.keys(auto.headers).sort()).toEqual(Object.keys(person.headers).sort());
    const shape = (o: unknown): unknown =>
      o && typeof o === 'object'
        ? Object.fromEntries(
            Object.entries(o)
              .map(([k, v]) => [k, shape(v)])
              .sort(),
          )
        : typeof o;
    const autoBody = JSON.parse(auto.body);
    const personBody = JSON.parse(person.body);
    delete autoBody.data?.note;
    delete autoBody.result?.note;
    expect(shape(autoBody)).toEqual(shape(personBody));
    await waitFor(
      async () => ((await review(high)).state === 'delivered' ? true : undefined),
      'the automatic decision to reach delivered',
    );
  });

  it('decides the reviews already waiting when it is turned on, and stops when it is turned off', async () => {
    const { baseUrl } = sb.get();
    const t = await createTenant(baseUrl, { planTier: 'pro' });
    const own = client(baseUrl, t.apiKey);
    const waiting = await submitted(t.apiKey);
    expect(
      (
        await own('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, {
          autoReview: { afterSeconds: 60, rule: 'edit', editedScore: 55 },
        })
      ).status,
    ).toBe(200);
    await own('POST', `/sandbox/v1/tenants/${t.tenantId}/clock/advance`, { seconds: 60 });
    const d = await review(waiting);
    expect(d.decision).toMatchObject({ decision: 'edited', reviewerId: 'auto' });
    expect(d.edits).toEqual({ editedScore: 55 });

    const later = await submitted(t.apiKey);
    expect((await own('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { autoReview: null })).json.autoReview).toBeNull();
    await own('POST', `/sandbox/v1/tenants/${t.tenantId}/clock/advance`, { seconds: 120 });
    expect((await review(later)).state).toBe('pending_review');
  });

  it('refuses a malformed setting with a 400 naming the field, changing nothing', async () => {
    const { baseUrl } = sb.get();
    const t = await createTenant(baseUrl, { planTier: 'pro' });
    const own = client(baseUrl, t.apiKey);
    for (const [autoReview, field] of [
      [{ rule: 'approve' }, 'autoReview.afterSeconds'],
      [{ afterSeconds: 259200, rule: 'approve' }, 'autoReview.afterSeconds'],
      [{ afterSeconds: 5, rule: 'maybe' }, 'autoReview.rule'],
      [{ afterSeconds: 5, rule: 'approve_if_score_at_least' }, 'autoReview.minScore'],
      [{ afterSeconds: 5, rule: 'edit' }, 'autoReview.editedScore'],
      [{ afterSeconds: 5, rule: 'approve', minScore: 3 }, 'autoReview.minScore'],
      [{ afterSeconds: 5, rule: 'approve', colour: 'red' }, 'autoReview.colour'],
      ['on', 'autoReview'],
    ] as const) {
      const res = await own('PATCH', `/sandbox/v1/tenants/${t.tenantId}`, { autoReview });
      expect(res.status, JSON.stringify(autoReview)).toBe(400);
      expect(res.json.error.message, JSON.stringify(autoReview)).toContain(field);
    }
    expect((await admin()('GET', `/sandbox/v1/tenants/${t.tenantId}`)).json.autoReview).toBeNull();
  });

  it("is shown and set on the console's tenant page, with a bad value's message on the page", async () => {
    const { baseUrl } = sb.get();
    const t = await createTenant(baseUrl, { planTier: 'pro' });
    const b = browser(baseUrl);
    await b.login();
    const page = `/console/tenants/${t.tenantId}`;
    expect((await b.request('GET', page)).text).toContain('Off: every review waits for a person');
    const csrf = await b.csrf(page);
    const form = {
      _csrf: csrf,
      action: 'autoReview',
      afterSeconds: '90',
      rule: 'approve_if_score_at_least',
      minScore: '75',
      else: 'rejected',
      editedScore: '',
    };
    expect((await b.request('POST', page, form)).status).toBe(303);
    expect((await admin()('GET', page.replace('/console', '/sandbox/v1'))).json.autoReview).toEqual({
      afterSeconds: 90,
      rule: 'approve_if_score_at_least',
      minScore: 75,
      else: 'rejected',
    });
    expect((await b.request('GET', page)).text).toContain('On: 90 s after a request is queued');
    await b.request('POST', page, { ...form, afterSeconds: 'soon' });
    expect((await b.request('GET', page)).text).toContain('autoReview.afterSeconds must be a whole number');
    expect((await b.request('POST', `${page}/auto-review/off`, { _csrf: csrf })).status).toBe(303);
    expect((await admin()('GET', page.replace('/console', '/sandbox/v1'))).json.autoReview).toBeNull();
  });
});
