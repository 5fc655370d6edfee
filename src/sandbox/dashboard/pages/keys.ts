// API keys: create one (shown once, in the answer to the post that made it), list them by hint, revoke
// one (it answers 401 from the next call on, on every instance: the revocation is a recorded call).

import { Hono, type Context } from 'hono';
import { SCOPES } from '../../../domain/tenants.js';
import { DomainError } from '../../../errors/errors.js';
import { time } from '../../console/components.js';
import { html, seg } from '../../console/html.js';
import { csrfField } from '../forms.js';
import { renderPage } from '../layout.js';
import { BASE } from '../session.js';
import type { DashboardEnv } from '../types.js';

interface Reveal {
  apiKey: string;
  welcome?: boolean;
}

export function keysView(
  c: Context<DashboardEnv>,
  reveal: Reveal | null,
  status = 200,
  error: string | null = null,
): Response {
  const { tenants } = c.var.core;
  const keys = tenants.keysOf(c.var.account.tenantId);
  const revealed = reveal
    ? html`<section class="panel reveal" aria-labelledby="new-key-h">
        <h2 id="new-key-h">${reveal.welcome ? 'Your account is ready: here is its first API key' : 'Your new API key'}</h2>
        <p>Copy it now: it is shown <strong>once</strong> and stored only as a hash.</p>
        <p><code class="secret" data-field="new-key">${reveal.apiKey}</code></p>
        <p class="muted small">Send it as <code>Authorization: Bearer …</code> to <code>/api/screening/v1</code>, <code>/api/v1</code> and <code>/api/mcp</code>.</p>
      </section>`
    : '';
  const rows = keys.map(
    (k) => html`<tr data-key-id="${k.id}">
      <th scope="row"><code>${k.hint}</code></th>
      <td><code class="small">${k.id}</code></td>
      <td class="small">${k.scopes.join(', ')}</td>
      <td>${time(new Date(k.createdAt).toISOString())}</td>
      <td><form method="post" action="${BASE}/keys/${seg(k.id)}/revoke">${csrfField(c)}<button type="submit" class="danger small" aria-label="Revoke key ${k.hint}">Revoke</button></form></td>
    </tr>`,
  );
  const body = html`${error ? html`<div class="flash error" role="alert">${error}</div>` : ''}
  ${revealed}
  <section class="panel" aria-labelledby="create-h">
    <h2 id="create-h">Create a key</h2>
    <p class="muted">A key has every scope (${SCOPES.join(', ')}) and starts with <code>rjk_live_</code>.</p>
    <form method="post" action="${BASE}/keys">${csrfField(c)}<button type="submit" class="primary">Create key</button></form>
  </section>
  <h2>Your keys</h2>
  ${
    keys.length
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Your keys"><table class="list" data-field="keys">
          <thead><tr><th scope="col">Key</th><th scope="col">Id</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>${rows}</tbody></table></div>`
      : html`<p class="empty">No keys yet: create one above.</p>`
  }`;
  return renderPage(c, {
    title: 'API keys',
    active: `${BASE}/keys`,
    body,
    status,
    lead: 'Keys are listed by their first characters; the whole key is shown only when it is made.',
  });
}

export function keyPages() {
  const r = new Hono<DashboardEnv>();
  r.get('/', (c) => keysView(c, null));
  r.post('/', (c) => {
    const { apiKey } = c.var.core.tenants.issueKey(c.var.account.tenantId, [...SCOPES]);
    return keysView(c, { apiKey }, 201);
  });
  r.post('/:keyId/revoke', (c) => {
    try {
      c.var.core.tenants.revokeKey(c.var.account.tenantId, c.req.param('keyId'));
    } catch (err) {
      // another account's key, or one revoked already: absent, and nothing changes
      if (err instanceof DomainError && err.status === 404)
        return keysView(c, null, 404, 'There is no such key among yours.');
      throw err;
    }
    return c.redirect(`${BASE}/keys?done=revoked`, 303);
  });
  return r;
}
