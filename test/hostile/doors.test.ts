// Hostile input, part 3: no open doors (issue 13 items 6 to 10). Checkout links need their CSPRNG token
// (D-84); ids never repeat across a restart (D-83); prototype names and a garbage Origin are 4xx, not 500;
// large heads are read up to the contract's bounds and refused past them with the envelope (D-82); console
// sign-in is throttled (D-86); `javascript:` résumé links and inverted salary bands are refused (D-85).

import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { largeHead, post } from '../../bench/lib/hostile.js';
import { startSandbox, type RunningSandbox } from '../../src/main.js';
import { call, connectMcp } from '../support/mcp.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from '../support/sandbox.js';
import { SCREENING, submitBody, waitFor } from '../support/screening.js';

const sb = useSandbox({ corpusSize: 200 });

describe('checkout', () => {
  it("opens and pays an order only with its link's token", async () => {
    const { baseUrl } = sb.get();
    const owner = await createTenant(baseUrl, { planTier: 'pro' });
    const mcp = await connectMcp(`${baseUrl}/api/mcp`, owner.apiKey);
    try {
      const description =
        'Build and run the payment APIs of an Indonesian coffee marketplace in Go and PostgreSQL, fully remote.';
      const order = (
        await call(mcp.client, 'post_job', {
          title: 'Backend Engineer',
          company: 'Kopi Kode',
          description,
          apply_url: 'https://kopikode.example/jobs/1',
          contact_email: 'hr@kopikode.example',
        })
      ).data;
      const link = new URL(order.checkoutUrl);
      const token = link.searchParams.get('token')!;
      expect(token).toMatch(/^[0-9a-z]{32}$/);
      const anyone = client(baseUrl);
      const path = `/checkout/${order.orderId}`;
      // the token with its last character changed (a random token may itself end in the replacement)
      const wrong = `${token.slice(0, 31)}${token.endsWith('x') ? 'y' : 'x'}`;
      for (const q of ['', '?token=', `?token=${wrong}`]) {
        const read = await anyone('GET', path + q);
        expect(read.status).toBe(404);
        expect(read.text).not.toContain('kopikode.example');
        expect((await anyone('POST', `${path}/pay${q}`)).status).toBe(404);
      }
      expect((await anyone('GET', `${path}?token=${token}`)).json.order.status).toBe('pending_payment');
      expect((await anyone('POST', `${path}/pay?token=${token}`)).json.order.status).toBe('live');
    } finally {
      await mcp.close();
    }
  });
});

