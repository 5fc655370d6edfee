// Review queue: the human step of screening. Shows each pending request's score, rationale and
// dimension evidence, and posts approve / reject / edit decisions to /sandbox/v1/reviews.

import { Hono, type Context } from 'hono';
import { badge, controlError, empty, scoreCard, time } from '../components.js';
import { back, csrfField, field, numberOrRaw, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import { safeNext } from '../login.js';
import type { ConsoleEnv } from '../types.js';

export const STATES = ['received', 'parsed', 'scored', 'pending_review', 'approved', 'rejected', 'edited', 'delivered', 'failed', 'expired'] as const;

interface ReviewSummary {
  requestId: string;
  tenantId: string;
  state: string;
  createdAt: string;
  jobTitle: string;
  candidateLabel: string;
  score: any;
}

export function decisionForm(c: Context<ConsoleEnv>, requestId: string, returnTo: string): Html {
  const id = seg(requestId);
  const f = `d-${requestId.replace(/[^\w-]/g, '')}`;
  return html`<form method="post" action="/console/reviews/${id}/decision" class="decision" aria-label="Decision on ${requestId}">
  ${csrfField(c)}<input type="hidden" name="return" value="${returnTo}">
  <!-- Disabled first submit button: pressing Enter in a text field must not approve by accident. -->
  <button type="submit" disabled hidden aria-hidden="true" tabindex="-1"></button>
  <div class="grid-form">
    <div><label for="${f}-rid">Reviewer id</label><input id="${f}-rid" name="reviewerId" value="console" required maxlength="200"></div>
    <div><label for="${f}-role">Reviewer role <span class="muted">(optional)</span></label><input id="${f}-role" name="reviewerRole" placeholder="recruiter" maxlength="200"></div>
    <div class="full"><label for="${f}-note">Note <span class="muted">(optional)</span></label><textarea id="${f}-note" name="note" rows="2" maxlength="10000"></textarea></div>
  </div>
  <div class="actions">
    <button type="submit" name="decision" value="approved" class="primary">Approve</button>
    <button type="submit" name="decision" value="rejected" class="danger">Reject</button>
  </div>
  <fieldset class="edit">
    <legend>Or edit the result</legend>
    <div class="grid-form">
      <div><label for="${f}-score">Edited score (0–100)</label><input id="${f}-score" name="editedScore" inputmode="decimal"></div>
      <div class="full"><label for="${f}-rat">Edited rationale</label><textarea id="${f}-rat" name="editedRationale" rows="2" maxlength="10000"></textarea></div>
    </div>
    <button type="submit" name="decision" value="edited">Save as edited</button>
  </fieldset>
</form>`;
}

function card(c: Context<ConsoleEnv>, r: ReviewSummary, returnTo: string): Html {
  const hid = `rv-${r.requestId.replace(/[^\w-]/g, '')}`;
  return html`<article class="panel review" aria-labelledby="${hid}" data-request-id="${r.requestId}">
  <header class="review-head">
    <h2 id="${hid}">${r.candidateLabel} <span class="muted">for</span> ${r.jobTitle}</h2>
    ${badge(r.state)}
  </header>
  <p class="small">
    <a href="/console/requests/${seg(r.requestId)}"><code>${r.requestId}</code> timeline</a> ·
    tenant <a href="/console/tenants/${seg(r.tenantId)}"><code>${r.tenantId}</code></a> · received ${time(r.createdAt)}
  </p>
  ${scoreCard(r.score, 'h3')}
  ${r.state === 'pending_review' ? decisionForm(c, r.requestId, returnTo) : ''}
</article>`;
}

function filters(state: string, tenantId: string): Html {
  return html`<form method="get" action="/console/reviews" class="filters" role="search" aria-label="Filter reviews">
  <label for="f-state">State</label>
  <select id="f-state" name="state">
    <option value="all"${state === 'all' ? html` selected` : ''}>any state</option>
    ${STATES.map((s) => html`<option value="${s}"${s === state ? html` selected` : ''}>${s}</option>`)}
  </select>
  <label for="f-tenant">Tenant id</label><input id="f-tenant" name="tenantId" value="${tenantId}" placeholder="any tenant">
  <button type="submit">Filter</button>
</form>`;
}

export function reviewPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const state = c.req.query('state') || 'pending_review';
    const tenantId = c.req.query('tenantId') ?? '';
    const res = await c.var.ctl.get<{ reviews: ReviewSummary[] }>('/reviews', { state: state === 'all' ? undefined : state, tenantId });
    const url = new URL(c.req.url);
    const returnTo = url.pathname + url.search;
    let body: Html;
    if (!res.ok) body = controlError('the review queue', res);
    else if (res.data.reviews.length === 0) {
      body = state === 'pending_review'
        ? empty(html`No pending reviews — submit a candidate with <code>POST /api/screening/v1/screen</code> (see the <a href="/docs">API reference</a>); it appears here once scored.`)
        : empty('No requests match these filters.');
    } else body = html`${res.data.reviews.map((rv) => card(c, rv, returnTo))}`;
    return renderPage(c, {
      title: 'Review queue',
      active: '/console/reviews',
      lead: 'Every score waits here for a human decision before it is delivered. Approve, reject, or edit the score and rationale.',
      body: html`${filters(state, tenantId)}${body}`,
    });
  });

  r.post('/:requestId/decision', async (c) => {
    const requestId = c.req.param('requestId');
    const form = await readForm(c);
    const decision = field(form, 'decision');
    const body: Record<string, unknown> = { decision, reviewerId: field(form, 'reviewerId') };
    if (field(form, 'reviewerRole')) body.reviewerRole = field(form, 'reviewerRole');
    if (field(form, 'note')) body.note = field(form, 'note');
    if (decision === 'edited') {
      if (field(form, 'editedScore')) body.editedScore = numberOrRaw(field(form, 'editedScore'));
      if (field(form, 'editedRationale')) body.editedRationale = field(form, 'editedRationale');
    }
    const res = await c.var.ctl.send<{ state: string }>('POST', `/reviews/${seg(requestId)}/decision`, body);
    const returnTo = safeNext(field(form, 'return') || '/console/reviews');
    const verb = decision === 'approved' ? 'Approved' : decision === 'rejected' ? 'Rejected' : 'Edited';
    return back(c, returnTo, res, {
      kind: 'ok',
      text: `${verb} ${requestId}${res.ok ? ` (now ${res.data.state})` : ''}.`,
      link: { href: `/console/requests/${seg(requestId)}`, label: 'View its timeline' },
    });
  });

  return r;
}
