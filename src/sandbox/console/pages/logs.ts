// Request log: the recent REST and MCP calls, newest first, per tenant, searchable: method, path or
// tool, status, duration, and each body as far as it was kept. Linked from each request's page.

import { Hono } from 'hono';
import type { CallEntry } from '../../../domain/callLog.js';
import { controlError, empty, pager, time } from '../components.js';
import { html, prettyJson, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import type { ConsoleEnv } from '../types.js';

type Entry = CallEntry;

/** JSON bodies indented for reading; anything else (or a cut body) exactly as kept. */
function readable(text: string): string {
  try {
    return prettyJson(JSON.parse(text));
  } catch {
    return text;
  }
}

const tone = (s: number) => (s < 300 ? 'good' : s < 500 ? 'warn' : 'bad');

function row(e: Entry): Html {
  return html`<li class="log-entry" data-log-id="${e.id}">
  <details>
    <summary>
      <span class="badge ${tone(e.status)}">${e.status}</span>
      <code class="wrap">${e.method} ${e.path}</code>${e.tool ? html` <code class="tool">${e.tool}</code>` : ''}
      <span class="muted small">${e.durationMs} ms · ${time(e.at)} · ${e.tenantId ?? 'no tenant'}</span>
    </summary>
    ${e.tenantId ? html`<p class="small">Tenant <a href="/console/tenants/${seg(e.tenantId)}"><code>${e.tenantId}</code></a></p>` : ''}
    <div class="log-bodies">
      <div><h3>Request body</h3>${e.requestBody ? html`<pre tabindex="0">${readable(e.requestBody)}</pre>` : html`<p class="muted small">none</p>`}</div>
      <div><h3>Response body</h3>${e.responseBody ? html`<pre tabindex="0">${readable(e.responseBody)}</pre>` : html`<p class="muted small">none</p>`}</div>
    </div>
    ${e.truncated ? html`<p class="help">Bodies are kept up to 2,048 characters.</p>` : ''}
  </details>
</li>`;
}

export function logPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const q = (k: string) => c.req.query(k) ?? '';
    const res = await c.var.ctl.get<{ entries: Entry[]; nextCursor: string | null }>('/logs', {
      tenantId: q('tenantId'),
      q: q('q'),
      api: q('api'),
      status: q('status'),
      cursor: q('cursor'),
    });
    const list = !res.ok
      ? controlError('the request log', res)
      : res.data.entries.length === 0
        ? empty('No calls match. Calls to the REST APIs and the keyed MCP server appear here as they are made.')
        : html`<ol class="log">${res.data.entries.map(row)}</ol>${pager(c.req.url, res.data.nextCursor, 'log entries')}`;
    const opt = (name: string, v: string, label: string) =>
      html`<option value="${v}"${q(name) === v ? html` selected` : ''}>${label}</option>`;
    return renderPage(c, {
      title: 'Request log',
      active: '/console/logs',
      lead: 'The latest API and MCP calls (the last 2,000 are kept), newest first: what each client sent and what it got back.',
      body: html`<form method="get" action="/console/logs" class="filters" role="search" aria-label="Search the request log">
  <span class="pair"><label for="l-tenant">Tenant id</label><input id="l-tenant" name="tenantId" value="${q('tenantId')}" placeholder="any tenant"></span>
  <span class="pair"><label for="l-q">Contains</label><input id="l-q" name="q" value="${q('q')}" placeholder="path, tool, id, text in a body"></span>
  <span class="pair"><label for="l-api">API</label><select id="l-api" name="api">${opt('api', '', 'any')}${opt('api', 'rest', 'REST')}${opt('api', 'mcp', 'MCP')}</select></span>
  <span class="pair"><label for="l-status">Status</label><select id="l-status" name="status">${opt('status', '', 'any')}${opt('status', '2xx', '2xx')}${opt('status', '4xx', '4xx')}${opt('status', '5xx', '5xx')}</select></span>
  <button type="submit">Search</button>
</form>
${list}`,
    });
  });

  return r;
}