describe('ids across a restart', () => {
  async function oneRun() {
    const s = await startSandbox({
      host: '127.0.0.1',
      port: 0,
      anonMcpPort: 0,
      adminToken: ADMIN_TOKEN,
      corpusSize: 50,
    });
    try {
      return await idsOf(s);
    } finally {
      await s.close();
    }
  }

  async function idsOf(s: RunningSandbox) {
    const t = await createTenant(s.baseUrl, { planTier: 'pro' });
    const key = (await client(s.baseUrl, ADMIN_TOKEN)('POST', `/sandbox/v1/tenants/${t.tenantId}/keys`, {})).json;
    const sub = await client(s.baseUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    await waitFor(() => s.core.screening.get(sub.json.requestId)?.state === 'pending_review', 'pipeline');
    const events = (await client(s.baseUrl, t.apiKey)('GET', `${SCREENING}/audit`)).json.events.map((e: any) => e.id);
    const demo = s.core.demo!.tenants.map((d) => [d.tenantId, d.apiKey]);
    return {
      tenant: t.tenantId,
      key: key.keyId ?? key.id,
      request: sub.json.requestId as string,
      events: events as string[],
      demo,
    };
  }

  it('hands out new tenant, key, request and event ids after a restart with the same seed; demo tenants stay', async () => {
    const a = await oneRun();
    const b = await oneRun();
    expect(b.tenant).not.toBe(a.tenant);
    expect(b.key).not.toBe(a.key);
    expect(b.request).not.toBe(a.request);
    expect(b.events.some((id) => a.events.includes(id))).toBe(false);
    // event ids keep rising from one run to the next (D-21: never reset)
    expect([...a.events, ...b.events]).toEqual([...a.events, ...b.events].sort());
    expect(b.demo).toEqual(a.demo);
  });
});

describe('4xx, not 500', () => {
  it('answers prototype names under /docs/assets and /console/assets with 404', async () => {
    for (const p of [
      '/docs/assets/constructor',
      '/docs/assets/__proto__',
      '/docs/assets/toString',
      '/console/assets/__proto__',
      '/console/assets/constructor',
    ]) {
      expect((await fetch(sb.get().baseUrl + p)).status, p).toBe(404);
    }
  });

  it('refuses a console sign-in with an Origin that is not a URL with 403', async () => {
    const res = await fetch(`${sb.get().baseUrl}/console/login`, {
      method: 'POST',
      headers: { origin: 'garbage', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=x',
      redirect: 'manual',
    });
    expect(res.status).toBe(403);
  });
});

describe('request heads', () => {
  it('reads q and location of 10,000 characters each, percent-encoded', async () => {
    const { baseUrl, core } = sb.get();
    const key = core.demo!.tenants.find((t) => t.planTier === 'pro')!.apiKey;
    const q = encodeURIComponent('é'.repeat(10_000));
    const res = await client(baseUrl, key)('GET', `/api/v1/jobs?q=${q}&location=${q}`);
    expect(res.status).toBe(200);
    expect(res.json.jobs).toEqual([]);
  });

  it('answers a head past the limit with 431 and the envelope', async () => {
    const res = await largeHead(`${sb.get().baseUrl}/api/v1/jobs`, 300_000);
    expect(res).toMatchObject({ status: 431 });
    expect(JSON.parse((res as { text: string }).text).error).toEqual({
      code: 'invalid_request',
      message: 'the request head is larger than 262144 bytes',
    });
  });

  it('answers a request Node cannot parse with 400 and the envelope', async () => {
    const { port } = new URL(sb.get().baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.code).toBe('invalid_request');
  });
});

describe('smaller doors', () => {
  it('throttles console sign-in after 10 failures a minute with 429 and Retry-After', async () => {
    const s = await startSandbox({
      host: '127.0.0.1',
      port: 0,
      anonMcpPort: 0,
      adminToken: ADMIN_TOKEN,
      corpusSize: 50,
    });
    try {
      const attempt = (token: string) =>
        fetch(`${s.baseUrl}/console/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `token=${token}`,
          redirect: 'manual',
        });
      for (let i = 0; i < 10; i++) expect((await attempt(`wrong-${i}`)).status).toBe(401);
      const refused = await attempt('wrong-again');
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // the right token waits too: guessing on cannot be told apart from signing in
      expect((await attempt(ADMIN_TOKEN)).status).toBe(429);
    } finally {
      await s.close();
    }
  });

  it('refuses a javascript: resume_url on apply, over REST and MCP, charging nothing', async () => {
    const { baseUrl, core } = sb.get();
    const t = await createTenant(baseUrl, { planTier: 'pro' });
    const job = core.jobs.search('pro', { limit: 1 }).jobs[0];
    const body = {
      candidate_name: 'Dewi',
      candidate_email: 'dewi@example.com',
      message: 'I would like to apply. '.repeat(5),
      resume_url: 'javascript:alert(document.cookie)',
    };
    const res = await post(`${baseUrl}/api/v1/jobs/${job.id}/apply`, JSON.stringify(body), {
      authorization: `Bearer ${t.apiKey}`,
    });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/resume_url/);
    const mcp = await connectMcp(`${baseUrl}/api/mcp`, t.apiKey);
    try {
      const r = await call(mcp.client, 'apply_to_job', { id: job.id, ...body });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.data)).toMatch(/resume_url/);
    } finally {
      await mcp.close();
    }
    const me = await client(baseUrl, t.apiKey)('GET', '/api/v1/me');
    expect(me.json.applyCredits.remaining).toBe(me.json.applyCredits.perMonth);
  });

  it('refuses an inverted salary band with 400 naming both fields, charging nothing', async () => {
    const { baseUrl } = sb.get();
    const t = await createTenant(baseUrl, { planTier: 'pro' });
    const api = client(baseUrl, t.apiKey);
    const res = await api(
      'POST',
      `${SCREENING}/screen`,
      submitBody({
        jobSpec: { title: 'Engineer', mustHaves: ['Go'], salaryBandMinIdr: 40_000_000, salaryBandMaxIdr: 25_000_000 },
      }),
    );
    expect(res.status).toBe(400);
    expect(res.json.error.message).toMatch(/salaryBandMinIdr.*salaryBandMaxIdr/);
    const usage = (await api('GET', `${SCREENING}/usage`)).json;
    expect(usage.creditsRemaining).toBe(usage.creditsCap);
  });
});
