// The REST APIs and their contracts as generic API testing tools drive them, over raw HTTP: the
// key-in-query rule refusing only keys, the offset maximum, the candidate_email pattern, a wrong method's Allow header,
// and OpenAPI links and examples a fuzzer can chain.

import { describe, expect, it } from 'vitest';
import { startSandbox } from '../src/main.js';
import { applyBody, balances } from './support/jobs.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';

const sb = useSandbox({ corpusSize: 300 });
const served = async (path: string) => (await fetch(sb.get().baseUrl + path)).json();

describe('a key in the query string (D-08)', () => {
  it('refuses only what is a key, naming the parameter', async () => {
    const { apiKey } = await createTenant(sb.get().baseUrl, { planTier: 'pro' });
    const api = client(sb.get().baseUrl, apiKey);
    const ok = await api('GET', '/api/v1/jobs?q=feature_live_toggle');
    expect(ok.status, ok.text).toBe(200);
    expect((await api('GET', '/api/v1/jobs?location=my_live_area&q=x_live_y')).status).toBe(200);
    for (const [query, param] of [
      [`api_key=${apiKey}`, 'api_key'],
      ['token=whatever', 'token'],
      [`q=${apiKey}`, 'q'],
      [`q=Bearer%20${apiKey}`, 'q'],
    ]) {
      const res = await api('GET', `/api/v1/jobs?${query}`);
      expect(res.status, query).toBe(401);
      expect(res.json.error.message, query).toContain(`'${param}'`);
    }
    const screening = await api('GET', `/api/screening/v1/usage?note=${apiKey}`);
    expect(screening.status).toBe(401);
    expect(screening.json.error.message).toContain("'note'");
  });
});

describe('offset (D-90)', () => {
  it('is bounded in the contract and refused past the bound, quoting what was sent', async () => {
    const doc = await served('/api/openapi.json');
    const offset = doc.paths['/api/v1/jobs'].get.parameters.find((p: any) => p.name === 'offset');
    expect(offset.schema.maximum).toBe(10000);
    const { apiKey } = await createTenant(sb.get().baseUrl, { planTier: 'pro' });
    const api = client(sb.get().baseUrl, apiKey);
    expect((await api('GET', '/api/v1/jobs?offset=10000')).status).toBe(402); // past pro's page cap, within the bound
    for (const sent of ['10001', '9007199254740993', '99999999999999999999']) {
      const res = await api('GET', `/api/v1/jobs?offset=${sent}`);
      expect(res.status, sent).toBe(400);
      expect(res.json.error.message, sent).toContain('offset');
      expect(res.json.error.message, sent).toContain(sent);
    }
  });
});

describe('candidate_email (D-94)', () => {
  it('is pinned by a pattern every validator reads alike: 0@com is refused, nothing charged', async () => {
    const doc = await served('/api/openapi.json');
    const schema =
      doc.components.schemas.ApplyRequest?.properties?.candidate_email ??
      doc.paths['/api/v1/jobs/{id}/apply'].post.requestBody.content['application/json'].schema.properties
        .candidate_email;
    expect(typeof schema.pattern).toBe('string');
    const re = new RegExp(schema.pattern, 'u');
    expect(re.test('0@com')).toBe(false);
    expect(re.test('dewi@example.com')).toBe(true);
    const t = await createTenant(sb.get().baseUrl, { planTier: 'pro' });
    const api = client(sb.get().baseUrl, t.apiKey);
    const id = (await api('GET', '/api/v1/jobs?limit=1')).json.jobs[0].id;
    const before = await balances(sb.get(), t.tenantId);
    for (const email of ['0@com', 'a@-b.example', 'dewi@example']) {
      const res = await api('POST', `/api/v1/jobs/${id}/apply`, applyBody({ candidate_email: email }));
      expect(res.status, email).toBe(400);
      expect(res.json.error.message, email).toContain('candidate_email');
    }
    expect(await balances(sb.get(), t.tenantId)).toEqual(before);
  });
});

