// Control API: the sandbox outbox, the e-mails the employer tools would have sent (hire shortlists,
// free-listing notices). GET /sandbox/v1/outbox[?to=address], a page at a time.

import { Hono } from 'hono';
import type { AppEnv } from '../../web/env.js';
import { onlyKeys } from './admin.js';
import { PAGE_PARAMS, pageOf, readPageQuery } from './paging.js';

export function outboxRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/', (c) => {
    const query = c.req.query();
    onlyKeys(query, ['to', ...PAGE_PARAMS]);
    const to = query.to?.toLowerCase();
    const match = to ? (m: { to: string }) => m.to.toLowerCase() === to : undefined;
    const page = pageOf(c.var.core.employer.outbox.ordered(), readPageQuery(query), (m) => m.id, match);
    return c.json({ messages: page.items.map((m) => structuredClone(m)), nextCursor: page.nextCursor });
  });
  return r;
}
