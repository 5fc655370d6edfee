// Control API: job applications in the curation queue, submitted through apply_to_job, over REST or
// MCP (what an operator reviews before forwarding to the employer). Listed a page at a time.

import { Hono } from 'hono';
import { notFound } from '../../errors/errors.js';
import { onlyParams, textParam } from '../../domain/jobs/params.js';
import type { AppEnv } from '../../web/env.js';
import { ensureVisible, tenantFor } from './caller.js';
import { PAGE_PARAMS, pageOf, readPageQuery } from './paging.js';

export function applicationsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', (c) => {
    const params = c.req.query();
    onlyParams(params, ['tenantId', ...PAGE_PARAMS]);
    const tenantId = tenantFor(c, textParam(params, 'tenantId'));
    const { jobs } = c.var.core;
    const match = tenantId === undefined ? undefined : (a: { tenantId: string }) => a.tenantId === tenantId;
    const page = pageOf(jobs.orderedApplications(), readPageQuery(params), (a) => a.applicationId, match);
    return c.json({ applications: page.items.map((a) => ({ ...a })), nextCursor: page.nextCursor });
  });

  r.get('/:applicationId', (c) => {
    const id = c.req.param('applicationId');
    const application = c.var.core.jobs.application(id);
    if (!application) throw notFound(`no application '${id}'`);
    ensureVisible(c, application.tenantId, () => notFound(`no application '${id}'`));
    return c.json(application);
  });

  return r;
}
