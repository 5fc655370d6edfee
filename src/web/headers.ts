// Request headers read straight from Node's raw header list when the app is served by
// @hono/node-server: reading one field this way spares building a whole Headers object per request
// (a measurable share of a small request's cost). Off Node, the standard accessor answers.

import type { Context } from 'hono';

// Headers.get() semantics: repeated fields joined with ", ", each value trimmed of HTTP whitespace.
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/** The request header `name` (lower case), exactly as c.req.header(name) would give it. */
export function headerOf(c: Context, name: string): string | undefined {
  const raw = (c.env as { incoming?: { rawHeaders?: string[] } } | undefined)?.incoming?.rawHeaders;
  return raw ? rawHeaderValue(raw, name) : c.req.header(name);
}

/** Whether a raw field name is `name` (lower case) in any case: field names are ASCII tokens. */
function isField(field: string, name: string): boolean {
  if (field.length !== name.length) return false;
  for (let i = 0; i < name.length; i++) {
    const c = field.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== name.charCodeAt(i)) return false;
  }
  return true;
}

const isHttpWhitespace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;

/** The header `name` (lower case) of Node's raw header list, as Headers.get(name) would give it. */
export function rawHeaderValue(raw: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (!isField(raw[i], name)) continue;
    let v = raw[i + 1];
    if (v.length > 0 && (isHttpWhitespace(v.charCodeAt(0)) || isHttpWhitespace(v.charCodeAt(v.length - 1))))
      v = v.replace(HTTP_WHITESPACE, '');
    value = value === undefined ? v : `${value}, ${v}`;
  }
  return value;
}
