// Sandbox clock: sandbox time, what is pending (the soonest timers and a count per kind), and what
// fired on each recent advance; moving the clock forward fires due webhook retries and review
// expiries at once.

import { Hono } from 'hono';
import { limits } from '../../../domain/plans.js';
import { controlError, empty, time } from '../components.js';
import { back, csrfField, field, numberOrRaw, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import { renderPage } from '../layout.js';
import type { ConsoleEnv } from '../types.js';

const PRESETS = [
  { seconds: 60, label: '+1 minute' },
  { seconds: 3600, label: '+1 hour' },
  { seconds: 86400, label: '+24 hours' },
  { seconds: 259200, label: '+72 hours' },
] as const;

const human = (s: number) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`);
const schedule = limits.policy.webhook.retryScheduleSeconds.map(human);
const retries = `${schedule.slice(0, -1).join(', ')} and ${schedule.at(-1)}`;

interface TimerView {
  at: string;
  label: string;
  ref: string | null;
  tenantId?: string | null;
}
interface Advance {
  tenantId?: string | null;
  from: string;
  to: string;
  fired: number;
  byLabel: Record<string, number>;
  first: TimerView[];
}
interface Timers {
  now: string;
  pendingTimers: number;
  pendingByLabel: Record<string, number>;
  soonest: TimerView[];
  advances: Advance[];
}

function describe(seconds: number): string {
  const preset = PRESETS.find((p) => p.seconds === seconds);
  return preset ? preset.label.slice(1) : `${seconds} seconds`;
}

const counts = (byLabel: Record<string, number>) =>
  Object.entries(byLabel)
    .map(([k, n]) => `${n} ${k}${n === 1 ? '' : k.endsWith('y') ? '' : 's'}`)
    .join(', ');

function refLink(t: TimerView): Html {
  if (!t.ref) return html``;
  if (t.ref.startsWith('scr_')) return html`<a href="/console/requests/${seg(t.ref)}"><code>${t.ref}</code></a>`;
  return html`<code>${t.ref}</code>`;
}

/** A timer or advance on a tenant's own clock (D-120) says whose. */
const onTenant = (tenantId: string | null | undefined): Html =>
  tenantId
    ? html` <span class="small">on the clock of tenant <a href="/console/tenants/${seg(tenantId)}"><code>${tenantId}</code></a></span>`
    : html``;

function timerList(list: TimerView[]): Html {
  return html`<ol class="timers">${list.map((t) => html`<li>${time(t.at)} <strong>${t.label}</strong> ${refLink(t)}${onTenant(t.tenantId)}</li>`)}</ol>`;
}

function pendingView(t: Timers): Html {
  return html`<section class="panel" aria-labelledby="pend-h"><h2 id="pend-h">Pending timers</h2>
  ${t.pendingTimers === 0 ? empty('Nothing is scheduled.') : html`<p data-field="pending">${t.pendingTimers} pending: ${counts(t.pendingByLabel)}. The soonest:</p>${timerList(t.soonest)}`}
  <p class="help">Rate-limit windows are not timers: they start afresh once their minute or day has passed on this clock. Each tenant also has its own clock, the sandbox clock plus the tenant's offset, moved from the tenant's page; advancing the sandbox clock moves every tenant's.</p>
</section>`;
}

function historyView(list: Advance[]): Html {
  return html`<section class="panel" aria-labelledby="hist-h"><h2 id="hist-h">Recent advances</h2>
  ${
    list.length === 0
      ? empty('The clock has not been advanced yet.')
      : html`<ol class="advances">${list.map(
          (a) => html`<li data-fired="${a.fired}">
    ${time(a.from)} → ${time(a.to)}${onTenant(a.tenantId)}: ${a.fired === 0 ? 'nothing fired' : html`fired ${counts(a.byLabel)}`}
    ${a.first.length ? html`<details><summary>What fired</summary>${timerList(a.first)}${a.fired > a.first.length ? html`<p class="help">and ${a.fired - a.first.length} more</p>` : ''}</details>` : ''}
  </li>`,
        )}</ol>`
  }
</section>`;
}

export function clockPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const res = await c.var.ctl.get<Timers>('/clock/timers');
    const body = html`${
      res.ok
        ? html`<dl class="facts big">
  <div><dt>Sandbox time</dt><dd data-field="now">${time(res.data.now)}</dd></div>
  <div><dt>Pending timers</dt><dd>${res.data.pendingTimers} <span class="muted small">(webhook retries, review expiries)</span></dd></div>
</dl>`
        : controlError('the clock', res)
    }
<section class="panel" aria-labelledby="adv-h">
  <h2 id="adv-h">Advance the clock</h2>
  <p>Time only moves forward. Everything scheduled up to the new time runs at once, in order.</p>
  <form method="post" action="/console/clock/advance" class="actions" aria-label="Advance by a preset">
    ${csrfField(c)}
    ${PRESETS.map((p) => html`<button type="submit" name="seconds" value="${p.seconds}">${p.label}</button>`)}
  </form>
  <form method="post" action="/console/clock/advance" class="inline" aria-label="Advance by a number of seconds">
    ${csrfField(c)}
    <label for="adv-s">Seconds</label><input id="adv-s" name="seconds" inputmode="numeric" required placeholder="e.g. 300">
    <button type="submit">Advance</button>
  </form>
  <p class="help">A request still pending review ${limits.policy.reviewWindowHours} hours after it was scored expires. A failed webhook delivery is retried after ${retries}.</p>
</section>
<div class="cols">${res.ok ? html`${pendingView(res.data)}${historyView(res.data.advances)}` : ''}</div>`;
    return renderPage(c, { title: 'Sandbox clock', active: '/console/clock', body });
  });

  r.post('/advance', async (c) => {
    const seconds = numberOrRaw(field(await readForm(c), 'seconds'));
    const res = await c.var.ctl.send<{ now: string; pendingTimers: number; fired: Advance }>('POST', '/clock/advance', {
      seconds,
    });
    const fired = res.ok ? (res.data.fired.fired ? `fired ${counts(res.data.fired.byLabel)}` : 'nothing fired') : '';
    return back(
      c,
      '/console/clock',
      res,
      res.ok
        ? `Advanced by ${describe(seconds as number)}: sandbox time is now ${res.data.now}; ${fired} (${res.data.pendingTimers} ${res.data.pendingTimers === 1 ? 'timer' : 'timers'} pending).`
        : '',
    );
  });

  return r;
}
