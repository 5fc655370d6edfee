// Control API: webhook deliveries (exact bodies, signatures, every attempt) and redelivery.

import { Hono } from 'hono';
import { notFound } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';
import { deliveryView } from '../../domain/webhooks/index.js';
import { onlyKeys } from './admin.js';

export function webhooksRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/deliveries', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['tenantId', 'requestId']);
    const deliveries = c.var.core.webhooks.list({ tenantId: query.tenantId || undefined, requestId: query.requestId || undefined });
    return c.json({ deliveries: deliveries.map(deliveryView) });
  });

  r.get('/deliveries/:id', (c) => {
    const d = c.var.core.webhooks.get(c.req.param('id'));
    if (!d) throw notFound(`no webhook delivery ${c.req.param('id')}`);
    return c.json(deliveryView(d));
  });

  r.post('/deliveries/:id/redeliver', (c) => {
    const d = c.var.core.webhooks.redeliver(c.req.param('id'));
    return c.json({ delivery: deliveryView(d) }, 202);
  });

  return r;
}
