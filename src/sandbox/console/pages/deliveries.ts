// Webhook deliveries, newest first, filtered and paged: each endpoint's success rate, and for each
// delivery every attempt with the headers, exact body and signature sent and the receiver's status,
// answer (capped) and duration. "Send test event" and Redeliver (one extra attempt; the automatic
// retry schedule is left as it is).

import { Hono, type Context } from 'hono';
import type { EndpointStats } from '../../../domain/webhooks/stats.js';
import { badge, controlError, empty, pager, time } from '../components.js';
import { back, csrfField, field, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import { safeNext } from '../login.js';
import type { ConsoleEnv } from '../types.js';
import { attemptsTable, type Attempt } from './attempts.js';

interface Delivery {
  id: string;
  tenantId: string;
  requestId: string;
  event: string;
  url: string;
  body: string;
  signature: string;
  status: string;
  test: boolean;
  attempts: Attempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

type Endpoint = EndpointStats;

const STATUSES = ['pending', 'retrying', 'delivered', 'exhausted'];
const EVENTS = ['screening.scored', 'screening.review_decided'];

function card(c: Context<ConsoleEnv>, d: Delivery, returnTo: string): Html {
  const hid = `dl-${d.id.replace(/[^\w-]/g, '')}`;
  return html`<article class="panel delivery" aria-labelledby="${hid}" data-delivery-id="${d.id}" data-event="${d.event}">
  <header class="review-head">
    <h2 id="${hid}"><code>${d.event}</code>${d.test ? html` <span class="badge neutral">test</span>` : ''} <span class="muted">→</span> <span class="wrap">${d.url}</span></h2>
    ${badge(d.status)}
  </header>
  <dl class="facts compact">
    <div><dt>Delivery</dt><dd><code>${d.id}</code></dd></div>
    <div><dt>Request</dt><dd>${d.test ? html`<code>${d.requestId}</code>` : html`<a href="/console/requests/${seg(d.requestId)}"><code>${d.requestId}</code></a>`}</dd></div>
    <div><dt>Tenant</dt><dd><a href="/console/tenants/${seg(d.tenantId)}"><code>${d.tenantId}</code></a></dd></div>
    <div><dt>Created</dt><dd>${time(d.createdAt)}</dd></div>
    <div><dt>Next automatic attempt</dt><dd>${d.nextAttemptAt ? time(d.nextAttemptAt) : html`<span class="muted">none scheduled</span>`}</dd></div>
  </dl>
  <h3>Signature header <span class="muted small">(latest attempt)</span></h3>
  <p><code class="signature" data-field="signature">X-Screening-Signature: ${d.signature}</code></p>
  <h3>Body <span class="muted small">(latest attempt, exact bytes sent, ${Buffer.byteLength(d.body)} bytes)</span></h3>
  <pre tabindex="0" class="raw" data-field="body">${d.body}</pre>
  <h3>Attempts</h3>
  ${attemptsTable(d.id, d.attempts ?? [])}
  <form method="post" action="/console/deliveries/${seg(d.id)}/redeliver">
    ${csrfField(c)}<input type="hidden" name="return" value="${returnTo}">
    <button type="submit">Redeliver</button> <span class="help">One extra attempt now; scheduled retries stay as they are.</span>
  </form>
</article>`;
}

function endpointsTable(list: Endpoint[]): Html {
  if (list.length === 0) return html``;
  return html`<section class="panel" aria-labelledby="ep-h"><h2 id="ep-h">Endpoints</h2>
  <div class="table-wrap" tabindex="0"><table class="list endpoints">
    <thead><tr><th scope="col">Endpoint</th><th scope="col">Tenant</th><th scope="col" class="num">Success rate</th><th scope="col" class="num">Attempts</th><th scope="col">Last answer</th></tr></thead>
    <tbody>${list.map(
      (e) => html`<tr><td class="wrap">${e.url}</td><td><code>${e.tenantId}</code></td>
      <td class="num" data-field="success-rate">${e.successRate === null ? '—' : `${Math.round(e.successRate * 1000) / 10}%`}</td>
      <td class="num">${e.succeeded} / ${e.attempts}</td><td>${e.lastStatusCode ?? 'no answer'} at ${time(e.lastAttemptAt)}</td></tr>`,
    )}</tbody>
  </table></div></section>`;
}

const select = (id: string, name: string, label: string, values: string[], current: string) =>
  html`<span class="pair"><label for="${id}">${label}</label><select id="${id}" name="${name}"><option value="">any</option>${values.map((v) => html`<option value="${v}"${v === current ? html` selected` : ''}>${v}</option>`)}</select></span>`;

export function deliveryPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const q = (k: string) => c.req.query(k) ?? '';
    const [res, endpoints] = await Promise.all([
      c.var.ctl.get<{ deliveries: Delivery[]; nextCursor: string | null }>('/webhooks/deliveries', {
        tenantId: q('tenantId'),
        requestId: q('requestId'),
        status: q('status'),
        event: q('event'),
        cursor: q('cursor'),
        limit: '20',
      }),
      c.var.ctl.get<{ endpoints: Endpoint[] }>('/webhooks/endpoints', { tenantId: q('tenantId') }),
    ]);
    const url = new URL(c.req.url);
    const returnTo = url.pathname + url.search;
    let list: Html;
    if (!res.ok) list = controlError('webhook deliveries', res);
    else if (res.data.deliveries.length === 0) {
      list = empty(
        'No webhook deliveries match — give a tenant a webhook URL, then submit a candidate or send a test event; a delivery is sent when a request is scored and again after the review decision.',
      );
    } else
      list = html`${res.data.deliveries.map((d) => card(c, d, returnTo))}${pager(c.req.url, res.data.nextCursor, 'deliveries')}`;
    return renderPage(c, {
      title: 'Webhook deliveries',
      active: '/console/deliveries',
      lead: 'Signed deliveries to tenants’ webhook URLs, newest first. Failed attempts are retried on the sandbox clock; advance it to fire due retries.',
      body: html`<form method="get" action="/console/deliveries" class="filters" role="search" aria-label="Filter deliveries">
  <span class="pair"><label for="f-tenant">Tenant id</label><input id="f-tenant" name="tenantId" value="${q('tenantId')}" placeholder="any tenant"></span>
  <span class="pair"><label for="f-req">Request id</label><input id="f-req" name="requestId" value="${q('requestId')}" placeholder="any request"></span>
  ${select('f-status', 'status', 'Status', STATUSES, q('status'))}
  ${select('f-event', 'event', 'Event', EVENTS, q('event'))}
  <button type="submit">Filter</button>
  <label class="auto" for="auto-refresh" hidden><input type="checkbox" id="auto-refresh" data-refresh="#deliveries"> Auto-refresh every 5 s</label>
</form>
${endpoints.ok ? endpointsTable(endpoints.data.endpoints) : ''}
<div id="deliveries">${list}</div>`,
    });
  });

  r.post('/:id/redeliver', async (c) => {
    const id = c.req.param('id');
    const form = await readForm(c);
    const res = await c.var.ctl.send('POST', `/webhooks/deliveries/${seg(id)}/redeliver`);
    return back(c, safeNext(field(form, 'return') || '/console/deliveries'), res, `Redelivery of ${id} queued.`);
  });

  return r;
}
