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

/** The header `name` (lower case) of Node's raw header list, as Headers.get(name) would give it. */
export function rawHeaderValue(raw: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i];
    if (field.length !== name.length || field.toLowerCase() !== name) continue;
    const v = raw[i + 1].replace(HTTP_WHITESPACE, '');
    value = value === undefined ? v : `${value}, ${v}`;
  }
  return value;
}
