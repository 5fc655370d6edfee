// Control API: the sandbox outbox, the e-mails the employer tools would have sent (hire shortlists,
// free-listing notices). GET /sandbox/v1/outbox[?to=address].

import { Hono } from 'hono';
import { invalid } from '../../errors/errors.js';
import type { AppEnv } from '../../web/env.js';

export function outboxRoutes() {
  const r = new Hono<AppEnv>();
  r.get('/', (c) => {
    for (const name of Object.keys(c.req.query())) {
      if (name !== 'to') throw invalid(`unknown query parameter '${name}'; allowed: to`, name);
    }
    return c.json({ messages: c.var.core.employer.outbox.list(c.req.query('to')) });
  });
  return r;
}
