// Request timeline: every screening request, newest first, a page at a time; and one request's
// state in plain words (with the reason of a failure), the candidate and job spec, the score with a
// reviewer's edits in the model's place, the decision, the ledger rows in order, the deliveries it
// caused with their health on the badge, and a link to its calls in the request log.

import { Hono } from 'hono';
import { badge, controlError, empty, pager, scoreCard, time } from '../components.js';
import type { ControlResult } from '../control.js';
import { html, prettyJson, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import { submissionView } from '../submission.js';
import { deliveryHealth, healthBadge, stateInWords } from '../states.js';
import type { ConsoleEnv } from '../types.js';
import { decisionForm } from './decisionForm.js';
import { SCREENING_STATES as STATES } from '../../../domain/screening/types.js';
import type { ReviewSummary } from './reviews.js';
import type { Wire } from '../types.js';

interface AuditEvent {
  id: string;
  requestId: string;
  fromState?: string | null;
  toState: string;
  actor: string;
  payload?: unknown;
  createdAt: string;
}

interface RequestDetail extends ReviewSummary {
  idempotencyKey: string;
  decision: Record<string, unknown> | null;
  edits: { editedScore?: number; editedRationale?: string } | null;
  ledger: AuditEvent[];
}

function ledger(rows: AuditEvent[]): Html {
  if (rows.length === 0) return empty('No ledger rows yet.');
  return html`<ol class="timeline">${rows.map(
    (e) => html`<li>
      <div class="when">${time(e.createdAt)}</div>
      <div class="what">${e.fromState ? html`${badge(e.fromState)} → ` : ''}${badge(e.toState)} <span class="actor">by <code>${e.actor}</code></span></div>
      ${e.payload !== undefined && e.payload !== null ? html`<details><summary>Payload <span class="muted small">${e.id}</span></summary><pre tabindex="0">${prettyJson(e.payload)}</pre></details>` : html`<div class="muted small">${e.id}</div>`}
    </li>`,
  )}</ol>`;
}

function decisionView(d: Record<string, unknown> | null, edits: RequestDetail['edits'], ended: boolean): Html {
  if (!d)
    return html`<p class="muted">${ended ? 'No decision: the request ended before a reviewer decided.' : 'No decision yet.'}</p>`;
  const all = { ...d, ...(edits ?? {}) };
  return html`<dl class="facts fields">${Object.entries(all).map(([k, v]) => html`<div><dt>${k}</dt><dd class="wrap">${typeof v === 'object' ? html`<pre tabindex="0">${prettyJson(v)}</pre>` : String(v)}</dd></div>`)}</dl>`;
}

function deliveriesSummary(
  requestId: string,
  res: ControlResult<{ deliveries: Wire[] }>,
  hasWebhook: boolean | null,
  endedUnscored: boolean,
): Html {
  if (!res.ok) return controlError('webhook deliveries', res);
  const list = res.data?.deliveries ?? [];
  if (list.length === 0) {
    if (endedUnscored) return empty('No webhook deliveries: the request ended before it was scored, so none was due.');
    return empty(
      hasWebhook === false
        ? 'No webhook deliveries: the tenant has no webhook URL.'
        : 'No webhook deliveries for this request yet.',
    );
  }
  return html`<div class="table-wrap" tabindex="0"><table class="list">
    <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col">Next retry</th></tr></thead>
    <tbody>${list.map((d) => html`<tr><td><code>${d.event}</code></td><td>${badge(d.status)}</td><td class="num">${d.attempts?.length ?? 0}</td><td>${d.nextAttemptAt ? time(d.nextAttemptAt) : html`<span class="muted">none</span>`}</td></tr>`)}</tbody>
  </table></div>
  <p><a href="/console/deliveries?requestId=${seg(requestId)}">Headers, bodies, signatures and answers of every attempt</a></p>`;
}

function lookup(value = ''): Html {
  return html`<form method="get" action="/console/requests/lookup" class="filters" role="search" aria-label="Find a request">
  <label for="rq-id">Request id</label><input id="rq-id" name="id" value="${value}" placeholder="scr_…" required>
  <button type="submit">Open timeline</button>
</form>`;
}

function stateFilter(state: string): Html {
  return html`<form method="get" action="/console/requests" class="filters" aria-label="Filter requests">
  <label for="rq-state">State</label>
  <select id="rq-state" name="state"><option value="">any state</option>${STATES.map((s) => html`<option value="${s}"${s === state ? html` selected` : ''}>${s}</option>`)}</select>
  <button type="submit">Filter</button>
</form>`;
}

export function requestPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const state = c.req.query('state') ?? '';
    const res = await c.var.ctl.get<{ reviews: ReviewSummary[]; nextCursor: string | null }>('/reviews', {
      order: 'desc',
      state,
      cursor: c.req.query('cursor'),
    });
    const list = !res.ok
      ? controlError('requests', res)
      : res.data.reviews.length === 0
        ? empty(html`No screening requests yet — submit one with <code>POST /api/screening/v1/screen</code>.`)
        : html`<div class="table-wrap" tabindex="0"><table class="list"><caption class="sr-only">Requests, newest first</caption>
        <thead><tr><th scope="col">Request</th><th scope="col">Candidate / job</th><th scope="col">State</th><th scope="col">Tenant</th><th scope="col">Received</th></tr></thead>
        <tbody>${res.data.reviews.map(
          (
            q,
          ) => html`<tr><th scope="row"><a href="/console/requests/${seg(q.requestId)}"><code>${q.requestId}</code></a></th>
          <td>${q.candidateLabel} <span class="muted">for</span> ${q.jobTitle}</td><td>${badge(q.state)}</td><td><code>${q.tenantId}</code></td><td>${time(q.createdAt)}</td></tr>`,
        )}</tbody></table></div>
        ${pager(c.req.url, res.data.nextCursor, 'requests')}`;
    return renderPage(c, {
      title: 'Request timeline',
      active: '/console/requests',
      lead: 'Every screening request, newest first, from intake through scoring and human review to delivery.',
      body: html`${lookup()}${stateFilter(state)}${list}`,
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
      c.var.ctl.get<{ deliveries: Wire[] }>('/webhooks/deliveries', { requestId, limit: '100' }),
    ]);
    if (!res.ok) {
      return renderPage(c, {
        title: 'Request timeline',
        active: '/console/requests',
        status: 404,
        body: html`${lookup(requestId)}${controlError(`request ${requestId}`, res)}`,
      });
    }
    const q = res.data;
    const tenant = await c.var.ctl.get<{ webhookUrl: string | null }>(`/tenants/${seg(q.tenantId)}`);
    const path = `/console/requests/${seg(q.requestId)}`;
    const health = deliveryHealth(deliveries.ok ? deliveries.data.deliveries : []);
    const ended = q.state === 'failed' || q.state === 'expired';
    const notScored = ended ? 'No score: the request ended before it was scored.' : 'Not scored yet.';
    return renderPage(c, {
      title: `Request ${q.requestId}`,
      active: '/console/requests',
      body: html`
${stateInWords(q.state, q.ledger ?? [])}
<dl class="facts">
  <div><dt>State</dt><dd><span data-field="state">${badge(q.state)}</span> ${healthBadge(health)}</dd></div>
  <div><dt>Tenant</dt><dd><a href="/console/tenants/${seg(q.tenantId)}"><code>${q.tenantId}</code></a></dd></div>
  <div><dt>Idempotency key</dt><dd class="wrap"><code>${q.idempotencyKey}</code></dd></div>
  <div><dt>Received</dt><dd>${time(q.createdAt)}</dd></div>
</dl>
<p class="links"><a href="/console/logs?tenantId=${seg(q.tenantId)}&amp;q=${seg(q.requestId)}">API calls about this request in the request log</a></p>
<section class="panel" aria-labelledby="sub-h"><h2 id="sub-h">Submission</h2>${submissionView(q.submission)}</section>
<div class="cols">
  <section class="panel" aria-labelledby="score-h"><h2 id="score-h">Score</h2>${scoreCard(q.score, 'h3', q.edits, notScored)}</section>
  <section class="panel" aria-labelledby="decision-h"><h2 id="decision-h">Review decision</h2>${decisionView(q.decision, q.edits, ended)}
    ${q.state === 'pending_review' ? decisionForm(c, q.requestId, path) : ''}</section>
  <section class="panel" aria-labelledby="ledger-h"><h2 id="ledger-h">Ledger</h2>${ledger(q.ledger ?? [])}</section>
  <section class="panel" aria-labelledby="hooks-h"><h2 id="hooks-h">Webhook deliveries</h2>${deliveriesSummary(q.requestId, deliveries, tenant.ok ? Boolean(tenant.data.webhookUrl) : null, ended && !q.score)}</section>
</div>`,
    });
  });

  return r;
}
