// The page shell every console page shares: skip link, header with the sandbox time, navigation,
// the active-faults banner (so injected failures are never a surprise), one-shot messages.

import type { Context } from 'hono';
import { time } from './components.js';
import { csrfField } from './forms.js';
import { html, safeHref, type Html } from './html.js';
import type { ConsoleEnv } from './types.js';

export const NAV = [
  { href: '/console/tenants', label: 'Tenants & keys' },
  { href: '/console/reviews', label: 'Review queue' },
  { href: '/console/requests', label: 'Request timeline' },
  { href: '/console/deliveries', label: 'Webhook deliveries' },
  { href: '/console/logs', label: 'Request log' },
  { href: '/console/applications', label: 'Job applications' },
  { href: '/console/outbox', label: 'Hire outbox' },
  { href: '/console/clock', label: 'Sandbox clock' },
  { href: '/console/faults', label: 'Faults' },
  { href: '/console/demo', label: 'Demo & reset' },
] as const;

export interface PageOptions {
  title: string;
  /** The nav entry to mark current (its href). */
  active: string;
  body: Html;
  status?: 200 | 400 | 404;
  /** Lead paragraph under the heading. */
  lead?: string | Html;
}

/** What a product's pages load besides the document itself (the console's by default). */
export interface ShellAssets {
  product: string;
  stylesheets: string[];
  scripts: string[];
}

const CONSOLE_ASSETS: ShellAssets = {
  product: 'Sandbox console',
  stylesheets: ['/console/assets/console.css'],
  scripts: ['/console/assets/console.js'],
};

/** The HTML document around a page's body, shared by the console and the account dashboard. */
export function documentShell(title: string, body: Html, assets: ShellAssets = CONSOLE_ASSETS): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${assets.product}</title>
<link rel="icon" href="data:,">
${assets.stylesheets.map(
  (href) => html`<link rel="stylesheet" href="${href}">
`,
)}${assets.scripts.map(
    (src) => html`<script src="${src}" defer></script>
`,
  )}</head>
<body>
${body}
</body>
</html>`;
}

async function faultsBanner(c: Context<ConsoleEnv>): Promise<Html> {
  const res = await c.var.ctl.get<{ rules: unknown[]; bugs: { enabled: boolean }[] }>('/faults');
  if (!res.ok) return html``;
  const rules = res.data.rules?.length ?? 0;
  const bugs = res.data.bugs?.filter((b) => b.enabled).length ?? 0;
  if (rules + bugs === 0) return html``;
  const parts = [
    rules ? `${rules} ${rules === 1 ? 'fault' : 'faults'} active` : '',
    bugs ? `${bugs} planted ${bugs === 1 ? 'bug' : 'bugs'} on` : '',
  ].filter(Boolean);
  return html`<div class="fault-banner" role="status" data-faults="${rules + bugs}">
    <strong>⚠ <a href="/console/faults">${parts.join(' · ')}</a></strong>
    <span>Matching API calls answer with injected failures until the faults are removed.</span>
  </div>`;
}

function flashes(c: Context<ConsoleEnv>): Html {
  const list = c.var.session.flashes.splice(0);
  return html`${list.map((f) => {
    const href = f.link ? safeHref(f.link.href) : null;
    return html`<div class="flash ${f.kind}" role="${f.kind === 'error' ? 'alert' : 'status'}">${f.text}${
      href && f.link ? html` <a href="${href}">${f.link.label}</a>` : ''
    }</div>`;
  })}`;
}

export async function renderPage(c: Context<ConsoleEnv>, opts: PageOptions): Promise<Response> {
  const [banner, clock, counts] = await Promise.all([
    faultsBanner(c),
    c.var.ctl.get<{ now: string }>('/clock'),
    c.var.ctl.get<{ counts: Record<string, number> }>('/reviews/counts'),
  ]);
  const now = clock.ok ? clock.data.now : null;
  const pending = counts.ok ? (counts.data.counts.pending_review ?? 0) : null;
  const label = (n: (typeof NAV)[number]) =>
    n.href === '/console/reviews' && pending !== null
      ? html`${n.label} <span class="count" data-field="pending-count">${pending}<span class="sr-only"> pending</span></span>`
      : n.label;
  const body = html`<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/console">Remote-jobs sandbox <span>console</span></a>
  <p class="now">Sandbox time <a href="/console/clock">${time(now)}</a></p>
  <form method="post" action="/console/logout" class="logout">${csrfField(c)}<button type="submit" class="link">Sign out</button></form>
</header>
${banner}
<div class="shell">
  <nav aria-label="Console sections" class="side">
    <ul>
      ${NAV.map((n) => html`<li><a href="${n.href}"${opts.active === n.href ? html` aria-current="page"` : ''}>${label(n)}</a></li>`)}
      <li class="sep"><a href="/docs">API reference ↗</a></li>
    </ul>
  </nav>
  <main id="main" tabindex="-1">
    ${flashes(c)}
    <h1>${opts.title}</h1>
    ${opts.lead ? html`<p class="lead">${opts.lead}</p>` : ''}
    ${opts.body}
  </main>
</div>`;
  return c.html(documentShell(opts.title, body).value, opts.status ?? 200);
}
