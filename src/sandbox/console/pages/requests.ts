// Request timeline: one screening request's state, submission, score, decision, its ledger rows in
// order, and the webhook deliveries it caused.

import { Hono } from 'hono';
import { badge, controlError, empty, scoreCard, time } from '../components.js';
import type { ControlResult } from '../control.js';
import { html, prettyJson, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import type { ConsoleEnv } from '../types.js';
import { decisionForm } from './reviews.js';

interface AuditEvent {
  id: string;
  requestId: string;
  fromState?: string | null;
  toState: string;
  actor: string;
  payload?: unknown;
  createdAt: string;
}

interface RequestDetail {
  requestId: string;
  tenantId: string;
  state: string;
  idempotencyKey: string;
  submission: { candidate: unknown; jobSpec: unknown };
  score: any;
  decision: Record<string, unknown> | null;
  ledger: AuditEvent[];
  createdAt: string;
}

function ledger(rows: AuditEvent[]): Html {
  if (rows.length === 0) return empty('No ledger rows yet.');
  return html`<ol class="timeline">${rows.map(
    (e) => html`<li>
      <div class="when">${time(e.createdAt)}</div>
      <div class="what">${e.fromState ? html`${badge(e.fromState)} → ` : ''}${badge(e.toState)} <span class="actor">by <code>${e.actor}</code></span></div>
      ${e.payload !== undefined && e.payload !== null ? html`<details><summary>Payload <span class="muted small">${e.id}</span></summary><pre>${prettyJson(e.payload)}</pre></details>` : html`<div class="muted small">${e.id}</div>`}
    </li>`,
  )}</ol>`;
}

function decisionView(d: Record<string, unknown> | null): Html {
  if (!d) return html`<p class="muted">No decision yet.</p>`;
  return html`<dl class="facts fields">${Object.entries(d).map(([k, v]) => html`<div><dt>${k}</dt><dd>${typeof v === 'object' ? html`<pre>${prettyJson(v)}</pre>` : String(v)}</dd></div>`)}</dl>`;
}

function deliveriesSummary(requestId: string, res: ControlResult<{ deliveries: any[] }>): Html {
  if (!res.ok) return controlError('webhook deliveries', res);
  const list = res.data?.deliveries ?? [];
  if (list.length === 0) return empty('No webhook deliveries for this request (the tenant may have no webhook URL).');
  return html`<table class="list">
    <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Created</th></tr></thead>
    <tbody>${list.map((d) => html`<tr><td><code>${d.event}</code></td><td>${badge(d.status)}</td><td class="num">${d.attempts?.length ?? 0}</td><td>${time(d.createdAt)}</td></tr>`)}</tbody>
  </table>
  <p><a href="/console/deliveries?requestId=${seg(requestId)}">Bodies, signatures and attempts</a></p>`;
}

function lookup(value = ''): Html {
  return html`<form method="get" action="/console/requests/lookup" class="filters" role="search" aria-label="Find a request">
  <label for="rq-id">Request id</label><input id="rq-id" name="id" value="${value}" placeholder="scr_…" required>
  <button type="submit">Open timeline</button>
</form>`;
}

export function requestPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const res = await c.var.ctl.get<{ reviews: { requestId: string; tenantId: string; state: string; createdAt: string; jobTitle: string; candidateLabel: string }[] }>('/reviews');
    const rows = res.ok ? [...res.data.reviews].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).slice(0, 100) : [];
    const list = !res.ok
      ? controlError('requests', res)
      : rows.length === 0
        ? empty(html`No screening requests yet — submit one with <code>POST /api/screening/v1/screen</code>.`)
        : html`<table class="list"><caption class="sr-only">Recent requests</caption>
        <thead><tr><th scope="col">Request</th><th scope="col">Candidate / job</th><th scope="col">State</th><th scope="col">Tenant</th><th scope="col">Received</th></tr></thead>
        <tbody>${rows.map((q) => html`<tr><th scope="row"><a href="/console/requests/${seg(q.requestId)}"><code>${q.requestId}</code></a></th>
          <td>${q.candidateLabel} <span class="muted">for</span> ${q.jobTitle}</td><td>${badge(q.state)}</td><td><code>${q.tenantId}</code></td><td>${time(q.createdAt)}</td></tr>`)}</tbody></table>`;
    return renderPage(c, {
      title: 'Request timeline',
      active: '/console/requests',
      lead: 'Every screening request, from intake through scoring and human review to delivery.',
      body: html`${lookup()}${list}`,
    });
  });

  r.get('/lookup', (c) => {
    const id = (c.req.query('id') ?? '').trim();
    return c.redirect(id ? `/console/requests/${seg(id)}` : '/console/requests', 303);
  });

  r.get('/:requestId', async (c) => {
    const requestId = c.req.param('requestId');
    const [res, deliveries] = await Promise.all([
      c.var.ctl.get<RequestDetail>(`/reviews/${seg(requestId)}`),
      c.var.ctl.get<{ deliveries: any[] }>('/webhooks/deliveries', { requestId }),
    ]);
    if (!res.ok) {
      return renderPage(c, { title: 'Request timeline', active: '/console/requests', status: 404, body: html`${lookup(requestId)}${controlError(`request ${requestId}`, res)}` });
    }
    const q = res.data;
    const path = `/console/requests/${seg(q.requestId)}`;
    return renderPage(c, {
      title: `Request ${q.requestId}`,
      active: '/console/requests',
      body: html`
<dl class="facts">
  <div><dt>State</dt><dd data-field="state">${badge(q.state)}</dd></div>
  <div><dt>Tenant</dt><dd><a href="/console/tenants/${seg(q.tenantId)}"><code>${q.tenantId}</code></a></dd></div>
  <div><dt>Idempotency key</dt><dd><code>${q.idempotencyKey}</code></dd></div>
  <div><dt>Received</dt><dd>${time(q.createdAt)}</dd></div>
</dl>
${q.state === 'pending_review' ? html`<section class="panel" aria-labelledby="dec-h"><h2 id="dec-h">Decide</h2>${decisionForm(c, q.requestId, path)}</section>` : ''}
<div class="cols">
  <section class="panel" aria-labelledby="ledger-h"><h2 id="ledger-h">Ledger</h2>${ledger(q.ledger ?? [])}</section>
  <section class="panel" aria-labelledby="score-h"><h2 id="score-h">Score</h2>${scoreCard(q.score, 'h3')}</section>
  <section class="panel" aria-labelledby="decision-h"><h2 id="decision-h">Review decision</h2>${decisionView(q.decision)}</section>
  <section class="panel" aria-labelledby="hooks-h"><h2 id="hooks-h">Webhook deliveries</h2>${deliveriesSummary(q.requestId, deliveries)}</section>
  <section class="panel wide" aria-labelledby="sub-h"><h2 id="sub-h">Submission</h2>
    <h3>Candidate</h3><pre>${prettyJson(q.submission?.candidate)}</pre>
    <h3>Job spec</h3><pre>${prettyJson(q.submission?.jobSpec)}</pre>
  </section>
</div>`,
    });
  });

  return r;
}
