// Plan and billing: the tier tables (contracts/limits.yaml) with prices in USD or IDR, and a simulated
// checkout with a payment provider's test cards; a successful payment changes the tier and its credits
// through the domain's plan change. The 402 upsell's upgradeUrl is this page.

import { Hono, type Context } from 'hono';
import { CURRENCIES, priceOf, type Currency } from '../../../domain/accounts.js';
import { jobsLimitsOf, limits, PLAN_TIERS, type PlanTier } from '../../../domain/plans.js';
import { time } from '../../console/components.js';
import { html } from '../../console/html.js';
import { tenantView } from '../../control/tenants.js';
import { blank, csrfField, formMessage, input, readValues, refused, type FormState } from '../forms.js';
import { renderPage } from '../layout.js';
import { BASE } from '../session.js';
import type { DashboardEnv } from '../types.js';

const money = (amount: number, currency: Currency) =>
  currency === 'USD' ? `USD ${amount.toLocaleString('en-US')}` : `IDR ${amount.toLocaleString('en-US')}`;

const spaced = (digits: string) => digits.replace(/(\d{4})(?=\d)/g, '$1 ');

function billingView(c: Context<DashboardEnv>, state: FormState | null, status = 200): Response {
  const { tenants, clock } = c.var.core;
  const t = tenants.get(c.var.account.tenantId);
  const view = tenantView(t, clock.now());
  const asked = (state?.values.currency ?? c.req.query('currency') ?? 'USD') as Currency;
  const currency: Currency = (CURRENCIES as readonly string[]).includes(asked) ? asked : 'USD';
  const form = state ?? blank({ currency, planTier: t.planTier === 'free' ? 'starter' : '' });
  const cards = limits.policy.dashboard.testCards;
  const rows = PLAN_TIERS.map((tier: PlanTier) => {
    const jobs = jobsLimitsOf(tier);
    const scr = limits.policy.screening[tier];
    return html`<tr${tier === t.planTier ? html` aria-current="true" class="current"` : ''}>
      <th scope="row">${tier}${tier === t.planTier ? html` <span class="badge good">current</span>` : ''}</th>
      <td class="num" data-price="${tier}">${money(priceOf(tier, currency), currency)}</td>
      <td class="num">${scr.creditsCap}${scr.resets === 'monthly' ? ' a month' : ' in all'}</td>
      <td class="num">${jobs.applyEnabled ? `${jobs.applyCreditsPerMonth} a month` : 'none'}</td>
      <td class="num">${jobs.rateLimitPerMinute}/min</td>
      <td class="num">${jobs.maxPages}</td>
    </tr>`;
  });
  const choice = (tier: PlanTier) =>
    html`<label class="plan-choice"><input type="radio" name="planTier" value="${tier}"${form.values.planTier === tier ? html` checked` : ''}${
      tier === t.planTier ? html` disabled` : ''
    }> ${tier} <span class="muted">${money(priceOf(tier, currency), currency)} a month</span></label>`;
  const planError = form.errors.planTier;
  const body = html`<section class="panel" aria-labelledby="plan-h">
    <h2 id="plan-h">Your plan: <span data-field="plan-tier">${t.planTier}</span></h2>
    <dl class="facts">
      <div><dt>Screening credits</dt><dd data-field="screening-credits">${view.screeningCredits.remaining} of ${view.screeningCredits.cap}</dd></div>
      <div><dt>Refill</dt><dd>${view.screeningCredits.resetAt ? time(view.screeningCredits.resetAt) : html`<span class="muted">never (free tier)</span>`}</dd></div>
      <div><dt>Apply credits</dt><dd data-field="apply-credits">${view.applyCredits.remaining} of ${view.applyCredits.perMonth}</dd></div>
    </dl>
  </section>
  <form method="get" action="${BASE}/billing" class="inline" aria-label="Currency">
    <label for="cur">Show prices in</label>
    <select id="cur" name="currency">${CURRENCIES.map((k) => html`<option value="${k}"${k === currency ? html` selected` : ''}>${k}</option>`)}</select>
    <button type="submit" class="small">Show</button>
  </form>
  <div class="table-wrap" tabindex="0" role="region" aria-label="Plans">
  <table class="list" data-field="plans">
    <thead><tr><th scope="col">Plan</th><th scope="col" class="num">Price a month</th><th scope="col" class="num">Screens</th><th scope="col" class="num">Applies</th><th scope="col" class="num">Rate</th><th scope="col" class="num">Search pages</th></tr></thead>
    <tbody>${rows}</tbody>
  </table></div>
  <section class="panel" aria-labelledby="checkout-h">
    <h2 id="checkout-h">Change plan</h2>
    <p class="muted">Test mode: no money moves. <code>${spaced(cards.succeeds)}</code> is accepted, <code>${spaced(cards.declined)}</code> is declined; any future expiry, any 3 digits.</p>
    ${formMessage(form)}
    <form method="post" action="${BASE}/billing" class="stack" novalidate>
      ${csrfField(c)}
      <fieldset class="plans"${planError ? html` aria-describedby="f-planTier-error"` : ''}>
        <legend>Plan</legend>
        ${PLAN_TIERS.map(choice)}
        ${planError ? html`<p class="field-error" id="f-planTier-error" data-error-for="planTier">${planError}</p>` : ''}
      </fieldset>
      <div class="field">
        <label for="f-currency">Pay in</label>
        <select id="f-currency" name="currency"${form.errors.currency ? html` aria-invalid="true" aria-describedby="f-currency-error"` : ''}>${CURRENCIES.map(
          (k) =>
            html`<option value="${k}"${k === (form.values.currency ?? currency) ? html` selected` : ''}>${k}</option>`,
        )}</select>
        ${form.errors.currency ? html`<p class="field-error" id="f-currency-error" data-error-for="currency">${form.errors.currency}</p>` : ''}
      </div>
      <div class="card-row">
        ${input(form, { name: 'cardNumber', label: 'Card number', inputmode: 'numeric', autocomplete: 'cc-number', placeholder: '4242 4242 4242 4242' })}
        ${input(form, { name: 'expiry', label: 'Expiry (MM/YY)', inputmode: 'numeric', autocomplete: 'cc-exp', placeholder: '12/34' })}
        ${input(form, { name: 'cvc', label: 'Security code', inputmode: 'numeric', autocomplete: 'cc-csc', placeholder: '123', secret: true })}
      </div>
      <p class="help">Moving to the free plan needs no card.</p>
      <button type="submit" class="primary">Pay and change plan</button>
    </form>
  </section>
  <h2>Payments</h2>
  ${
    c.var.account.payments.length
      ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Payments"><table class="list" data-field="payments"><thead><tr><th scope="col">When</th><th scope="col">Plan</th><th scope="col" class="num">Amount</th><th scope="col">Card</th></tr></thead>
        <tbody>${[...c.var.account.payments].reverse().map((p) => html`<tr><td>${time(new Date(p.at).toISOString())}</td><th scope="row">${p.planTier}</th><td class="num">${money(p.amount, p.currency)}</td><td>${p.cardLast4 ? `•••• ${p.cardLast4}` : '—'}</td></tr>`)}</tbody></table></div>`
      : html`<p class="empty">No payments yet.</p>`
  }`;
  return renderPage(c, {
    title: 'Plan & billing',
    active: `${BASE}/billing`,
    body,
    status,
    lead: 'One plan covers both APIs; a change refills your credits at the new plan’s caps at once.',
  });
}

export function billingPages() {
  const r = new Hono<DashboardEnv>();
  r.get('/', (c) => billingView(c, null));
  r.post('/', async (c) => {
    const values = await readValues(c);
    try {
      const payment = c.var.core.store.accounts.checkout(c.var.account, {
        planTier: values.planTier ?? '',
        currency: values.currency ?? '',
        cardNumber: values.cardNumber ?? '',
        expiry: values.expiry ?? '',
        cvc: values.cvc ?? '',
      });
      return c.redirect(
        `${BASE}/billing?done=${payment.amount > 0 ? 'paid' : 'downgraded'}&currency=${payment.currency}`,
        303,
      );
    } catch (err) {
      const { state, status } = refused(err, values, ['planTier', 'currency', 'cardNumber', 'expiry']);
      return billingView(c, state, status);
    }
  });
  return r;
}
