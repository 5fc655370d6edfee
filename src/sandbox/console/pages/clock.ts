// Sandbox clock: shows sandbox time and pending timers, and moves the clock forward, which fires
// due webhook retries and review expiries at once.

import { Hono } from 'hono';
import { limits } from '../../../domain/plans.js';
import { controlError, time } from '../components.js';
import { back, csrfField, field, numberOrRaw, readForm } from '../forms.js';
import { html } from '../html.js';
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

function describe(seconds: number): string {
  const preset = PRESETS.find((p) => p.seconds === seconds);
  return preset ? preset.label.slice(1) : `${seconds} seconds`;
}

export function clockPages() {
  const r = new Hono<ConsoleEnv>();

  r.get('/', async (c) => {
    const res = await c.var.ctl.get<{ now: string; pendingTimers: number }>('/clock');
    const body = html`${res.ok
      ? html`<dl class="facts big">
  <div><dt>Sandbox time</dt><dd data-field="now">${time(res.data.now)}</dd></div>
  <div><dt>Pending timers</dt><dd>${res.data.pendingTimers} <span class="muted small">(webhook retries, review expiries)</span></dd></div>
</dl>`
      : controlError('the clock', res)}
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
</section>`;
    return renderPage(c, { title: 'Sandbox clock', active: '/console/clock', body });
  });

  r.post('/advance', async (c) => {
    const seconds = numberOrRaw(field(await readForm(c), 'seconds'));
    const res = await c.var.ctl.send<{ now: string; pendingTimers: number }>('POST', '/clock/advance', { seconds });
    return back(c, '/console/clock', res, res.ok ? `Advanced by ${describe(seconds as number)}: sandbox time is now ${res.data.now} (${res.data.pendingTimers} timers pending).` : '');
  });

  return r;
}
