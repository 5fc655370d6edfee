// Faults: the chaos rules integrators use to exercise their retry logic (forced 429/500/503,
// latency, failing webhook deliveries), for everyone or for one tenant (D-121), and the planted bugs
// that prove the conformance harness.

import { Hono, type Context } from 'hono';
import { controlError, empty, time } from '../components.js';
import { back, csrfField, field, numberOrRaw, readForm, type Form } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import type { ConsoleEnv } from '../types.js';

interface Rule {
  id: string;
  path: string;
  method: string | null;
  mode: 'status' | 'latency' | 'webhook_failure';
  status: number | null;
  latencyMs: number;
  remaining: number | null;
  ratio: number;
  hits: number;
  createdAt: string;
  tenantId?: string | null;
}

interface Bug {
  name: string;
  description: string;
  enabled: boolean;
}

function effect(r: Rule): string {
  if (r.mode === 'status') return `answer ${r.status}`;
  if (r.mode === 'latency') return `add ${r.latencyMs} ms latency`;
  return `fail webhook deliveries (reported as HTTP ${r.status ?? 500})`;
}

function rulesTable(c: Context<ConsoleEnv>, rules: Rule[]): Html {
  if (rules.length === 0)
    return empty(
      'No faults active: every API call behaves normally. Add one below to see how your client copes with failures.',
    );
  return html`<div class="table-wrap" tabindex="0"><table class="list">
  <caption class="sr-only">Active chaos rules</caption>
  <thead><tr><th scope="col">Rule</th><th scope="col">Matches</th><th scope="col">Effect</th><th scope="col">Applies to</th><th scope="col" class="num">Hits</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
  <tbody>${rules.map(
    (r) => html`<tr>
    <th scope="row"><code>${r.id}</code><br><span class="small muted">${time(r.createdAt)}</span></th>
    <td>${r.mode === 'webhook_failure' ? html`<span class="muted">webhook deliveries</span>` : html`<code>${r.method ?? 'any method'} ${r.path === '*' ? 'every API path' : `${r.path}…`}</code>`}</td>
    <td>${effect(r)}</td>
    <td>${r.remaining !== null ? `next ${r.remaining} ${r.remaining === 1 ? 'call' : 'calls'}` : 'every call until removed'}${r.ratio < 1 ? `, ${Math.round(r.ratio * 100)}% of them` : ''}${r.tenantId ? html`<br><span class="small" data-field="rule-tenant">of tenant <a href="/console/tenants/${seg(r.tenantId)}"><code>${r.tenantId}</code></a> only</span>` : ''}</td>
    <td class="num">${r.hits}</td>
    <td><form method="post" action="/console/faults/${seg(r.id)}/delete">${csrfField(c)}<button type="submit" class="small" aria-label="Remove ${r.id}">Remove</button></form></td>
  </tr>`,
  )}</tbody>
</table></div>
<form method="post" action="/console/faults/clear" class="actions">${csrfField(c)}<button type="submit" class="danger">Clear all faults</button></form>`;
}

function addForm(c: Context<ConsoleEnv>): Html {
  return html`<section class="panel" aria-labelledby="add-h">
  <h2 id="add-h">Add a fault</h2>
  <form method="post" action="/console/faults" class="grid-form">
    ${csrfField(c)}
    <div><label for="ft-mode">Effect</label><select id="ft-mode" name="mode">
      <option value="status:503">503 service_disabled</option>
      <option value="status:429">429 rate_limited</option>
      <option value="status:500">500 internal</option>
      <option value="latency">Added latency</option>
      <option value="webhook_failure">Webhook delivery failure</option>
    </select></div>
    <div><label for="ft-lat">Latency (ms)</label><input id="ft-lat" name="latencyMs" inputmode="numeric" placeholder="for “Add latency”, e.g. 2000"></div>
    <div><label for="ft-path">Endpoint path prefix</label><input id="ft-path" name="path" value="/api/" aria-describedby="ft-path-help" spellcheck="false">
      <p class="help" id="ft-path-help">For example <code>/api/screening/v1/screen</code> or <code>/api/v1/jobs</code>; <code>*</code> matches every API path. Not used for webhook failures.</p></div>
    <div><label for="ft-tenant">Tenant id</label><input id="ft-tenant" name="tenantId" spellcheck="false" aria-describedby="ft-tenant-help" placeholder="every tenant when empty">
      <p class="help" id="ft-tenant-help">Only this tenant's calls and webhook deliveries are affected.</p></div>
    <div><label for="ft-method">Method</label><select id="ft-method" name="method">
      <option value="">any</option>${['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].map((m) => html`<option>${m}</option>`)}
    </select></div>
    <fieldset class="full"><legend>Applies to</legend>
      <label for="ft-scope-all"><input type="radio" id="ft-scope-all" name="scope" value="all" checked> every matching call until removed</label>
      <label for="ft-scope-count"><input type="radio" id="ft-scope-count" name="scope" value="count"> the next</label>
      <input id="ft-count" name="count" inputmode="numeric" class="short" aria-label="number of calls" placeholder="N"> calls
      <label for="ft-scope-ratio"><input type="radio" id="ft-scope-ratio" name="scope" value="ratio"> a share of calls:</label>
      <input id="ft-ratio" name="ratio" inputmode="decimal" class="short" aria-label="share of calls, from 0 to 1" placeholder="0.5">
    </fieldset>
    <div class="full"><button type="submit" class="primary">Add fault</button></div>
  </form>
</section>`;
}

