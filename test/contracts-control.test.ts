// contracts/control.openapi.yaml, the control API's own description: a valid OpenAPI 3.1 document,
// listing exactly the routes the control API serves, whose answers validate against it.

import SwaggerParser from '@apidevtools/swagger-parser';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createAjv } from '../src/contract/ajv.js';
import { SCOPES } from '../src/domain/tenants.js';
import { controlRoutes } from '../src/sandbox/control/index.js';
import { ADMIN_TOKEN, client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const raw = parse(readFileSync(new URL('../contracts/control.openapi.yaml', import.meta.url), 'utf8'));
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const shape = (path: string) => path.replace(/\{[^}]+\}|:[^/]+/g, '{}');

const sb = useSandbox({ corpusSize: 50 });

describe('the control API description', () => {
  it('is a valid OpenAPI 3.1 document with an operationId and the admin scheme on every operation', async () => {
    const doc: any = await SwaggerParser.validate(structuredClone(raw));
    expect(doc.openapi).toBe('3.1.0');
    for (const item of Object.values<any>(raw.paths)) {
      for (const m of METHODS) {
        if (!item[m]) continue;
        expect(item[m].operationId).toMatch(/^[a-z][A-Za-z]+$/);
        // the admin token reaches every route; some also take a tenant's own key, maybe needing one key scope (D-133)
        expect(item[m].security[0]).toEqual({ adminToken: [] });
        expect(item[m].security.length).toBeLessThanOrEqual(2);
        for (const alt of item[m].security.slice(1)) {
          expect(Object.keys(alt)).toEqual(['tenantKey']);
          expect(alt.tenantKey.length).toBeLessThanOrEqual(1);
          for (const scope of alt.tenantKey) expect(SCOPES).toContain(scope);
        }
      }
    }
  });

  it('documents exactly the routes the control API serves', () => {
    const served = new Set(
      controlRoutes()
        .routes.filter((r) => r.method !== 'ALL')
        .map((r) => `${r.method} ${shape(`/sandbox/v1${r.path}`).replace(/\/$/, '')}`),
    );
    const documented = new Set(
      Object.entries<any>(raw.paths).flatMap(([path, item]) =>
        METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${shape(path)}`),
      ),
    );
    expect([...documented].sort()).toEqual([...served].sort());
  });

  it("validates the sandbox's real answers", async () => {
    const doc: any = await SwaggerParser.dereference(structuredClone(raw));
    const ajv = createAjv({ strict: false });
    const check = (path: string, method: string, status: number, body: unknown) => {
      const schema = doc.paths[path][method].responses[String(status)]?.content?.['application/json']?.schema;
      expect(schema, `${method} ${path} ${status} is documented`).toBeDefined();
      const ok = ajv.validate(schema, body);
      expect(ok ? [] : ajv.errors, `${method} ${path} ${status}`).toEqual([]);
    };
    const { baseUrl } = sb.get();
    const admin = client(baseUrl, ADMIN_TOKEN);
    const t = await createTenant(baseUrl, { planTier: 'pro', webhookUrl: 'http://127.0.0.1:9/closed' });
    const sub = await client(baseUrl, t.apiKey)('POST', `${SCREENING}/screen`, submitBody());
    const requestId = sub.json.requestId;
    await waitFor(
      async () =>
        (await admin('GET', `/sandbox/v1/reviews/${requestId}`)).json.state === 'pending_review' ? true : undefined,
      'review',
    );
    const calls: [string, string, string, unknown?][] = [
      ['/sandbox/v1/tenants', 'get', '/sandbox/v1/tenants?limit=2'],
      ['/sandbox/v1/tenants/{tenantId}', 'get', `/sandbox/v1/tenants/${t.tenantId}`],
      [
        '/sandbox/v1/tenants/{tenantId}/webhook-secret/rotate',
        'post',
        `/sandbox/v1/tenants/${t.tenantId}/webhook-secret/rotate`,
        { overlapSeconds: 60 },
      ],
      ['/sandbox/v1/reviews', 'get', '/sandbox/v1/reviews?state=pending_review'],
      ['/sandbox/v1/reviews/counts', 'get', '/sandbox/v1/reviews/counts'],
      ['/sandbox/v1/reviews/{requestId}', 'get', `/sandbox/v1/reviews/${requestId}`],
      ['/sandbox/v1/webhooks/deliveries', 'get', `/sandbox/v1/webhooks/deliveries?tenantId=${t.tenantId}`],
      ['/sandbox/v1/webhooks/endpoints', 'get', '/sandbox/v1/webhooks/endpoints'],
      ['/sandbox/v1/logs', 'get', '/sandbox/v1/logs?limit=5'],
      ['/sandbox/v1/store', 'get', '/sandbox/v1/store'],
      ['/sandbox/v1/store', 'get', '/sandbox/v1/store?verbose=1'],
      ['/sandbox/v1/clock', 'get', '/sandbox/v1/clock'],
      ['/sandbox/v1/clock/timers', 'get', '/sandbox/v1/clock/timers'],
      ['/sandbox/v1/clock/advance', 'post', '/sandbox/v1/clock/advance', { seconds: 10 }],
      [
        '/sandbox/v1/tenants/{tenantId}/clock/advance',
        'post',
        `/sandbox/v1/tenants/${t.tenantId}/clock/advance`,
        { seconds: 30 },
      ],
      ['/sandbox/v1/tenants/{tenantId}/clock', 'get', `/sandbox/v1/tenants/${t.tenantId}/clock`],
      ['/sandbox/v1/tenants/{tenantId}/clock', 'get', '/sandbox/v1/tenants/ten_nobody/clock'],
      ['/sandbox/v1/clock/timers', 'get', `/sandbox/v1/clock/timers?tenantId=${t.tenantId}`],
      ['/sandbox/v1/faults', 'post', '/sandbox/v1/faults', { mode: 'latency', latencyMs: 1, tenantId: t.tenantId }],
      ['/sandbox/v1/faults', 'get', `/sandbox/v1/faults?tenantId=${t.tenantId}`],
      ['/sandbox/v1/faults', 'post', '/sandbox/v1/faults', { mode: 'latency', latencyMs: 1, tenantId: 'ten_nobody' }],
      [
        '/sandbox/v1/reviews/{requestId}/decision',
        'post',
        `/sandbox/v1/reviews/${requestId}/decision`,
        { decision: 'edited', reviewerId: 'r1', editedScore: 40 },
      ],
      ['/sandbox/v1/reviews', 'get', '/sandbox/v1/reviews?limit=0'],
      ['/sandbox/v1/tenants/{tenantId}', 'get', '/sandbox/v1/tenants/ten_nobody'],
      ['/sandbox/v1/webhooks/listen/listeners', 'get', `/sandbox/v1/webhooks/listen/listeners?tenantId=${t.tenantId}`],
      ['/sandbox/v1/webhooks/listen', 'get', '/sandbox/v1/webhooks/listen'],
      [
        '/sandbox/v1/webhooks/listen/{attemptId}/answer',
        'post',
        '/sandbox/v1/webhooks/listen/whd_nothing.1/answer',
        { tenantId: t.tenantId, statusCode: 200, durationMs: 3 },
      ],
      [
        '/sandbox/v1/webhooks/listen/{attemptId}/answer',
        'post',
        '/sandbox/v1/webhooks/listen/whd_nothing.1/answer',
        { statusCode: 99, durationMs: 3 },
      ],
    ];
    for (const [path, method, url, body] of calls) {
      const res = await admin(method.toUpperCase(), url, body);
      check(path, method, res.status, res.json);
    }
    const unauth = await client(baseUrl)('GET', '/sandbox/v1/clock');
    check('/sandbox/v1/clock', 'get', unauth.status, unauth.json);
  });
});
