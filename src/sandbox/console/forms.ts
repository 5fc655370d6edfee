// Small helpers for the console's HTML forms: reading urlencoded fields, the CSRF field, and the
// post/redirect/get step with a one-shot message.

import type { Context } from 'hono';
import { html, type Html } from './html.js';
import type { Flash } from './session.js';
import type { ConsoleEnv } from './types.js';
import type { ControlResult } from './control.js';

export type Form = Record<string, string | string[]>;

export async function readForm(c: Context<ConsoleEnv>): Promise<Form> {
  const body = await c.req.parseBody({ all: true });
  const out: Form = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return out;
}

/** One text field (the first when repeated), trimmed; '' when absent. */
export function field(form: Form, name: string): string {
  const v = form[name];
  return (Array.isArray(v) ? (v[0] ?? '') : (v ?? '')).trim();
}

export function fields(form: Form, name: string): string[] {
  const v = form[name];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/**
 * A number typed into a form. Anything that is not a number is passed on as typed, so the control
 * API's validation names the field, exactly as it would for an HTTP caller.
 */
export function numberOrRaw(raw: string): number | string {
  const n = Number(raw);
  return raw !== '' && Number.isFinite(n) ? n : raw;
}

export function csrfField(c: Context<ConsoleEnv>): Html {
  return html`<input type="hidden" name="_csrf" value="${c.var.session.csrf}">`;
}

export function flash(c: Context<ConsoleEnv>, f: Flash): void {
  c.var.session.flashes.push(f);
}

/** Redirects after a POST with a message: the control API's error message, or `ok` on success. */
export function back(c: Context<ConsoleEnv>, to: string, res: ControlResult, ok: Flash | string): Response {
  if (res.ok) flash(c, typeof ok === 'string' ? { kind: 'ok', text: ok } : ok);
  else flash(c, { kind: 'error', text: `${res.status} ${res.code}: ${res.message}` });
  return c.redirect(to, 303);
}
