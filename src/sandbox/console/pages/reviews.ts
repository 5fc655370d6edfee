// Review queue: the human step of screening, oldest first, a page at a time. Each card shows the
// candidate and the job spec side by side with the score, dimensions and evidence, how long the
// request has waited and how long until it expires, and the approve / reject / edit form. A refused
// decision re-renders the form with what the reviewer typed and the message beside the field.

import { Hono, type Context } from 'hono';
import { badge, controlError, empty, pager, scoreCard, span, time } from '../components.js';
import { back, field, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import { safeNext } from '../login.js';
import { submissionView } from '../submission.js';
import type { ConsoleEnv } from '../types.js';
import { decisionBody, decisionForm, type FormState } from './decisionForm.js';
import type { Wire } from '../types.js';
import { SCREENING_STATES as STATES } from '../../../domain/screening/types.js';

export { decisionForm };

export interface ReviewSummary {
  requestId: string;
  tenantId: string;
  state: string;
  createdAt: string;
  queuedForReviewAt: string | null;
  reviewExpiresAt: string | null;
  jobTitle: string;
  candidateLabel: string;
  submission?: { candidate: unknown; jobSpec: unknown };
  score: Wire;
}

/** "waiting 3 h 10 min · expires in 68 h 50 min" for a pending request. */
function waiting(r: ReviewSummary, now: number | null): Html {
  // without the sandbox clock an age would be a guess from another clock: only the times are shown
  if (r.state !== 'pending_review' || !r.queuedForReviewAt || now === null) return html`received ${time(r.createdAt)}`;
  const age = now - Date.parse(r.queuedForReviewAt);
  const left = r.reviewExpiresAt ? Date.parse(r.reviewExpiresAt) - now : null;
  return html`<span data-field="age">waiting ${span(age)}</span>${
    left !== null
      ? html` · <span data-field="expires" class="${left < 6 * 3600_000 ? 'soon' : ''}">expires in ${span(left)}</span>`
      : ''
  }`;
}

export function reviewCard(
  c: Context<ConsoleEnv>,
  r: ReviewSummary,
  returnTo: string,
  now: number | null,
  form?: FormState,
): Html {
  const hid = `rv-${r.requestId.replace(/[^\w-]/g, '')}`;
  return html`<article class="panel review" aria-labelledby="${hid}" data-request-id="${r.requestId}">
  <header class="review-head">
    <h2 id="${hid}">${r.candidateLabel} <span class="muted">for</span> ${r.jobTitle}</h2>
    ${badge(r.state)}
  </header>
  <p class="small meta">
    ${waiting(r, now)} ·
    <a href="/console/requests/${seg(r.requestId)}"><code>${r.requestId}</code> timeline</a> ·
    tenant <a href="/console/tenants/${seg(r.tenantId)}"><code>${r.tenantId}</code></a>
  </p>
  ${submissionView(r.submission)}
  ${scoreCard(r.score, 'h3')}
  ${r.state === 'pending_review' ? decisionForm(c, r.requestId, returnTo, form) : ''}
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

/** Each tenant's time (D-120): a request's age and time to expiry are on its tenant's clock. */
async function tenantsNow(c: Context<ConsoleEnv>, tenantIds: string[]): Promise<(tenantId: string) => number | null> {
  const ids = [...new Set(tenantIds)];
  const clocks = await Promise.all(ids.map((id) => c.var.ctl.get<{ now: string }>(`/tenants/${seg(id)}/clock`)));
  const byId = new Map(ids.map((id, i) => [id, clocks[i].ok ? Date.parse(clocks[i].data.now) : null]));
  // a clock that cannot be read gives no age: never one taken from the machine's own clock
  return (tenantId) => byId.get(tenantId) ?? null;
}

export function reviewPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const state = c.req.query('state') || 'pending_review';
    const tenantId = c.req.query('tenantId') ?? '';
    const res = await c.var.ctl.get<{ reviews: ReviewSummary[]; nextCursor: string | null }>('/reviews', {
      state: state === 'all' ? undefined : state,
      tenantId,
      cursor: c.req.query('cursor'),
    });
    const now = await tenantsNow(c, res.ok ? res.data.reviews.map((rv) => rv.tenantId) : []);
    const url = new URL(c.req.url);
    const returnTo = url.pathname + url.search;
    let body: Html;
    if (!res.ok) body = controlError('the review queue', res);
    else if (res.data.reviews.length === 0) {
      body =
        state === 'pending_review'
          ? empty(
              html`No pending reviews — submit a candidate with <code>POST /api/screening/v1/screen</code> (see the <a href="/docs">API reference</a>); it appears here once scored.`,
            )
          : empty('No requests match these filters.');
    } else
      body = html`${res.data.reviews.map((rv) => reviewCard(c, rv, returnTo, now(rv.tenantId)))}${pager(c.req.url, res.data.nextCursor, 'reviews')}`;
    return renderPage(c, {
      title: 'Review queue',
      active: '/console/reviews',
      lead: 'Every score waits here for a human decision before it is delivered, oldest first. Approve, reject, or edit the score and rationale.',
      body: html`${filters(state, tenantId)}${body}`,
    });
  });

  r.post('/:requestId/decision', async (c) => {
    const requestId = c.req.param('requestId');
    const form = await readForm(c);
    const decision = field(form, 'decision');
    const res = await c.var.ctl.send<{ state: string }>(
      'POST',
      `/reviews/${seg(requestId)}/decision`,
      decisionBody(form),
    );
    const returnTo = safeNext(field(form, 'return') || '/console/reviews');
    if (!res.ok) {
      // keep what the reviewer typed; show the refusal beside the field it is about
      const detail = await c.var.ctl.get<ReviewSummary>(`/reviews/${seg(requestId)}`);
      const now = await tenantsNow(c, detail.ok ? [detail.data.tenantId] : []);
      if (detail.ok && detail.data.state === 'pending_review') {
        return renderPage(c, {
          title: 'Review queue',
          active: '/console/reviews',
          status: 400,
          lead: html`The decision was not recorded; correct it below. <a href="${returnTo}">Back</a>`,
          body: reviewCard(c, detail.data, returnTo, now(detail.data.tenantId), { form, error: res }),
        });
      }
    }
    const verb = decision === 'approved' ? 'Approved' : decision === 'rejected' ? 'Rejected' : 'Edited';
    return back(c, returnTo, res, {
      kind: 'ok',
      text: `${verb} ${requestId}${res.ok ? ` (now ${res.data.state})` : ''}.`,
      link: { href: `/console/requests/${seg(requestId)}`, label: 'View its timeline' },
    });
  });

  return r;
}
