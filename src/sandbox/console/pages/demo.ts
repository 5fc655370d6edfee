// Demo & reset: the demo tenants and their fixed keys (the same for a given seed on every start),
// a first call to copy, and a reset that empties every store and re-seeds the demo data.

import { Hono } from 'hono';
import { controlError, empty } from '../components.js';
import { back, csrfField, field, flash, readForm } from '../forms.js';
import { html, seg } from '../html.js';
import { renderPage } from '../layout.js';
import type { ConsoleEnv } from '../types.js';
import { storePanel } from './storePanel.js';

interface DemoTenant {
  name: string;
  tenantId: string;
  planTier: string;
  scopes: string[];
  apiKey: string;
  webhookSecret: string;
  note?: string;
}

export function demoPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const res = await c.var.ctl.get<{ tenants: DemoTenant[] }>('/demo');
    const base = c.var.core.config.publicUrl;
    const tenants = res.ok ? res.data.tenants : [];
    const sample = tenants.find((t) => t.scopes.includes('jobs')) ?? tenants[0];
    const table = !res.ok
      ? controlError('the demo tenants', res)
      : tenants.length === 0
        ? empty(
            'No demo tenants: this sandbox was started without them (SANDBOX_DEMO=0). Create tenants on the Tenants page.',
          )
        : html`<div class="table-wrap" tabindex="0"><table class="list">
  <caption class="sr-only">Demo tenants</caption>
  <thead><tr><th scope="col">Tenant</th><th scope="col">Tier</th><th scope="col">Scopes</th><th scope="col">API key</th><th scope="col">Webhook secret</th></tr></thead>
  <tbody>${tenants.map(
    (t) => html`<tr>
    <th scope="row"><a href="/console/tenants/${seg(t.tenantId)}">${t.name}</a><br><code class="small">${t.tenantId}</code>${t.note ? html`<br><span class="small muted">${t.note}</span>` : ''}</th>
    <td>${t.planTier}</td><td class="small">${t.scopes.join(', ')}</td>
    <td><code class="secret">${t.apiKey}</code></td><td><code class="secret small">${t.webhookSecret}</code></td>
  </tr>`,
  )}</tbody>
</table></div>
${sample ? html`<h2>Try it</h2><pre tabindex="0" class="raw">curl -H "Authorization: Bearer ${sample.apiKey}" ${base}/api/v1/me</pre>` : ''}`;
    return renderPage(c, {
      title: 'Demo & reset',
      active: '/console/demo',
      lead: 'Demo tenants and keys are derived from the sandbox seed, so they are the same on every start with the same seed.',
      body: html`${table}
${await storePanel(c)}
<section class="panel danger-zone" aria-labelledby="reset-h">
  <h2 id="reset-h">Reset the sandbox</h2>
  <p>Empties every store — tenants, keys, screening requests, ledger, deliveries, applications, outbox — removes every fault, drops pending timers and re-seeds the demo tenants. Console sessions stay signed in.</p>
  <form method="post" action="/console/demo/reset" class="stack">
    ${csrfField(c)}
    <label for="reset-confirm"><input type="checkbox" id="reset-confirm" name="confirm" value="yes" required> Yes, erase all sandbox state</label>
    <button type="submit" class="danger">Reset sandbox</button>
  </form>
</section>`,
    });
  });

  r.post('/reset', async (c) => {
    if (field(await readForm(c), 'confirm') !== 'yes') {
      flash(c, { kind: 'error', text: 'Nothing was reset: tick “Yes, erase all sandbox state” to confirm.' });
      return c.redirect('/console/demo', 303);
    }
    const res = await c.var.ctl.send<{ now: string }>('POST', '/reset');
    return back(c, '/console/demo', res, 'The sandbox was reset and the demo tenants re-seeded.');
  });

  return r;
}
