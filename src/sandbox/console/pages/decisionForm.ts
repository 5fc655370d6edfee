// The approve / reject / edit form of a pending request, shared by the review queue and the request
// page. After a refusal it is drawn again with the reviewer's input and the control API's message
// beside the field it names (focus lands there), instead of a page-top error and an empty form.

import type { Context } from 'hono';
import { csrfField, field, numberOrRaw, type Form } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import type { ConsoleEnv } from '../types.js';

export interface FormState {
  form: Form;
  error: { status: number; code: string; message: string; field?: string };
}

const FIELDS = ['reviewerId', 'reviewerRole', 'note', 'editedScore', 'editedRationale'] as const;

/** The control API body for a posted decision form. */
export function decisionBody(form: Form): Record<string, unknown> {
  const decision = field(form, 'decision');
  const body: Record<string, unknown> = { decision, reviewerId: field(form, 'reviewerId') };
  if (field(form, 'reviewerRole')) body.reviewerRole = field(form, 'reviewerRole');
  if (field(form, 'note')) body.note = field(form, 'note');
  if (decision === 'edited') {
    if (field(form, 'editedScore')) body.editedScore = numberOrRaw(field(form, 'editedScore'));
    if (field(form, 'editedRationale')) body.editedRationale = field(form, 'editedRationale');
  }
  return body;
}

export function decisionForm(c: Context<ConsoleEnv>, requestId: string, returnTo: string, state?: FormState): Html {
  const id = seg(requestId);
  const f = `d-${requestId.replace(/[^\w-]/g, '')}`;
  const value = (name: string, fallback = '') => (state ? field(state.form, name) : fallback);
  const errField = state && (FIELDS as readonly string[]).includes(state.error.field ?? '') ? state.error.field : null;
  // attributes and the message for one input: invalid, described by the message, focused first
  const attrs = (name: string, suffix: string) =>
    errField === name ? html` aria-invalid="true" aria-describedby="${f}-${suffix}-err" autofocus` : '';
  const message = (name: string, suffix: string) =>
    errField === name
      ? html`<p class="field-error" id="${f}-${suffix}-err" role="alert">${state!.error.message}</p>`
      : '';
  return html`<form method="post" action="/console/reviews/${id}/decision" class="decision" aria-label="Decision on ${requestId}">
  ${csrfField(c)}<input type="hidden" name="return" value="${returnTo}">
  <!-- Disabled first submit button: pressing Enter in a text field must not approve by accident. -->
  <button type="submit" disabled hidden aria-hidden="true" tabindex="-1"></button>
  ${state && !errField ? html`<p class="field-error" role="alert">${state.error.message}</p>` : ''}
  <div class="grid-form">
    <div><label for="${f}-rid">Reviewer id</label><input id="${f}-rid" name="reviewerId" value="${value('reviewerId', 'console')}" required maxlength="200"${attrs('reviewerId', 'rid')}>${message('reviewerId', 'rid')}</div>
    <div><label for="${f}-role">Reviewer role <span class="muted">(optional)</span></label><input id="${f}-role" name="reviewerRole" value="${value('reviewerRole')}" placeholder="recruiter" maxlength="200"${attrs('reviewerRole', 'role')}>${message('reviewerRole', 'role')}</div>
    <div class="full"><label for="${f}-note">Note <span class="muted">(optional)</span></label><textarea id="${f}-note" name="note" rows="2" maxlength="10000"${attrs('note', 'note')}>${value('note')}</textarea>${message('note', 'note')}</div>
  </div>
  <div class="actions">
    <button type="submit" name="decision" value="approved" class="primary">Approve</button>
    <button type="submit" name="decision" value="rejected" class="danger">Reject</button>
  </div>
  <fieldset class="edit">
    <legend>Or edit the result</legend>
    <div class="grid-form">
      <div><label for="${f}-score">Edited score (0–100)</label><input id="${f}-score" name="editedScore" inputmode="decimal" value="${value('editedScore')}"${attrs('editedScore', 'score')}>${message('editedScore', 'score')}</div>
      <div class="full"><label for="${f}-rat">Edited rationale</label><textarea id="${f}-rat" name="editedRationale" rows="2" maxlength="10000"${attrs('editedRationale', 'rat')}>${value('editedRationale')}</textarea>${message('editedRationale', 'rat')}</div>
    </div>
    <button type="submit" name="decision" value="edited">Save as edited</button>
  </fieldset>
</form>`;
}
