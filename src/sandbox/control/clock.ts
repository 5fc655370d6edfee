// Control API: the sandbox clock and each tenant's clock (D-120). A tenant's clock is the sandbox clock
// plus the tenant's offset: advancing it fires only that tenant's timers and moves only that tenant's
// windows and stamps; advancing the sandbox clock moves every tenant's with it. The tenant routes live
// under /tenants/{id}/clock, so a tenant's own credential can be let into them later.

import { Hono, type Context } from 'hono';
import { invalid } from '../../errors/errors.js';
import type { Core } from '../../domain/core.js';
import type { AppEnv } from '../../web/env.js';
import { onlyKeys, readObject } from './admin.js';
import { tenantFor } from './caller.js';

const MAX_SECONDS = 366 * 86400;

async function readSeconds(c: Context<AppEnv>): Promise<number> {
  const body = await readObject(c);
  onlyKeys(body, ['seconds']);
  const s = body.seconds;
  if (typeof s !== 'number' || !Number.isFinite(s) || s < 0 || s > MAX_SECONDS) {
    throw invalid(`seconds must be a number from 0 to ${MAX_SECONDS} (one leap year)`, 'seconds');
  }
  return s;
}

function readLimit(query: Record<string, string>): number {
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    throw invalid('limit must be an integer from 1 to 200', 'limit');
  return limit;
}

/** One tenant's clock: its time, its offset, its pending timers and its advances (404 for an unknown tenant). */
export function tenantClockView(core: Core, tenantId: string, limit = 20) {
  const tenant = core.tenants.get(tenantId);
  const pending = core.clock.pending(limit, tenant.id);
  return {
    tenantId: tenant.id,
    now: tenant.clock.iso(),
    sandboxNow: core.clock.iso(core.clock.now()),
    offsetSeconds: tenant.clock.offsetMs / 1000,
    pendingTimers: pending.total,
    pendingByLabel: pending.byLabel,
    soonest: pending.soonest,
    advances: core.clock.history(tenant.id),
  };
}

/** GET /clock, GET /clock/timers[?tenantId=], POST /clock/advance: the sandbox clock (the operator's). */
export function sandboxClockRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', (c) => {
    const { clock } = c.var.core;
    return c.json({ now: clock.iso(), pendingTimers: clock.pendingTimers() });
  });

  // what is pending (the soonest timers, a count per kind: one pass over the timers) and what the
  // last advances fired; with tenantId, that tenant's timers and advances on its own clock
  r.get('/timers', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['limit', 'tenantId']);
    const limit = readLimit(query);
    const core = c.var.core;
    if (query.tenantId !== undefined) {
      const { now, pendingTimers, pendingByLabel, soonest, advances } = tenantClockView(core, query.tenantId, limit);
      return c.json({ now, pendingTimers, pendingByLabel, soonest, advances });
    }
    const pending = core.clock.pending(limit);
    return c.json({
      now: core.clock.iso(),
      pendingTimers: pending.total,
      pendingByLabel: pending.byLabel,
      soonest: pending.soonest,
      advances: core.clock.history(),
    });
  });

  r.post('/advance', async (c) => {
    const s = await readSeconds(c);
    const { clock } = c.var.core;
    clock.advance(s);
    return c.json({ now: clock.iso(), pendingTimers: clock.pendingTimers(), fired: clock.history(null)[0] });
  });

  return r;
}

/** GET /tenants/{id}/clock, POST /tenants/{id}/clock/advance: one tenant's clock. */
export function tenantClockRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/:id/clock', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['limit']);
    return c.json(tenantClockView(c.var.core, tenantFor(c, c.req.param('id'))!, readLimit(query)));
  });

  r.post('/:id/clock/advance', async (c) => {
    const core = c.var.core;
    const tenant = core.tenants.get(tenantFor(c, c.req.param('id'))!);
    const s = await readSeconds(c);
    core.clock.advanceTenant(tenant.id, s);
    const view = tenantClockView(core, tenant.id);
    return c.json({
      tenantId: view.tenantId,
      now: view.now,
      offsetSeconds: view.offsetSeconds,
      pendingTimers: view.pendingTimers,
      fired: core.clock.history(tenant.id)[0],
    });
  });

  return r;
}
