// The tenant's own test data, read only: its screening requests, its webhook deliveries and its calls in
// the request log, newest first and paged. Each list is taken for the signed-in account's tenant alone,
// never from a parameter. (Decisions, redelivery and the other test helpers of the console stay the
// operator's until tenant-scoped credentials reach /sandbox/v1.)

import { Hono, type Context } from 'hono';
import type { CallEntry } from '../../../domain/callLog.js';
import type { Delivery } from '../../../domain/webhooks/index.js';
import { badge, pager, time } from '../../console/components.js';
import { html, type Html } from '../../console/html.js';
import { pageOf, readPageQuery } from '../../control/paging.js';
import { renderPage } from '../layout.js';
import { BASE } from '../session.js';
import type { DashboardEnv } from '../types.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** Only `cursor` is read from the query: the tenant is the session's, the order newest first. */
const pageQuery = (c: Context) => readPageQuery({ cursor: c.req.query('cursor'), limit: '25' }, 'desc');

/** A table of rows, or an empty state; a heading starting with # is a number column (right-aligned). */
function table(label: string, head: string[], rows: Html[], none: string): Html {
  if (rows.length === 0) return html`<p class="empty">${none}</p>`;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${label}"><table class="list" data-field="${label.toLowerCase().replace(/\s+/g, '-')}">
    <thead><tr>${head.map((h) => (h.startsWith('#') ? html`<th scope="col" class="num">${h.slice(1)}</th>` : html`<th scope="col">${h}</th>`))}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

export function activityPages() {
  const r = new Hono<DashboardEnv>();

  r.get('/requests', (c) => {
    const tenantId = c.var.account.tenantId;
    const page = pageOf(
      c.var.core.screening.requests.ordered(tenantId),
      pageQuery(c),
      (q) => q.id,
      (q) => q.tenantId === tenantId,
    );
    const rows = page.items.map(
      (q) => html`<tr data-request-id="${q.id}"><th scope="row"><code>${q.id}</code></th><td>${badge(q.state)}</td>
        <td>${q.submission.jobSpec.title}</td><td class="num">${q.score ? q.score.score : html`<span class="muted">—</span>`}</td><td>${time(iso(q.createdAt))}</td></tr>`,
    );
    const body = html`${table('Screening requests', ['Request', 'State', 'Job', '#Score', 'Submitted'], rows, 'No screening requests yet: submit one with your key.')}
      ${pager(c.req.url, page.nextCursor, 'requests')}`;
    return renderPage(c, {
      title: 'Screening requests',
      active: `${BASE}/requests`,
      body,
      lead: 'Your tenant’s requests, newest first.',
    });
  });

  r.get('/deliveries', (c) => {
    const tenantId = c.var.account.tenantId;
    const page = pageOf(
      c.var.core.webhooks.ordered({ tenantId }),
      pageQuery(c),
      (d) => d.id,
      (d: Delivery) => d.tenantId === tenantId,
    );
    const rows = page.items.map(
      (d) => html`<tr data-delivery-id="${d.id}"><th scope="row"><code>${d.event}</code></th><td>${badge(d.status)}</td>
        <td><code class="small">${d.requestId}</code></td><td class="num">${d.attempts.length}</td><td class="wrap small">${d.url ?? html`<span class="muted">no URL</span>`}</td><td>${time(iso(d.createdAt))}</td></tr>`,
    );
    const body = html`${table('Webhook deliveries', ['Event', 'Status', 'Request', '#Attempts', 'URL', 'Created'], rows, 'No deliveries yet.')}
      ${pager(c.req.url, page.nextCursor, 'deliveries')}`;
    return renderPage(c, {
      title: 'Webhook deliveries',
      active: `${BASE}/deliveries`,
      body,
      lead: 'Every delivery of your tenant’s events, newest first.',
    });
  });

  r.get('/logs', (c) => {
    const tenantId = c.var.account.tenantId;
    const { entries, base } = c.var.core.callLog.window(tenantId);
    const page = pageOf(entries, pageQuery(c), (e: CallEntry) => e.id, undefined, base);
    const rows = page.items.map(
      (
        e,
      ) => html`<tr data-log-id="${e.id}"><td>${time(e.at)}</td><td>${e.api.toUpperCase()}</td><th scope="row" class="wrap"><code>${e.method} ${e.path}</code>${e.tool ? html` <span class="muted small">${e.tool}</span>` : ''}</th>
        <td class="num">${e.status}</td></tr>`,
    );
    const body = html`${table('Request log', ['When', 'API', 'Call', '#Status'], rows, 'No calls with your keys among the latest the sandbox keeps.')}
      ${pager(c.req.url, page.nextCursor, 'calls')}`;
    return renderPage(c, {
      title: 'Request log',
      active: `${BASE}/logs`,
      body,
      lead: 'The latest REST and MCP calls made with your keys, newest first.',
    });
  });

  return r;
}
