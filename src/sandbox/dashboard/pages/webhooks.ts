// Webhook settings: the URL deliveries go to, the signing secret (shown to its owner) and its rotation
// with an overlap, through the same domain rotation the control API uses.

import { Hono, type Context } from 'hono';
import { invalid } from '../../../errors/errors.js';
import { time } from '../../console/components.js';
import { html } from '../../console/html.js';
import { ROTATION_OVERLAP_SECONDS } from '../../control/tenants.js';
import { blank, csrfField, formMessage, input, readValues, refused, type FormState } from '../forms.js';
import { renderPage } from '../layout.js';
import { BASE } from '../session.js';
import type { DashboardEnv } from '../types.js';

/** An absolute http(s) URL, or '' to stop sending deliveries. */
function parseWebhookUrl(raw: string): string | null {
  const v = raw.trim();
  if (v === '') return null;
  if (v.length > 2000) throw invalid('Use a URL of at most 2,000 characters.', 'webhookUrl');
  try {
    const u = new URL(v);
    if (u.protocol === 'http:' || u.protocol === 'https:') return v;
  } catch {
    // named below
  }
  throw invalid(
    'Enter an absolute http:// or https:// URL, or leave it empty to stop sending deliveries.',
    'webhookUrl',
  );
}

function webhooksView(c: Context<DashboardEnv>, state: FormState | null, status = 200): Response {
  const { tenants, clock } = c.var.core;
  const t = tenants.get(c.var.account.tenantId);
  const form = state ?? blank({ webhookUrl: t.webhookUrl ?? '' });
  const previous = tenants.previousSecretOf(t);
  const body = html`<section class="panel" aria-labelledby="url-h">
    <h2 id="url-h">Where deliveries go</h2>
    ${formMessage(form)}
    <form method="post" action="${BASE}/webhooks" class="stack" novalidate>
      ${csrfField(c)}
      ${input(form, { name: 'webhookUrl', label: 'Webhook URL', type: 'url', inputmode: 'url', placeholder: 'https://example.com/hooks', hint: 'Screening events are posted here, signed with the secret below. Empty: none are sent, unless a listen command is connected.' })}
      <button type="submit" class="primary">Save URL</button>
    </form>
  </section>
  <section class="panel" aria-labelledby="secret-h">
    <h2 id="secret-h">Signing secret</h2>
    <p>Every delivery carries an HMAC-SHA256 signature made with this secret.</p>
    <p><code class="secret" data-field="webhook-secret">${t.webhookSecret}</code></p>
    ${
      previous
        ? html`<p class="muted" data-field="previous-secret">The previous secret <code class="secret">${previous}</code> also signs until ${time(new Date(t.previousSecretExpiresAt!).toISOString())}.</p>`
        : ''
    }
    <form method="post" action="${BASE}/webhooks/rotate">${csrfField(c)}<button type="submit">Rotate secret</button></form>
    <p class="help">After a rotation the old secret keeps signing beside the new one for ${ROTATION_OVERLAP_SECONDS / 3600} hours of sandbox time (now ${time(clock.iso())}).</p>
  </section>`;
  return renderPage(c, { title: 'Webhooks', active: `${BASE}/webhooks`, body, status });
}

export function webhookPages() {
  const r = new Hono<DashboardEnv>();
  r.get('/', (c) => webhooksView(c, null));
  r.post('/', async (c) => {
    const values = await readValues(c);
    try {
      const url = parseWebhookUrl(values.webhookUrl ?? '');
      c.var.core.tenants.get(c.var.account.tenantId).webhookUrl = url;
      return c.redirect(`${BASE}/webhooks?done=${url ? 'webhook-saved' : 'webhook-cleared'}`, 303);
    } catch (err) {
      const { state, status } = refused(err, values, ['webhookUrl']);
      return webhooksView(c, state, status);
    }
  });
  r.post('/rotate', (c) => {
    const { tenants } = c.var.core;
    tenants.rotateWebhookSecret(tenants.get(c.var.account.tenantId), ROTATION_OVERLAP_SECONDS);
    return c.redirect(`${BASE}/webhooks?done=rotated`, 303);
  });
  return r;
}
