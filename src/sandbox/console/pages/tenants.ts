// Tenants & keys: list and create tenants (the new key is shown once), issue more keys, change the
// tier, webhook settings and credit balances, disable or enable. All through /sandbox/v1/tenants.

import { Hono, type Context } from 'hono';
import { PLAN_TIERS } from '../../../domain/plans.js';
import { SCOPES } from '../../../domain/tenants.js';
import { badge, controlError, empty, pager, time } from '../components.js';
import { back, csrfField, field, fields, flash, numberOrRaw, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import type { ConsoleEnv } from '../types.js';
import { autoReviewActions, autoReviewBody, autoReviewPanel, type AutoReviewView } from './tenantAutoReview.js';
import { tenantClockActions, tenantClockPanel, type TenantClockView } from './tenantClock.js';
import { webhookActions, webhookPanel, type ListenerView } from './tenantWebhook.js';

interface TenantView {
  listeners?: ListenerView[];
  tenantId: string;
  name: string;
  planTier: string;
  disabled: boolean;
  webhookUrl: string | null;
  webhookSecret: string;
  screeningCredits: { remaining: number; cap: number; resetAt: string | null };
  applyCredits: { remaining: number; perMonth: number; resetAt: string | null };
  createdAt: string;
  autoReview?: AutoReviewView | null;
  keys?: { keyId: string; hint: string; scopes: string[]; createdAt: string }[];
}

const tierOptions = (current: string) =>
  html`${PLAN_TIERS.map((t) => html`<option value="${t}"${t === current ? html` selected` : ''}>${t}</option>`)}`;

function scopeBoxes(idPrefix: string): Html {
  return html`<fieldset class="checks"><legend>Scopes</legend>
    ${SCOPES.map((s) => html`<label for="${idPrefix}-${s}"><input type="checkbox" id="${idPrefix}-${s}" name="scopes" value="${s}" checked> ${s}</label>`)}
  </fieldset>`;
}

function createForm(c: Context<ConsoleEnv>): Html {
  return html`<section aria-labelledby="create-h" class="panel">
  <h2 id="create-h">Create a tenant</h2>
  <form method="post" action="/console/tenants" class="grid-form">
    ${csrfField(c)}
    <div><label for="t-name">Name</label><input id="t-name" name="name" maxlength="200" placeholder="Acme Hiring"></div>
    <div><label for="t-tier">Plan tier</label><select id="t-tier" name="planTier">${tierOptions('starter')}</select></div>
    <div><label for="t-url">Webhook URL</label><input id="t-url" name="webhookUrl" type="url" placeholder="https://example.test/hooks/screening"></div>
    <div><label for="t-secret">Webhook secret</label><input id="t-secret" name="webhookSecret" autocomplete="off" spellcheck="false" aria-describedby="t-secret-help" placeholder="generated when empty">
      <p class="help" id="t-secret-help">At least 8 characters. Deliveries are signed with HMAC-SHA256 of the raw body.</p></div>
    <div class="full">${scopeBoxes('t-scope')}</div>
    <div class="full"><button type="submit" class="primary">Create tenant</button></div>
  </form>
</section>`;
}

function listTable(tenants: TenantView[]): Html {
  if (tenants.length === 0)
    return empty(
      'No tenants yet — create one below, or reset the sandbox on the Demo page to re-seed the demo tenants.',
    );
  return html`<div class="table-wrap" tabindex="0"><table class="list">
  <caption class="sr-only">Tenants</caption>
  <thead><tr><th scope="col">Tenant</th><th scope="col">Tier</th><th scope="col">Status</th><th scope="col" class="num">Screening credits</th><th scope="col" class="num">Apply credits</th><th scope="col">Webhook</th><th scope="col">Created</th></tr></thead>
  <tbody>${tenants.map(
    (t) => html`<tr>
      <th scope="row"><a href="/console/tenants/${seg(t.tenantId)}">${t.name}</a><br><code class="small">${t.tenantId}</code></th>
      <td>${t.planTier}</td>
      <td>${badge(t.disabled ? 'disabled' : 'active')}</td>
      <td class="num">${t.screeningCredits.remaining} / ${t.screeningCredits.cap}</td>
      <td class="num">${t.applyCredits.remaining} / ${t.applyCredits.perMonth}</td>
      <td class="wrap">${t.webhookUrl ?? html`<span class="muted">none</span>`}</td>
      <td>${time(t.createdAt)}</td>
    </tr>`,
  )}</tbody>
</table></div>`;
}

function detail(c: Context<ConsoleEnv>, t: TenantView, clock: TenantClockView | null): Html {
  const id = seg(t.tenantId);
  const revealed = c.var.session.revealedKey;
  const key = revealed && revealed.tenantId === t.tenantId ? revealed.apiKey : null;
  if (key) c.var.session.revealedKey = null;
  return html`
${
  key
    ? html`<section class="panel reveal" aria-labelledby="key-h">
  <h2 id="key-h">New API key</h2>
  <p>Copy it now: it is shown only once and stored only as a hash.</p>
  <p><code id="new-api-key" class="secret">${key}</code></p>
</section>`
    : ''
}
<dl class="facts">
  <div><dt>Tenant id</dt><dd><code>${t.tenantId}</code></dd></div>
  <div><dt>Plan tier</dt><dd>${t.planTier}</dd></div>
  <div><dt>Status</dt><dd>${badge(t.disabled ? 'disabled' : 'active')}</dd></div>
  <div><dt>Screening credits</dt><dd>${t.screeningCredits.remaining} of ${t.screeningCredits.cap}; resets ${t.screeningCredits.resetAt ? time(t.screeningCredits.resetAt) : 'never'}</dd></div>
  <div><dt>Apply credits</dt><dd>${t.applyCredits.remaining} of ${t.applyCredits.perMonth} a month; resets ${t.applyCredits.resetAt ? time(t.applyCredits.resetAt) : 'never'}</dd></div>
  <div><dt>Created</dt><dd>${time(t.createdAt)}</dd></div>
</dl>
<p class="links">
  <a href="/console/reviews?tenantId=${id}">Reviews</a> ·
  <a href="/console/deliveries?tenantId=${id}">Webhook deliveries</a> ·
  <a href="/console/applications?tenantId=${id}">Job applications</a> ·
  <a href="/console/logs?tenantId=${id}">Request log</a>
</p>
<div class="cols">
<section class="panel" aria-labelledby="keys-h">
  <h2 id="keys-h">API keys</h2>
  <div class="table-wrap" tabindex="0"><table class="list">
    <thead><tr><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Created</th></tr></thead>
    <tbody>${(t.keys ?? []).map((k) => html`<tr><td><code>${k.hint}</code><br><span class="small muted">${k.keyId}</span></td><td>${k.scopes.join(', ') || html`<span class="muted">none</span>`}</td><td>${time(k.createdAt)}</td></tr>`)}</tbody>
  </table></div>
  <form method="post" action="/console/tenants/${id}/keys" class="stack">
    ${csrfField(c)}
    ${scopeBoxes('k-scope')}
    <button type="submit">Issue another key</button>
  </form>
</section>
<section class="panel" aria-labelledby="plan-h">
  <h2 id="plan-h">Plan and credits</h2>
  <form method="post" action="/console/tenants/${id}" class="inline">
    ${csrfField(c)}<input type="hidden" name="action" value="tier">
    <label for="p-tier">Plan tier</label><select id="p-tier" name="planTier">${tierOptions(t.planTier)}</select>
    <button type="submit">Change tier</button>
  </form>
  <p class="help">Changing the tier refills both wallets to the new tier's caps.</p>
  <form method="post" action="/console/tenants/${id}" class="grid-form">
    ${csrfField(c)}<input type="hidden" name="action" value="credits">
    <div><label for="c-scr">Screening credits remaining</label><input id="c-scr" name="screeningCredits" inputmode="numeric" value="${t.screeningCredits.remaining}"></div>
    <div><label for="c-app">Apply credits remaining</label><input id="c-app" name="applyCredits" inputmode="numeric" value="${t.applyCredits.remaining}"></div>
    <div class="full"><button type="submit">Set credit balances</button></div>
  </form>
</section>
${webhookPanel(c, t)}
${tenantClockPanel(c, clock)}
${autoReviewPanel(c, t.tenantId, t.autoReview)}
<section class="panel" aria-labelledby="state-h">
  <h2 id="state-h">Access</h2>
  <p>${t.disabled ? 'This tenant is disabled: every call with its keys answers 403 forbidden.' : 'Disabling a tenant makes every call with its keys answer 403 forbidden.'}</p>
  <form method="post" action="/console/tenants/${id}" class="actions">
    ${csrfField(c)}<input type="hidden" name="action" value="status"><input type="hidden" name="disabled" value="${t.disabled ? 'false' : 'true'}">
    <button type="submit" class="${t.disabled ? '' : 'danger'}">${t.disabled ? 'Enable tenant' : 'Disable tenant'}</button>
  </form>
  <form method="post" action="/console/tenants/${id}" class="inline">
    ${csrfField(c)}<input type="hidden" name="action" value="name">
    <label for="n-name">Name</label><input id="n-name" name="name" value="${t.name}" maxlength="200">
    <button type="submit">Rename</button>
  </form>
</section>
</div>`;
}

/** The PATCH body for one of the detail page's forms. */
function patchBody(form: Record<string, string | string[]>): Record<string, unknown> {
  switch (field(form, 'action')) {
    case 'tier':
      return { planTier: field(form, 'planTier') };
    case 'credits':
      return {
        screeningCredits: numberOrRaw(field(form, 'screeningCredits')),
        applyCredits: numberOrRaw(field(form, 'applyCredits')),
      };
    case 'webhook': {
      const secret = field(form, 'webhookSecret');
      return { webhookUrl: field(form, 'webhookUrl') || null, ...(secret ? { webhookSecret: secret } : {}) };
    }
    case 'status':
      return { disabled: field(form, 'disabled') === 'true' };
    case 'name':
      return { name: field(form, 'name') };
    case 'autoReview':
      return autoReviewBody(form);
    default:
      return {};
  }
}

export function tenantPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const res = await c.var.ctl.get<{ tenants: TenantView[]; nextCursor: string | null }>('/tenants', {
      cursor: c.req.query('cursor'),
    });
    return renderPage(c, {
      title: 'Tenants & keys',
      active: '/console/tenants',
      lead: 'Accounts that own API keys. Each has one plan tier across the screening and jobs APIs.',
      body: html`${res.ok ? html`${listTable(res.data.tenants)}${pager(c.req.url, res.data.nextCursor, 'tenants')}` : controlError('tenants', res)}${createForm(c)}`,
    });
  });

  r.post('/', async (c) => {
    const form = await readForm(c);
    const body: Record<string, unknown> = { planTier: field(form, 'planTier') };
    for (const k of ['name', 'webhookUrl', 'webhookSecret']) if (field(form, k)) body[k] = field(form, k);
    body.scopes = fields(form, 'scopes');
    const res = await c.var.ctl.send<{ tenantId: string; apiKey: string; name: string }>('POST', '/tenants', body);
    if (!res.ok) return back(c, '/console/tenants', res, '');
    c.var.session.revealedKey = { tenantId: res.data.tenantId, apiKey: res.data.apiKey };
    flash(c, { kind: 'ok', text: `Created tenant ${res.data.name} (${res.data.tenantId}).` });
    return c.redirect(`/console/tenants/${seg(res.data.tenantId)}`, 303);
  });

  r.get('/:tenantId', async (c) => {
    const [res, clock] = await Promise.all([
      c.var.ctl.get<TenantView>(`/tenants/${seg(c.req.param('tenantId'))}`),
      c.var.ctl.get<TenantClockView>(`/tenants/${seg(c.req.param('tenantId'))}/clock`),
    ]);
    const listening = res.ok
      ? await c.var.ctl.get<{ listeners: ListenerView[] }>('/webhooks/listen/listeners', {
          tenantId: res.data.tenantId,
        })
      : null;
    if (res.ok && listening?.ok) res.data.listeners = listening.data.listeners;
    return renderPage(c, {
      title: res.ok ? res.data.name : 'Tenant',
      active: '/console/tenants',
      status: res.ok ? 200 : 404,
      body: res.ok
        ? detail(c, res.data, clock.ok ? clock.data : null)
        : html`${controlError('the tenant', res)}<p><a href="/console/tenants">All tenants</a></p>`,
    });
  });

  webhookActions(r);
  tenantClockActions(r);
  autoReviewActions(r);

  r.post('/:tenantId/keys', async (c) => {
    const tenantId = c.req.param('tenantId');
    const res = await c.var.ctl.send<{ apiKey: string }>('POST', `/tenants/${seg(tenantId)}/keys`, {
      scopes: fields(await readForm(c), 'scopes'),
    });
    if (res.ok) c.var.session.revealedKey = { tenantId, apiKey: res.data.apiKey };
    return back(c, `/console/tenants/${seg(tenantId)}`, res, 'Issued a new API key.');
  });

  r.post('/:tenantId', async (c) => {
    const tenantId = c.req.param('tenantId');
    const res = await c.var.ctl.send('PATCH', `/tenants/${seg(tenantId)}`, patchBody(await readForm(c)));
    return back(c, `/console/tenants/${seg(tenantId)}`, res, 'Saved.');
  });

  return r;
}
