// Hire outbox: the shortlist emails the MCP `hire` tool sends to `contact_email` (never really sent
// by the sandbox; they are kept here to be read).

import { Hono } from 'hono';
import { controlError, empty, pager, time } from '../components.js';
import { html, prettyJson } from '../html.js';
import { renderPage } from '../layout.js';
import type { ConsoleEnv } from '../types.js';

interface Message {
  id: string;
  to: string;
  subject: string;
  body: string;
  kind: string;
  createdAt: string;
  data?: unknown;
}

export function outboxPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const res = await c.var.ctl.get<{ messages: Message[]; nextCursor: string | null }>('/outbox', {
      order: 'desc',
      cursor: c.req.query('cursor'),
    });
    const messages = res.ok ? res.data.messages : [];
    const body = !res.ok
      ? controlError('the outbox', res)
      : messages.length === 0
        ? empty(
            html`The outbox is empty — call the keyed MCP server's <code>hire</code> tool with a brief and a <code>contact_email</code>; a strong shortlist is emailed there.`,
          )
        : html`${messages.map((m) => {
            const hid = `msg-${m.id.replace(/[^\w-]/g, '')}`;
            return html`<article class="panel" aria-labelledby="${hid}">
  <h2 id="${hid}">${m.subject}</h2>
  <dl class="facts compact">
    <div><dt>To</dt><dd>${m.to}</dd></div>
    <div><dt>Kind</dt><dd><code>${m.kind}</code></dd></div>
    <div><dt>Sent</dt><dd>${time(m.createdAt)}</dd></div>
    <div><dt>Id</dt><dd><code>${m.id}</code></dd></div>
  </dl>
  <pre tabindex="0" class="mail">${m.body}</pre>
  ${m.data !== undefined ? html`<details><summary>Data</summary><pre tabindex="0">${prettyJson(m.data)}</pre></details>` : ''}
</article>`;
          })}${pager(c.req.url, res.data.nextCursor, 'messages')}`;
    return renderPage(c, {
      title: 'Hire outbox',
      active: '/console/outbox',
      lead: 'Emails the sandbox would have sent.',
      body,
    });
  });

  return r;
}
