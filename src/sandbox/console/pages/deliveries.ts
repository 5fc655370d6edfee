// Webhook deliveries: each delivery's exact body and signature header, every attempt with its
// status and latency, the next retry time, and a Redeliver button.

import { Hono, type Context } from 'hono';
import { badge, controlError, empty, time } from '../components.js';
import { back, csrfField, field, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import { safeNext } from '../login.js';
import type { ConsoleEnv } from '../types.js';

interface Attempt {
  attempt: number;
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

interface Delivery {
  id: string;
  tenantId: string;
  requestId: string;
  event: string;
  url: string;
  body: string;
  signature: string;
  status: string;
  attempts: Attempt[];
  nextAttemptAt: string | null;
  createdAt: string;
}

function attempts(list: Attempt[]): Html {
  if (list.length === 0) return html`<p class="muted">No attempt yet.</p>`;
  return html`<table class="list attempts">
    <thead><tr><th scope="col">#</th><th scope="col">At</th><th scope="col">Result</th><th scope="col" class="num">Latency</th></tr></thead>
    <tbody>${list.map((a) => {
      const ok = a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;
      return html`<tr><td>${a.attempt}</td><td>${time(a.at)}</td>
        <td>${a.statusCode !== null ? html`<span class="badge ${ok ? 'good' : 'bad'}">HTTP ${a.statusCode}</span>` : ''} ${a.error ? html`<span class="error-text">${a.error}</span>` : ''}</td>
        <td class="num">${a.durationMs} ms</td></tr>`;
    })}</tbody>
  </table>`;
}

function card(c: Context<ConsoleEnv>, d: Delivery, returnTo: string): Html {
  const hid = `dl-${d.id.replace(/[^\w-]/g, '')}`;
  return html`<article class="panel delivery" aria-labelledby="${hid}" data-delivery-id="${d.id}" data-event="${d.event}">
  <header class="review-head">
    <h2 id="${hid}"><code>${d.event}</code> <span class="muted">→</span> <span class="wrap">${d.url}</span></h2>
    ${badge(d.status)}
  </header>
  <dl class="facts compact">
    <div><dt>Delivery</dt><dd><code>${d.id}</code></dd></div>
    <div><dt>Request</dt><dd><a href="/console/requests/${seg(d.requestId)}"><code>${d.requestId}</code></a></dd></div>
    <div><dt>Tenant</dt><dd><a href="/console/tenants/${seg(d.tenantId)}"><code>${d.tenantId}</code></a></dd></div>
    <div><dt>Created</dt><dd>${time(d.createdAt)}</dd></div>
    <div><dt>Next attempt</dt><dd>${d.nextAttemptAt ? time(d.nextAttemptAt) : html`<span class="muted">none scheduled</span>`}</dd></div>
  </dl>
  <h3>Signature header</h3>
  <p><code class="signature" data-field="signature">X-Screening-Signature: ${d.signature}</code></p>
  <h3>Body <span class="muted small">(exact bytes sent, ${Buffer.byteLength(d.body)} bytes)</span></h3>
  <pre class="raw" data-field="body">${d.body}</pre>
  <h3>Attempts</h3>
  ${attempts(d.attempts ?? [])}
  <form method="post" action="/console/deliveries/${seg(d.id)}/redeliver">
    ${csrfField(c)}<input type="hidden" name="return" value="${returnTo}">
    <button type="submit">Redeliver</button>
  </form>
</article>`;
}

export function deliveryPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const tenantId = c.req.query('tenantId') ?? '';
    const requestId = c.req.query('requestId') ?? '';
    const res = await c.var.ctl.get<{ deliveries: Delivery[] }>('/webhooks/deliveries', { tenantId, requestId });
    const url = new URL(c.req.url);
    const returnTo = url.pathname + url.search;
    let list: Html;
    if (!res.ok) list = controlError('webhook deliveries', res);
    else if (res.data.deliveries.length === 0) {
      list = empty('No webhook deliveries yet — give a tenant a webhook URL, then submit a candidate; a delivery is sent when it is scored and again after the review decision.');
    } else {
      const sorted = [...res.data.deliveries].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      list = html`${sorted.map((d) => card(c, d, returnTo))}`;
    }
    return renderPage(c, {
      title: 'Webhook deliveries',
      active: '/console/deliveries',
      lead: 'Signed deliveries to tenants’ webhook URLs. Failed attempts are retried on the sandbox clock; advance it to fire due retries.',
      body: html`<form method="get" action="/console/deliveries" class="filters" role="search" aria-label="Filter deliveries">
  <label for="f-tenant">Tenant id</label><input id="f-tenant" name="tenantId" value="${tenantId}" placeholder="any tenant">
  <label for="f-req">Request id</label><input id="f-req" name="requestId" value="${requestId}" placeholder="any request">
  <button type="submit">Filter</button>
  <label class="auto" for="auto-refresh" hidden><input type="checkbox" id="auto-refresh" data-refresh="#deliveries"> Auto-refresh every 5 s</label>
</form>
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