describe('unsupported methods (D-45)', () => {
  it('answer 404 not_found with Allow naming the served methods on documented paths (no code goes with 405)', async () => {
    const { apiKey } = await createTenant(sb.get().baseUrl, { planTier: 'pro' });
    const api = client(sb.get().baseUrl, apiKey);
    for (const [method, path, allow] of [
      ['DELETE', '/api/v1/jobs', 'GET, HEAD, OPTIONS'],
      ['PUT', '/api/v1/jobs/job_9dvebpqrsgc3', 'GET, HEAD, OPTIONS'],
      ['GET', '/api/v1/jobs/job_9dvebpqrsgc3/apply', 'POST, OPTIONS'],
      ['POST', '/api/v1/me', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/api/v1/market/roles/backend-engineering', 'GET, HEAD, OPTIONS'],
      ['GET', '/api/screening/v1/screen', 'POST, OPTIONS'],
      ['DELETE', '/api/screening/v1/audit', 'GET, HEAD, OPTIONS'],
    ]) {
      const res = await api(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(res.json.error.code).toBe('not_found');
      expect(res.json.error.message).toContain(method);
      expect(res.json.error.message).toContain(allow.split(',')[0]);
    }
    const wrong = await api('DELETE', '/api/v1/jobs');
    expect(wrong.headers.get('x-ratelimit-limit')).not.toBeNull();
    const unknown = await api('GET', '/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
  });
});

describe('OpenAPI links and examples', () => {
  it('serve every document with `servers` at the origin it was fetched from', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const origin = sb.get().baseUrl.replace('127.0.0.1', host);
      for (const path of ['/api/openapi.json', '/docs/jobs.json', '/docs/screening.json', '/docs/control.json']) {
        const doc = await (await fetch(origin + path)).json();
        expect(
          doc.servers.map((s: { url: string }) => new URL(s.url).origin),
          `${path} via ${host}`,
        ).toEqual([origin]);
      }
    }
  });

  it('chain search → get → apply and submit → audit, with examples that exist', async () => {
    const jobs = await served('/api/openapi.json');
    const search = jobs.paths['/api/v1/jobs'].get.responses['200'].links;
    expect(search.GetFirstJob).toMatchObject({
      operationId: 'getJob',
      parameters: { id: '$response.body#/jobs/0/id' },
    });
    expect(jobs.paths['/api/v1/jobs/{id}'].get.responses['200'].links.ApplyToJob).toMatchObject({
      operationId: 'applyToJob',
      parameters: { id: '$response.body#/id' },
    });
    const screening = await served('/docs/screening.json');
    const submit = screening.paths['/api/screening/v1/screen'].post.responses;
    expect(submit['201'].links.AuditTrail.operationId).toBe('getAudit');
    expect(screening.paths['/api/screening/v1/audit'].get.responses['200'].links.NextPage.parameters.cursor).toBe(
      '$response.body#/nextCursor',
    );

    // the examples name things a default sandbox really has
    const exampleId =
      jobs.paths['/api/v1/jobs/{id}'].get.parameters.find((p: any) => p.name === 'id')?.example ??
      jobs.components.parameters.JobId.example;
    const slug = jobs.paths['/api/v1/market/roles/{role}'].get.parameters.find((p: any) => p.name === 'role').example;
    // a sandbox with the default seed and corpus, as a QA team starts it
    const real = await startSandbox({ host: '127.0.0.1', port: 0, anonMcpPort: 0, adminToken: ADMIN_TOKEN });
    try {
      const { apiKey } = await createTenant(real.baseUrl, { planTier: 'pro' });
      const api = client(real.baseUrl, apiKey);
      expect((await api('GET', `/api/v1/jobs/${exampleId}`)).status).toBe(200);
      expect((await api('GET', `/api/v1/market/roles/${slug}`)).status).toBe(200);
    } finally {
      await real.close();
    }
  });
});
