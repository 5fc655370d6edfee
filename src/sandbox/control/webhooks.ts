// Control API: webhook deliveries (every attempt with the headers, body and signature sent and the
// receiver's capped answer), filtered and paged; redelivery; "send test event"; success rate per
// endpoint.

import { Hono } from 'hono';
import { invalid, notFound } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';
import { deliveryView, type Delivery } from '../../domain/webhooks/index.js';
import { onlyKeys, readObject } from './admin.js';
import { ensureVisible, tenantFor } from './caller.js';
import { PAGE_PARAMS, pageOf, readPageQuery } from './paging.js';
import { sampleScore } from './sampleScore.js';

const STATUSES = ['pending', 'retrying', 'delivered', 'exhausted'] as const;
const EVENTS = ['screening.scored', 'screening.review_decided'] as const;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw invalid(`${name} must be one of ${allowed.join(', ')}`, name);
  return value as T;
}

export function webhooksRoutes() {
  const r = new Hono<AppEnv>();

  // newest first by default: the one just sent is the one being debugged
  r.get('/deliveries', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['tenantId', 'requestId', 'status', 'event', 'test', ...PAGE_PARAMS]);
    const status = oneOf(query.status, STATUSES, 'status');
    const event = oneOf(query.event, EVENTS, 'event');
    const test = oneOf(query.test, ['true', 'false'] as const, 'test');
    const tenantId = tenantFor(c, query.tenantId || undefined, false);
    const list = c.var.core.webhooks.ordered({ tenantId, requestId: query.requestId || undefined });
    const match = (d: Delivery) =>
      (!tenantId || d.tenantId === tenantId) &&
      (!status || d.status === status) &&
      (!event || d.event === event) &&
      (!test || String(d.test) === test);
    const page = pageOf(list, readPageQuery(query, 'desc'), (d) => d.id, match);
    return c.json({ deliveries: page.items.map(deliveryView), nextCursor: page.nextCursor });
  });

  r.get('/deliveries/:id', (c) => {
    const absent = () => notFound(`no webhook delivery ${c.req.param('id')}`);
    const d = c.var.core.webhooks.get(c.req.param('id'));
    if (!d) throw absent();
    ensureVisible(c, d.tenantId, absent);
    return c.json(deliveryView(d));
  });

  r.post('/deliveries/:id/redeliver', (c) => {
    ensureVisible(c, c.var.core.webhooks.get(c.req.param('id'))?.tenantId, () =>
      notFound(`no webhook delivery ${c.req.param('id')}`),
    );
    const d = c.var.core.webhooks.redeliver(c.req.param('id'));
    return c.json({ delivery: deliveryView(d) }, 202);
  });

  r.post('/test', async (c) => {
    const body = await readObject(c);
    onlyKeys(body, ['tenantId']);
    if (body.tenantId !== undefined && (typeof body.tenantId !== 'string' || !body.tenantId))
      throw invalid('tenantId must be a tenant id (a string)', 'tenantId');
    // a tenant's key sends to its own tenant (tenantId optional); the admin token must name one
    const tenantId = tenantFor(c, body.tenantId, false);
    if (tenantId === undefined) throw invalid('tenantId is required (a string)', 'tenantId');
    const d = c.var.core.webhooks.sendTest(tenantId, sampleScore());
    return c.json({ delivery: deliveryView(d) }, 202);
  });

  // a bounded summary, most recently used first (D-109): `limit` of them, no cursor
  r.get('/endpoints', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['tenantId', 'limit']);
    const { limit } = readPageQuery({ limit: query.limit });
    return c.json({
      endpoints: c.var.core.webhooks.endpoints(tenantFor(c, query.tenantId || undefined, false)).slice(0, limit),
    });
  });

  return r;
}
