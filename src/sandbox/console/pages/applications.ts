// Job applications: what apply_to_job and POST /api/v1/jobs/{id}/apply put in the curation queue
// for jobs that have an employer contact.

import { Hono } from 'hono';
import { badge, controlError, empty, pager, time } from '../components.js';
import { html, safeHref, seg } from '../html.js';
import { renderPage } from '../layout.js';
import type { ConsoleEnv } from '../types.js';
import type { Application } from '../../../domain/jobs/types.js';

export function applicationPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const tenantId = c.req.query('tenantId') ?? '';
    const res = await c.var.ctl.get<{ applications: Application[]; nextCursor: string | null }>('/applications', {
      tenantId,
      order: 'desc',
      cursor: c.req.query('cursor'),
    });
    const apps = res.ok ? res.data.applications : [];
    const body = !res.ok
      ? controlError('applications', res)
      : apps.length === 0
        ? empty(
            html`No applications in the curation queue — apply to a job that has an employer contact with <code>POST /api/v1/jobs/{id}/apply</code> or the MCP <code>apply_to_job</code> tool (paid tiers).`,
          )
        : html`<div class="table-wrap" tabindex="0"><table class="list">
  <caption class="sr-only">Applications</caption>
  <thead><tr><th scope="col">Application</th><th scope="col">Job</th><th scope="col">Candidate</th><th scope="col">Channel</th><th scope="col">Status</th><th scope="col">Received</th></tr></thead>
  <tbody>${apps.map((a) => {
    const resume = safeHref(a.resume_url);
    return html`<tr>
      <th scope="row"><code>${a.applicationId}</code><br><a class="small" href="/console/tenants/${seg(a.tenantId)}">${a.tenantId}</a></th>
      <td>${a.jobTitle}<br><span class="muted small">${a.company} · <code>${a.jobId}</code></span></td>
      <td>${a.candidate_name}<br><span class="small">${a.candidate_email}</span>${resume ? html`<br><a class="small" href="${resume}" rel="noopener noreferrer">résumé</a>` : ''}
        <details><summary>Message${a.locale ? ` (${a.locale})` : ''}</summary><p class="pre">${a.message}</p></details></td>
      <td>${a.channel}</td>
      <td>${badge(a.status)}</td>
      <td>${time(a.createdAt)}</td>
    </tr>`;
  })}</tbody>
</table></div>${pager(c.req.url, res.data.nextCursor, 'applications')}`;
    return renderPage(c, {
      title: 'Job applications',
      active: '/console/applications',
      lead: 'Applications submitted through the service wait here for curation before they reach the employer.',
      body: html`<form method="get" action="/console/applications" class="filters" role="search" aria-label="Filter applications">
  <label for="f-tenant">Tenant id</label><input id="f-tenant" name="tenantId" value="${tenantId}" placeholder="any tenant">
  <button type="submit">Filter</button>
</form>${body}`,
    });
  });

  return r;
}
