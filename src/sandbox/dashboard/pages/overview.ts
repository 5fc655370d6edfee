// The dashboard's first page: the account's tenant, plan and credits at a glance, and where to go next.

import { Hono } from 'hono';
import { time } from '../../console/components.js';
import { html } from '../../console/html.js';
import { tenantView } from '../../control/tenants.js';
import { renderPage } from '../layout.js';
import { BASE } from '../session.js';
import type { DashboardEnv } from '../types.js';

export function overviewPages() {
  const r = new Hono<DashboardEnv>();
  r.get('/', (c) => {
    const { tenants, clock } = c.var.core;
    const t = tenants.get(c.var.account.tenantId);
    const v = tenantView(t, clock.now());
    const keys = tenants.keysOf(t.id).length;
    const body = html`<section class="panel" aria-labelledby="tenant-h">
      <h2 id="tenant-h">Your tenant</h2>
      <dl class="facts">
        <div><dt>Tenant id</dt><dd><code data-field="tenant-id">${t.id}</code></dd></div>
        <div><dt>Plan</dt><dd data-field="plan-tier">${t.planTier}</dd></div>
        <div><dt>Screening credits</dt><dd>${v.screeningCredits.remaining} of ${v.screeningCredits.cap}</dd></div>
        <div><dt>Apply credits</dt><dd>${v.applyCredits.remaining} of ${v.applyCredits.perMonth}</dd></div>
        <div><dt>Created</dt><dd>${time(v.createdAt)}</dd></div>
      </dl>
    </section>
    <ul class="links">
      <li><a href="${BASE}/keys">API keys</a>: ${keys} active.</li>
      <li><a href="${BASE}/billing">Plan &amp; billing</a>: change plan with a test card.</li>
      <li><a href="${BASE}/webhooks">Webhooks</a>: ${t.webhookUrl ? html`deliveries go to <code>${t.webhookUrl}</code>` : 'no URL set'}.</li>
    </ul>`;
    return renderPage(c, { title: 'Overview', active: BASE, body, lead: html`Signed in as ${c.var.account.email}.` });
  });
  return r;
}
