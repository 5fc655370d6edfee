// The dashboard's page shell, in the console's look (its stylesheet, served here too): skip link, a
// header with the account and sign-out, the navigation, one-shot messages named in the query string
// (pages are reads: they change no state, so a shared sandbox serves them from any instance).

import type { Context } from 'hono';
import { html, type Html } from '../console/html.js';
import { documentShell as consoleShell } from '../console/layout.js';
import { csrfField } from './forms.js';
import { BASE } from './session.js';
import type { DashboardEnv } from './types.js';

export const NAV = [
  { href: `${BASE}`, label: 'Overview' },
  { href: `${BASE}/keys`, label: 'API keys' },
  { href: `${BASE}/billing`, label: 'Plan & billing' },
  { href: `${BASE}/webhooks`, label: 'Webhooks' },
  { href: `${BASE}/requests`, label: 'Screening requests' },
  { href: `${BASE}/deliveries`, label: 'Webhook deliveries' },
  { href: `${BASE}/logs`, label: 'Request log' },
] as const;

/** Messages a redirect after a successful post names (`?done=`): fixed texts, so nothing typed is echoed. */
const DONE: Record<string, string> = {
  revoked: 'The key was revoked. Calls with it now answer 401.',
  'webhook-saved': 'The webhook URL was saved.',
  'webhook-cleared':
    'The webhook URL was removed; deliveries are recorded without being sent (or go to a connected listen command).',
  rotated: 'A new signing secret was made. The previous one keeps signing beside it for 24 hours.',
  paid: 'Payment accepted. Your plan and its credits changed at once.',
  downgraded: 'You are on the free plan now.',
};

const DASHBOARD_ASSETS = {
  product: 'Sandbox dashboard',
  stylesheets: [`${BASE}/assets/console.css`, `${BASE}/assets/dashboard.css`],
  scripts: [],
};

/** The console's document shell, with the dashboard's name and stylesheets. */
export const documentShell = (title: string, body: Html): Html => consoleShell(title, body, DASHBOARD_ASSETS);

/** A page outside the signed-in shell (sign-up, sign-in, refusals): one centred panel. */
export function plainPage(c: Context, title: string, body: Html, status = 200): Response {
  return c.html(
    documentShell(
      title,
      html`<a class="skip" href="#main">Skip to content</a>
<header class="top"><a class="brand" href="${BASE}">Remote-jobs sandbox <span>dashboard</span></a></header>
<main id="main" class="login" tabindex="-1">${body}</main>`,
    ).value,
    status as 200,
  );
}

export interface PageOptions {
  title: string;
  active: string;
  body: Html;
  lead?: string | Html;
  status?: number;
}

export function renderPage(c: Context<DashboardEnv>, o: PageOptions): Response {
  const done = DONE[c.req.query('done') ?? ''];
  const body = html`<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="${BASE}">Remote-jobs sandbox <span>dashboard</span></a>
  <p class="now"><span class="sr-only">Signed in as </span><span data-field="account-email">${c.var.account.email}</span></p>
  <form method="post" action="${BASE}/logout" class="logout">${csrfField(c)}<button type="submit" class="link">Sign out</button></form>
</header>
<div class="shell">
  <nav aria-label="Dashboard sections" class="side">
    <ul>
      ${NAV.map((n) => html`<li><a href="${n.href}"${o.active === n.href ? html` aria-current="page"` : ''}>${n.label}</a></li>`)}
      <li class="sep"><a href="/docs">API reference ↗</a></li>
    </ul>
  </nav>
  <main id="main" tabindex="-1">
    ${done ? html`<div class="flash ok" role="status" data-field="done">${done}</div>` : ''}
    <h1>${o.title}</h1>
    ${o.lead ? html`<p class="lead">${o.lead}</p>` : ''}
    ${o.body}
  </main>
</div>`;
  return c.html(documentShell(o.title, body).value, (o.status ?? 200) as 200);
}
