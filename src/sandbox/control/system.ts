// Control API: the sandbox clock, fault switches (chaos rules and planted bugs) and reset.

import { Hono } from 'hono';
import { invalid, notFound } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';
import { BUGS, type ChaosRuleInput } from '../../domain/faults.js';
import { onlyKeys, readObject } from './admin.js';

export function systemRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/clock', (c) => {
    const { clock } = c.var.core;
    return c.json({ now: clock.iso(), pendingTimers: clock.pendingTimers() });
  });

  // what is pending (the soonest timers, a count per kind: one pass over the timers) and what the
  // last advances fired
  r.get('/clock/timers', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['limit']);
    const limit = query.limit === undefined ? 20 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw invalid('limit must be an integer from 1 to 200', 'limit');
    const { clock } = c.var.core;
    const pending = clock.pending(limit);
    return c.json({ now: clock.iso(), pendingTimers: pending.total, pendingByLabel: pending.byLabel, soonest: pending.soonest, advances: clock.history() });
  });

  r.post('/clock/advance', async (c) => {
    const body = await readObject(c);
    onlyKeys(body, ['seconds']);
    const s = body.seconds;
    if (typeof s !== 'number' || !Number.isFinite(s) || s < 0 || s > 366 * 86400) {
      throw invalid('seconds must be a number from 0 to 31622400 (one leap year)', 'seconds');
    }
    const { clock } = c.var.core;
    clock.advance(s);
    return c.json({ now: clock.iso(), pendingTimers: clock.pendingTimers(), fired: clock.history()[0] });
  });

  r.get('/faults', (c) => {
    const { faults } = c.var.core;
    return c.json({
      rules: faults.listRules(),
      bugs: Object.entries(BUGS).map(([name, description]) => ({ name, description, enabled: faults.bug(name as keyof typeof BUGS) })),
    });
  });

  r.post('/faults', async (c) => {
    const body = await readObject(c);
    onlyKeys(body, ['path', 'method', 'mode', 'status', 'latencyMs', 'count', 'ratio']);
    if (body.path !== undefined && (typeof body.path !== 'string' || !(body.path === '*' || body.path.startsWith('/')))) {
      throw invalid("path must be '*' or a path starting with /", 'path');
    }
    if (body.method !== undefined && (typeof body.method !== 'string' || !/^(GET|POST|PATCH|PUT|DELETE)$/i.test(body.method))) {
      throw invalid('method must be GET, POST, PATCH, PUT or DELETE', 'method');
    }
    const rule = c.var.core.faults.addRule(body as unknown as ChaosRuleInput);
    return c.json(rule, 201);
  });

  r.delete('/faults', (c) => {
    c.var.core.faults.clearRules();
    return c.body(null, 204);
  });

  r.delete('/faults/:id', (c) => {
    if (!c.var.core.faults.removeRule(c.req.param('id'))) throw notFound(`no fault rule ${c.req.param('id')}`);
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
