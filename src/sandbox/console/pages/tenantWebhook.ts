// The webhook panel of a tenant's page: URL and secret, secret rotation with an overlap window
// (both secrets sign while it is open), "send test event", and links to the tenant's deliveries and
// request log.

import type { Context, Hono } from 'hono';
import { time } from '../components.js';
import { back, csrfField, field, numberOrRaw, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import type { ConsoleEnv } from '../types.js';

export interface WebhookSettings {
  tenantId: string;
  webhookUrl: string | null;
  webhookSecret: string;
  previousWebhookSecret?: string | null;
  previousSecretExpiresAt?: string | null;
  /** Listeners connected now (`npm run listen`, D-119): attempts go to them instead of the URL. */
  listeners?: ListenerView[];
}

export interface ListenerView {
  listenerId: string;
  connectedAt: string;
}

export function webhookPanel(c: Context<ConsoleEnv>, t: WebhookSettings): Html {
  const id = seg(t.tenantId);
  return html`<section class="panel" aria-labelledby="hook-h">
  <h2 id="hook-h">Webhook</h2>
  <form method="post" action="/console/tenants/${id}" class="stack">
    ${csrfField(c)}<input type="hidden" name="action" value="webhook">
    <label for="w-url">Webhook URL</label>
    <input id="w-url" name="webhookUrl" type="url" value="${t.webhookUrl ?? ''}" aria-describedby="w-url-help">
    <p class="help" id="w-url-help">Empty removes the webhook: requests then reach <code>delivered</code> as soon as they are decided.</p>
    <label for="w-secret">New webhook secret</label>
    <input id="w-secret" name="webhookSecret" autocomplete="off" spellcheck="false" placeholder="unchanged when empty" aria-describedby="w-secret-help">
    <p class="help" id="w-secret-help">Replaces the secret at once. To switch receivers without dropped deliveries, rotate instead.</p>
    <details><summary>Show the current secret</summary><p><code class="secret">${t.webhookSecret}</code></p></details>
    <button type="submit">Save webhook</button>
  </form>
  <h3>Listeners</h3>
  ${
    t.listeners?.length
      ? html`<p data-field="listeners">${t.listeners.length} listener${t.listeners.length === 1 ? '' : 's'} connected (<code>npm run listen</code>): deliveries go to ${t.listeners.length === 1 ? 'it' : 'them'} instead of the URL.</p>
  <ul class="small">${t.listeners.map((l) => html`<li><code>${l.listenerId}</code> since ${time(l.connectedAt)}</li>`)}</ul>`
      : html`<p class="help" data-field="listeners">No listener connected. <code>npm run listen -- --target &lt;sandbox url&gt; --key &lt;key&gt; --forward-to &lt;local url&gt;</code> forwards deliveries to your machine.</p>`
  }
  <h3>Rotate the secret</h3>
  ${
    t.previousSecretExpiresAt
      ? html`<p class="rotation" data-field="rotation">Rotation in progress: the previous secret also signs every delivery (header <code>X-Screening-Signature-Previous</code>) until ${time(t.previousSecretExpiresAt)}.</p>`
      : ''
  }
  <form method="post" action="/console/tenants/${id}/rotate" class="inline">
    ${csrfField(c)}
    <label for="r-hours">Keep the old secret valid for (hours)</label><input id="r-hours" name="overlapHours" class="short" inputmode="numeric" value="24">
    <button type="submit">Rotate secret</button>
  </form>
  <h3>Test the endpoint</h3>
  <form method="post" action="/console/tenants/${id}/test-event" class="inline">
    ${csrfField(c)}
    <button type="submit"${t.webhookUrl || t.listeners?.length ? '' : html` disabled`}>Send test event</button>
    <span class="help">A signed <code>screening.scored</code> delivery with a sample result, marked <code>X-Screening-Test: true</code>.</span>
  </form>
</section>`;
}

export function webhookActions(r: Hono<ConsoleEnv>): void {
  r.post('/:tenantId/rotate', async (c) => {
    const tenantId = c.req.param('tenantId');
    const hours = numberOrRaw(field(await readForm(c), 'overlapHours') || '24');
    const overlapSeconds = typeof hours === 'number' ? Math.round(hours * 3600) : hours;
    const res = await c.var.ctl.send('POST', `/tenants/${seg(tenantId)}/webhook-secret/rotate`, { overlapSeconds });
    return back(
      c,
      `/console/tenants/${seg(tenantId)}`,
      res,
      `Rotated the webhook secret; the previous one keeps signing for ${hours} h.`,
    );
  });

  r.post('/:tenantId/test-event', async (c) => {
    const tenantId = c.req.param('tenantId');
    await readForm(c);
    const res = await c.var.ctl.send<{ delivery: { id: string } }>('POST', '/webhooks/test', { tenantId });
    return back(c, `/console/tenants/${seg(tenantId)}`, res, {
      kind: 'ok',
      text: res.ok ? `Test event ${res.data.delivery.id} sent.` : '',
      link: { href: `/console/deliveries?tenantId=${seg(tenantId)}`, label: 'See the delivery' },
    });
  });
}