function bugsTable(c: Context<ConsoleEnv>, bugs: Bug[]): Html {
  return html`<section class="panel" aria-labelledby="bugs-h">
  <h2 id="bugs-h">Planted bugs</h2>
  <p>Each breaks one rule of the specification on purpose, to prove a conformance run catches it. Keep them off otherwise.</p>
  <div class="table-wrap" tabindex="0"><table class="list"><thead><tr><th scope="col">Bug</th><th scope="col">Effect</th><th scope="col">State</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
  <tbody>${bugs.map(
    (
      b,
    ) => html`<tr><th scope="row"><code>${b.name}</code></th><td>${b.description}</td><td>${b.enabled ? html`<span class="badge bad">on</span>` : html`<span class="badge neutral">off</span>`}</td>
    <td><form method="post" action="/console/faults/bugs/${seg(b.name)}">${csrfField(c)}<input type="hidden" name="enabled" value="${b.enabled ? 'false' : 'true'}">
      <button type="submit" class="small" aria-label="${b.enabled ? 'Switch off' : 'Switch on'} ${b.name}">${b.enabled ? 'Switch off' : 'Switch on'}</button></form></td></tr>`,
  )}</tbody></table></div>
</section>`;
}

/** The control API body for the add form. Values that are not numbers go through as typed. */
function ruleBody(form: Form): Record<string, unknown> {
  const mode = field(form, 'mode');
  const body: Record<string, unknown> = {};
  if (mode.startsWith('status:')) Object.assign(body, { mode: 'status', status: Number(mode.slice(7)) });
  else if (mode === 'latency') Object.assign(body, { mode, latencyMs: numberOrRaw(field(form, 'latencyMs')) });
  else body.mode = mode;
  if (mode !== 'webhook_failure') {
    if (field(form, 'path')) body.path = field(form, 'path');
    if (field(form, 'method')) body.method = field(form, 'method');
  }
  if (field(form, 'tenantId')) body.tenantId = field(form, 'tenantId').trim();
  const scope = field(form, 'scope');
  if (scope === 'count') body.count = numberOrRaw(field(form, 'count'));
  if (scope === 'ratio') body.ratio = numberOrRaw(field(form, 'ratio'));
  return body;
}

export function faultPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const res = await c.var.ctl.get<{ rules: Rule[]; bugs: Bug[] }>('/faults');
    return renderPage(c, {
      title: 'Faults',
      active: '/console/faults',
      lead: 'Make API calls fail on purpose. Active faults are announced on every console page; the control API and this console are never affected.',
      body: res.ok
        ? html`<section aria-labelledby="active-h"><h2 id="active-h">Active faults</h2>${rulesTable(c, res.data.rules)}</section>${addForm(c)}${bugsTable(c, res.data.bugs)}`
        : controlError('faults', res),
    });
  });

  r.post('/', async (c) => {
    const res = await c.var.ctl.send<Rule>('POST', '/faults', ruleBody(await readForm(c)));
    return back(c, '/console/faults', res, res.ok ? `Added fault ${res.data.id}: ${effect(res.data)}.` : '');
  });

  r.post('/clear', async (c) =>
    back(c, '/console/faults', await c.var.ctl.send('DELETE', '/faults'), 'Cleared every fault.'),
  );

  r.post('/:id/delete', async (c) => {
    const id = c.req.param('id');
    return back(c, '/console/faults', await c.var.ctl.send('DELETE', `/faults/${seg(id)}`), `Removed fault ${id}.`);
  });

  r.post('/bugs/:name', async (c) => {
    const name = c.req.param('name');
    const on = field(await readForm(c), 'enabled') === 'true';
    const res = await c.var.ctl.send(on ? 'PUT' : 'DELETE', `/bugs/${seg(name)}`);
    return back(c, '/console/faults', res, `Planted bug ${name} switched ${on ? 'on' : 'off'}.`);
  });

  return r;
}
