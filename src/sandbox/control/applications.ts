// Control API: the curation queue of applications submitted to employer-contact jobs, over REST or
// MCP (what an operator reviews before forwarding to the employer).

import { Hono } from 'hono';
import { notFound } from '../../errors/errors.js';
import { onlyParams, textParam } from '../../domain/jobs/params.js';
import type { AppEnv } from '../../web/env.js';

export function applicationsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', (c) => {
    const params = c.req.query();
    onlyParams(params, ['tenantId']);
    const tenantId = textParam(params, 'tenantId');
    const { jobs, tenants } = c.var.core;
    if (tenantId !== undefined) tenants.get(tenantId);
    return c.json({ applications: jobs.applications(tenantId) });
  });

  r.get('/:applicationId', (c) => {
    const id = c.req.param('applicationId');
    const application = c.var.core.jobs.application(id);
    if (!application) throw notFound(`no application '${id}'`);
    return c.json(application);
  });

  return r;
}
