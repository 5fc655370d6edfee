// Each planted screening bug, switched on, breaks exactly the rule it names (so the conformance
// harness can be proven against it); switched off again, the rule holds.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verify } from '../src/domain/webhooks/signer.js';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, adminOf, deliveriesOf, settled, startReceiver, submitBody, waitFor } from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;

let rx: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});

const enabled: string[] = [];
async function bug(name: string) {
  expect((await adminOf(base())('PUT', `/sandbox/v1/bugs/${name}`)).status).toBe(200);
  enabled.push(name);
}
afterEach(async () => {
  for (const name of enabled.splice(0)) await adminOf(base())('DELETE', `/sandbox/v1/bugs/${name}`);
});

const credits = async (apiKey: string) =>
  (await client(base(), apiKey)('GET', `${SCREENING}/usage`)).json.creditsRemaining;

describe('planted screening bugs', () => {
  it('charge_twice_on_replay: a replay costs a second credit', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const api = client(base(), t.apiKey);
    const body = submitBody();
    await api('POST', `${SCREENING}/screen`, body);
    await bug('charge_twice_on_replay');
    expect((await api('POST', `${SCREENING}/screen`, body)).status).toBe(200);
    expect(await credits(t.apiKey)).toBe(98);
  });

  it('replay_returns_201: a replay answers 201', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const api = client(base(), t.apiKey);
    const body = submitBody();
    const first = await api('POST', `${SCREENING}/screen`, body);
    await bug('replay_returns_201');
    const again = await api('POST', `${SCREENING}/screen`, body);
    expect(again.status).toBe(201);
    expect(again.json.requestId).toBe(first.json.requestId);
    expect(await credits(t.apiKey)).toBe(99);
  });

  it('wrong_webhook_secret: the signature does not verify with the tenant secret', async () => {
    const t = await createTenant(base(), {
      planTier: 'starter',
      webhookUrl: rx.url,
      webhookSecret: 'whsec_bug_secret',
    });
    await bug('wrong_webhook_secret');
    const id = (await client(base(), t.apiKey)('POST', `${SCREENING}/screen`, submitBody())).json.requestId;
    const got = await waitFor(() => rx.received.find((r) => JSON.parse(r.body).requestId === id), 'delivery');
    expect(verify('whsec_bug_secret', got.body, got.headers['x-screening-signature'] as string)).toBe(false);
  });

  it("leak_audit_rows: a tenant with no requests sees another tenant's rows", async () => {
    const a = await createTenant(base(), { planTier: 'starter' });
    const b = await createTenant(base(), { planTier: 'starter' });
    await settled(base(), (await client(base(), a.apiKey)('POST', `${SCREENING}/screen`, submitBody())).json.requestId);
    expect((await client(base(), b.apiKey)('GET', `${SCREENING}/audit`)).json.events).toHaveLength(0);
    await bug('leak_audit_rows');
    const leaked = (await client(base(), b.apiKey)('GET', `${SCREENING}/audit`)).json.events;
    expect(leaked.length).toBeGreaterThan(0);
  });

  it('crash_on_empty_musthaves: an empty mustHaves answers 500 without charging', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    await bug('crash_on_empty_musthaves');
    const res = await client(base(), t.apiKey)(
      'POST',
      `${SCREENING}/screen`,
      submitBody({ jobSpec: { title: 'X', mustHaves: [] } }),
    );
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('internal');
    expect(await credits(t.apiKey)).toBe(100);
  });

  it('skip_ledger_row: the parsed -> scored transition writes no row', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    await bug('skip_ledger_row');
    const d = await settled(
      base(),
      (await client(base(), t.apiKey)('POST', `${SCREENING}/screen`, submitBody())).json.requestId,
    );
    expect(d.state).toBe('pending_review');
    expect(d.ledger.map((e: any) => e.toState)).toEqual(['received', 'parsed', 'pending_review']);
  });

  it('since_on_every_page: a walk with since skips rows', async () => {
    const t = await createTenant(base(), { planTier: 'starter' });
    const api = client(base(), t.apiKey);
    const since = sb.get().core.clock.iso();
    for (let i = 0; i < 3; i++)
      await settled(base(), (await api('POST', `${SCREENING}/screen`, submitBody())).json.requestId);
    const walk = async () => {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const q: string = `?since=${encodeURIComponent(since)}&limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const p = (await api('GET', `${SCREENING}/audit${q}`)).json;
        ids.push(...p.events.map((e: any) => e.id));
        cursor = p.nextCursor;
      } while (cursor);
      return ids;
    };
    expect(await walk()).toHaveLength(12);
    await bug('since_on_every_page');
    expect((await walk()).length).toBeLessThan(12);
  });

  it("usage_other_tenant: usage reports another tenant's wallet", async () => {
    const a = await createTenant(base(), { planTier: 'free' });
    const b = await createTenant(base(), { planTier: 'free' });
    await client(base(), a.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    await bug('usage_other_tenant');
    const ua = (await client(base(), a.apiKey)('GET', `${SCREENING}/usage`)).json;
    expect(ua.tenantId).toBe(a.tenantId);
    // no other tenant of this sandbox is a free tenant with exactly one screen used
    expect(ua.creditsRemaining).not.toBe(9);
    expect(b.tenantId).not.toBe(a.tenantId);
  });

  it('switched off, the rules hold again', async () => {
    const t = await createTenant(base(), {
      planTier: 'starter',
      webhookUrl: rx.url,
      webhookSecret: 'whsec_clean_secret',
    });
    const api = client(base(), t.apiKey);
    const body = submitBody();
    const first = await api('POST', `${SCREENING}/screen`, body);
    expect((await api('POST', `${SCREENING}/screen`, body)).status).toBe(200);
    expect(await credits(t.apiKey)).toBe(99);
    const d = await settled(base(), first.json.requestId);
    expect(d.ledger.map((e: any) => e.toState)).toEqual(['received', 'parsed', 'scored', 'pending_review']);
    const [delivery] = await waitFor(async () => {
      const ds = await deliveriesOf(base(), first.json.requestId);
      return ds.length > 0 && ds[0].attempts.length > 0 ? ds : undefined;
    }, 'delivery');
    expect(verify('whsec_clean_secret', delivery.body, delivery.signature)).toBe(true);
  });
});
