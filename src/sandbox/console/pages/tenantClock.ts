// The clock panel of a tenant's page (D-120): the tenant's own time (the sandbox clock plus its offset),
// its pending timers, and a form that moves only this tenant's clock.

import type { Context, Hono } from 'hono';
import { time } from '../components.js';
import { back, csrfField, field, numberOrRaw, readForm } from '../forms.js';
import { html, seg, type Html } from '../html.js';
import type { ConsoleEnv } from '../types.js';

export interface TenantClockView {
  tenantId: string;
  now: string;
  offsetSeconds: number;
  pendingTimers: number;
  pendingByLabel: Record<string, number>;
}

export function tenantClockPanel(c: Context<ConsoleEnv>, clock: TenantClockView | null): Html {
  if (!clock) return html``;
  const kinds = Object.entries(clock.pendingByLabel)
    .map(([label, n]) => `${n} ${label}`)
    .join(', ');
  return html`<section class="panel" aria-labelledby="tclock-h">
  <h2 id="tclock-h">Tenant clock</h2>
  <p data-field="tenant-now">Tenant time ${time(clock.now)}, ${clock.offsetSeconds} s ahead of the sandbox clock.</p>
  <p class="help">This tenant's review expiries, webhook retries, credit periods, rate windows and ledger times follow its clock; moving it moves nobody else's. Pending: ${clock.pendingTimers === 0 ? 'nothing' : kinds}.</p>
  <form method="post" action="/console/tenants/${seg(clock.tenantId)}/clock" class="inline">
    ${csrfField(c)}
    <label for="tc-seconds">Advance this tenant's clock by (seconds)</label><input id="tc-seconds" name="seconds" class="short" inputmode="numeric" value="3600">
    <button type="submit">Advance tenant clock</button>
  </form>
</section>`;
}

export function tenantClockActions(r: Hono<ConsoleEnv>): void {
  r.post('/:tenantId/clock', async (c) => {
    const tenantId = c.req.param('tenantId');
    const seconds = numberOrRaw(field(await readForm(c), 'seconds'));
    const res = await c.var.ctl.send<{ now: string; fired: { fired: number } }>(
      'POST',
      `/tenants/${seg(tenantId)}/clock/advance`,
      { seconds },
    );
    return back(
      c,
      `/console/tenants/${seg(tenantId)}`,
      res,
      res.ok
        ? `Advanced this tenant's clock by ${seconds} s: its time is now ${res.data.now}; ${res.data.fired.fired} timer(s) fired.`
        : '',
    );
  });
}
