// Form pieces of the dashboard: reading urlencoded fields, a labelled input that shows its error beside
// it and keeps what was typed, the CSRF field, and turning a domain refusal into per-field messages.

import type { Context } from 'hono';
import { DomainError } from '../../errors/errors.js';
import { html, type Html } from '../console/html.js';
import type { DashboardEnv } from './types.js';

export type Values = Record<string, string>;

/** What a form shows after a refused post: the typed values, an error per field, one message for the rest. */
export interface FormState {
  values: Values;
  errors: Record<string, string>;
  message: string | null;
}

export const blank = (values: Values = {}): FormState => ({ values, errors: {}, message: null });

export async function readValues(c: Context): Promise<Values> {
  const body = await c.req.parseBody();
  const out: Values = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The state a domain refusal leaves a form in: its message beside the field it names, else above the form. */
export function refused(err: unknown, values: Values, keep: readonly string[]): { state: FormState; status: number } {
  if (!(err instanceof DomainError)) throw err;
  const kept: Values = {};
  for (const k of keep) if (values[k] !== undefined) kept[k] = values[k];
  const field = err.details.field;
  return {
    state: { values: kept, errors: field ? { [field]: err.message } : {}, message: field ? null : err.message },
    status: err.status,
  };
}

interface InputOptions {
  name: string;
  label: string;
  type?: string;
  autocomplete?: string;
  inputmode?: string;
  placeholder?: string;
  hint?: string | Html;
  required?: boolean;
  /** Password and security-code fields are never filled back in. */
  secret?: boolean;
}

/** A labelled input with its hint and its error (announced with the field through aria-describedby). */
export function input(state: FormState, o: InputOptions): Html {
  const id = `f-${o.name}`;
  const error = state.errors[o.name];
  const described = [o.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const value = o.secret ? '' : (state.values[o.name] ?? '');
  return html`<div class="field">
    <label for="${id}">${o.label}</label>
    ${o.hint ? html`<p class="help" id="${id}-hint">${o.hint}</p>` : ''}
    <input id="${id}" name="${o.name}" type="${o.type ?? 'text'}" value="${value}"${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${
      o.inputmode ? html` inputmode="${o.inputmode}"` : ''
    }${o.placeholder ? html` placeholder="${o.placeholder}"` : ''}${o.required ? html` required` : ''}${error ? html` aria-invalid="true"` : ''}${
      described ? html` aria-describedby="${described}"` : ''
    }>
    ${error ? html`<p class="field-error" id="${id}-error" data-error-for="${o.name}">${error}</p>` : ''}
  </div>`;
}

/** The refusal not tied to a field, above the form. */
export function formMessage(state: FormState): Html {
  return state.message
    ? html`<div class="flash error" role="alert" data-field="form-error">${state.message}</div>`
    : html``;
}

export function csrfField(c: Context<DashboardEnv>): Html {
  return html`<input type="hidden" name="_csrf" value="${c.var.session.csrf}">`;
}
