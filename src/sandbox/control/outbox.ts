// Control API: the sandbox outbox, the e-mails the employer tools would have sent (hire shortlists,
// free-listing notices). GET /sandbox/v1/outbox[?to=address], a page at a time.

import { Hono } from 'hono';
import type { AppEnv } from '../../web/env.js';
import { onlyKeys } from './admin.js';
import { ownTenant } from './caller.js';
import { PAGE_PARAMS, pageOf, readPageQuery } from './paging.js';

export function outboxRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['to', ...PAGE_PARAMS]);
    const to = query.to?.toLowerCase();
    // a tenant's key sees the messages its own calls sent (data.tenantId), the operator every one
    const own = ownTenant(c);
    type Msg = { to: string; data: Record<string, unknown> };
    const match =
      to || own ? (m: Msg) => (!to || m.to.toLowerCase() === to) && (!own || m.data.tenantId === own) : undefined;
    const page = pageOf(c.var.core.employer.outbox.ordered(), readPageQuery(query), (m) => m.id, match);
    return c.json({ messages: page.items.map((m) => structuredClone(m)), nextCursor: page.nextCursor });
  });
  return r;
}
