// Control API: fault switches (chaos rules, each for everyone or for one tenant, and planted bugs) and reset.

import { Hono } from 'hono';
import { invalid, notFound } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';
import type { ChaosRuleInput } from '../../domain/faults.js';
import { onlyKeys, readObject } from './admin.js';
import { ensureVisible, ownTenant, tenantFor } from './caller.js';

export function systemRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/faults', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['tenantId']);
    const { faults } = c.var.core;
    const tenantId = tenantFor(c, query.tenantId);
    return c.json({
      rules: faults.listRules(tenantId),
      bugs: faults.planted.catalogue(),
    });
  });

  r.post('/faults', async (c) => {
    const body = await readObject(c);
    onlyKeys(body, ['path', 'method', 'mode', 'status', 'latencyMs', 'count', 'ratio', 'tenantId']);
    // a tenant's key makes only rules of its own tenant (tenantId forced; another tenant's is absent); only
    // the operator makes rules for everyone (D-133)
    const own = ownTenant(c);
    if (own !== undefined) {
      if (body.tenantId !== undefined && body.tenantId !== own)
        throw notFound(
          `tenant ${typeof body.tenantId === 'string' ? body.tenantId : JSON.stringify(body.tenantId)} does not exist`,
        );
      body.tenantId = own;
    }
    // a rule of one tenant matches only that tenant's calls and deliveries (D-121)
    if (body.tenantId !== undefined) {
      if (typeof body.tenantId !== 'string' || !c.var.core.tenants.list().some((t) => t.id === body.tenantId)) {
        throw invalid(`tenantId ${JSON.stringify(body.tenantId)} is not a tenant of this sandbox`, 'tenantId');
      }
    }
    if (
      body.path !== undefined &&
      (typeof body.path !== 'string' || !(body.path === '*' || body.path.startsWith('/')))
    ) {
      throw invalid("path must be '*' or a path starting with /", 'path');
    }
    if (
      body.method !== undefined &&
      (typeof body.method !== 'string' || !/^(GET|POST|PATCH|PUT|DELETE)$/i.test(body.method))
    ) {
      throw invalid('method must be GET, POST, PATCH, PUT or DELETE', 'method');
    }
    const rule = c.var.core.faults.addRule(body as unknown as ChaosRuleInput);
    return c.json(rule, 201);
  });

  r.delete('/faults', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['tenantId']);
    c.var.core.faults.clearRules(tenantFor(c, query.tenantId));
    return c.body(null, 204);
  });

  r.delete('/faults/:id', (c) => {
    const absent = () => notFound(`no fault rule ${c.req.param('id')}`);
    ensureVisible(
      c,
      c.var.core.faults.listRules().find((r) => r.id === c.req.param('id'))?.tenantId ?? undefined,
      absent,
    );
    if (!c.var.core.faults.removeRule(c.req.param('id'))) throw absent();
    return c.body(null, 204);
  });

  r.put('/bugs/:name', (c) => {
    c.var.core.faults.enableBug(c.req.param('name'));
    return c.json({ bugs: c.var.core.faults.activeBugs() });
  });

  r.delete('/bugs/:name', (c) => {
    c.var.core.faults.disableBug(c.req.param('name'));
    return c.json({ bugs: c.var.core.faults.activeBugs() });
  });

  r.post('/reset', (c) => {
    const core = c.var.core;
    core.reset();
    return c.json({ reset: true, now: core.clock.iso(), demo: core.demo });
  });

  r.get('/demo', (c) => c.json(c.var.core.demo ?? { tenants: [] }));

  return r;
}
