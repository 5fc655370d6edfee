// Demo tenants and keys from fixtures/demo-tenants.json. Keys are derived from the seed, so the same
// seed prints the same demo keys on every start (like a payment provider's fixed test keys).
// Requirements: POL-AUTH-3; decisions D-30, D-50.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PlanTier } from './plans.js';
import { Rng } from './rng.js';
import { KEY_PREFIX, type Scope, type TenantService } from './tenants.js';

interface DemoTenantFixture {
  name: string;
  planTier: PlanTier;
  scopes?: Scope[];
  note?: string;
}

export interface DemoTenant {
  name: string;
  tenantId: string;
  planTier: PlanTier;
  scopes: Scope[];
  apiKey: string;
  webhookSecret: string;
  note?: string;
}

export interface DemoSeed {
  tenants: DemoTenant[];
}

const FIXTURE = fileURLToPath(new URL('../../fixtures/demo-tenants.json', import.meta.url));

export function seedDemo(core: { config: { seed: number }; tenants: TenantService }): DemoSeed {
  const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { tenants: DemoTenantFixture[] };
  const rng = new Rng(core.config.seed).fork('demo-keys');
  // a generator of its own, so the demo keys stay what earlier versions printed for the same seed
  const idRng = new Rng(core.config.seed).fork('demo-tenant-ids');
  const tenants = fixture.tenants.map((f) => {
    const apiKey = `${KEY_PREFIX}${rng.token(32)}`;
    const { tenant, key } = core.tenants.create({
      name: f.name,
      planTier: f.planTier,
      scopes: f.scopes,
      apiKey,
      webhookSecret: `whsec_${rng.token(32)}`,
      id: `ten_demo${idRng.token(12)}`,
    });
    return {
      name: f.name,
      tenantId: tenant.id,
      planTier: tenant.planTier,
      scopes: key.scopes,
      apiKey,
      webhookSecret: tenant.webhookSecret,
      ...(f.note ? { note: f.note } : {}),
    };
  });
  return { tenants };
}
