// Tenant isolation as a property: for any interleaving of submits by several tenants (sharing
// idempotency keys on purpose), each tenant's usage and audit export reflect its own requests only.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { client, createTenant, useSandbox } from './support/sandbox.js';
import { SCREENING, submitBody, waitFor } from './support/screening.js';

const sb = useSandbox({ seedDemo: false, corpusSize: 50 });
const base = () => sb.get().baseUrl;
const TENANTS = 3;

const command = fc.record({
  tenant: fc.nat(TENANTS - 1),
  key: fc.constantFrom('k1', 'k2', 'k3', 'k4'),
  batch: fc.boolean(),
});

async function auditAll(apiKey: string): Promise<any[]> {
  const events: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await client(base(), apiKey)(
      'GET',
      `${SCREENING}/audit?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(res.status).toBe(200);
    events.push(...res.json.events);
    cursor = res.json.nextCursor;
  } while (cursor);
  return events;
}

describe('tenant isolation', () => {
  it("never shows a tenant another tenant's usage or ledger rows", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 24 }), async (commands) => {
        const tenants = await Promise.all(
          Array.from({ length: TENANTS }, () => createTenant(base(), { planTier: 'starter' })),
        );
        const requestsOf = tenants.map(() => new Set<string>());
        const keysOf = tenants.map(() => new Set<string>());
        // consecutive `batch` commands run concurrently: a random interleaving of the calls
        const groups: (typeof commands)[] = [];
        for (const c of commands) {
          if (c.batch && groups.length > 0) groups.at(-1)!.push(c);
          else groups.push([c]);
        }
        for (const group of groups) {
          const results = await Promise.all(
            group.map((c) =>
              client(base(), tenants[c.tenant].apiKey)(
                'POST',
                `${SCREENING}/screen`,
                submitBody({ idempotencyKey: c.key }),
              ),
            ),
          );
          results.forEach((res, i) => {
            const c = group[i];
            expect([200, 201]).toContain(res.status);
            requestsOf[c.tenant].add(res.json.requestId);
            keysOf[c.tenant].add(c.key);
          });
        }
        // one request per (tenant, key), never shared between tenants
        const all = requestsOf.flatMap((s) => [...s]);
        expect(new Set(all).size).toBe(all.length);
        requestsOf.forEach((s, i) => expect(s.size).toBe(keysOf[i].size));

        const core = sb.get().core;
        await waitFor(() => all.every((id) => core.screening.get(id)?.state === 'pending_review'), 'pipelines');
        for (let i = 0; i < TENANTS; i++) {
          const usage = (await client(base(), tenants[i].apiKey)('GET', `${SCREENING}/usage`)).json;
          expect(usage.tenantId).toBe(tenants[i].tenantId);
          expect(usage.creditsRemaining).toBe(100 - keysOf[i].size);
          const events = await auditAll(tenants[i].apiKey);
          expect(events.every((e) => requestsOf[i].has(e.requestId))).toBe(true);
          expect(new Set(events.map((e) => e.requestId))).toEqual(requestsOf[i]);
          expect(events.filter((e) => e.fromState === null)).toHaveLength(keysOf[i].size);
          expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
        }
      }),
      { numRuns: 15 },
    );
  });
});
