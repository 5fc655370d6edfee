// The automatic reviewer panel of a tenant's page (D-134): the setting as it stands, a form that sets
// it (delay on the tenant's clock, rule, threshold, fallback, edited score) and one that turns it off.

import type { Context, Hono } from 'hono';
import { back, csrfField, field, numberOrRaw, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import type { ConsoleEnv } from '../types.js';

export interface AutoReviewView {
  afterSeconds: number;
  rule: string;
  minScore?: number;
  else?: string;
  editedScore?: number;
}

const RULES = ['approve', 'reject', 'approve_if_score_at_least', 'edit'];

/** In words, as the panel shows it. */
export function describeAutoReview(a: AutoReviewView | null | undefined): string {
  if (!a) return 'Off: every review waits for a person (or expires after 72 h).';
  const rule =
    a.rule === 'approve_if_score_at_least'
      ? `approves when the score is at least ${a.minScore}, else ${a.else === 'edited' ? `edits the score to ${a.editedScore}` : 'rejects'}`
      : a.rule === 'edit'
        ? `edits the score to ${a.editedScore}`
        : a.rule === 'approve'
          ? 'approves'
          : 'rejects';
  return `On: ${a.afterSeconds} s after a request is queued (on this tenant's clock), reviewer auto ${rule}.`;
}

export function autoReviewPanel(c: Context<ConsoleEnv>, tenantId: string, a: AutoReviewView | null | undefined): Html {
  const id = seg(tenantId);
  return html`<section class="panel" aria-labelledby="auto-h">
  <h2 id="auto-h">Automatic reviewer</h2>
  <p data-field="auto-review">${describeAutoReview(a)}</p>
  <p class="help">Decisions are recorded as reviewer <code>auto</code> (ledger actor <code>reviewer:auto</code>) and delivered exactly like a person's.</p>
  <form method="post" action="/console/tenants/${id}" class="grid-form">
    ${csrfField(c)}<input type="hidden" name="action" value="autoReview">
    <div><label for="ar-after">After (seconds)</label><input id="ar-after" name="afterSeconds" inputmode="numeric" value="${a?.afterSeconds ?? 60}"></div>
    <div><label for="ar-rule">Rule</label><select id="ar-rule" name="rule">${RULES.map((r) => html`<option value="${r}"${r === (a?.rule ?? 'approve_if_score_at_least') ? html` selected` : ''}>${r}</option>`)}</select></div>
    <div><label for="ar-min">Least score approved</label><input id="ar-min" name="minScore" inputmode="numeric" value="${a?.minScore ?? 70}"></div>
    <div><label for="ar-else">Otherwise</label><select id="ar-else" name="else">${['rejected', 'edited'].map((e) => html`<option value="${e}"${e === (a?.else ?? 'rejected') ? html` selected` : ''}>${e}</option>`)}</select></div>
    <div><label for="ar-edit">Edited score</label><input id="ar-edit" name="editedScore" inputmode="numeric" value="${a?.editedScore ?? ''}"></div>
    <div class="full"><button type="submit">Turn on / save</button></div>
  </form>
  ${a ? html`<form method="post" action="/console/tenants/${id}/auto-review/off" class="actions">${csrfField(c)}<button type="submit">Turn off</button></form>` : ''}
</section>`;
}

/** The PATCH body of the panel's form: only the fields its rule takes. */
export function autoReviewBody(form: Record<string, string | string[]>): Record<string, unknown> {
  const rule = field(form, 'rule');
  const out: Record<string, unknown> = { afterSeconds: numberOrRaw(field(form, 'afterSeconds')), rule };
  if (rule === 'approve_if_score_at_least') {
    out.minScore = numberOrRaw(field(form, 'minScore'));
    out.else = field(form, 'else');
  }
  if (rule === 'edit' || (rule === 'approve_if_score_at_least' && out.else === 'edited'))
    out.editedScore = numberOrRaw(field(form, 'editedScore'));
  return { autoReview: out };
}

export function autoReviewActions(r: Hono<ConsoleEnv>): void {
  r.post('/:tenantId/auto-review/off', async (c) => {
    const tenantId = c.req.param('tenantId');
    await readForm(c);
    const res = await c.var.ctl.send('PATCH', `/tenants/${seg(tenantId)}`, { autoReview: null });
    return back(c, `/console/tenants/${seg(tenantId)}`, res, 'The automatic reviewer is off.');
  });
}
