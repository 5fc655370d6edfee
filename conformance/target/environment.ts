// Sets up what a run needs around the target: the control API (when the admin token opens it), the
// webhook receiver (when the target can reach it), the anonymous MCP URL (given, or found in the
// keyed server's discovery document), and from those the capabilities checks may rely on.

import type { Capabilities } from '../check.js';
import type { HarnessConfig } from '../config.js';
import { ControlClient } from './control.js';
import { jsonOf, send } from './http.js';
import { connectMcp } from './mcp.js';
import { createHttpTarget, type Target } from './target.js';
import { Tenants } from './tenants.js';
import { WebhookReceiver } from './webhook-receiver.js';

export interface Environment {
  target: Target;
  control: ControlClient | null;
  receiver: WebhookReceiver | null;
  tenants: Tenants;
  capabilities: Capabilities;
  notes: string[];
  close(): Promise<void>;
}

const isLoopback = (u: string) => ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(new URL(u).hostname);

/** Every absolute http(s) URL in a JSON document, with the object it sits in (depth-first). */
export function urlsIn(
  doc: unknown,
  holder: unknown = null,
  out: { url: string; holder: unknown }[] = [],
): { url: string; holder: unknown }[] {
  if (typeof doc === 'string') {
    if (/^https?:\/\/\S+$/.test(doc)) out.push({ url: doc.replace(/\/+$/, ''), holder });
  } else if (Array.isArray(doc)) for (const x of doc) urlsIn(x, holder, out);
  else if (doc && typeof doc === 'object') for (const v of Object.values(doc)) urlsIn(v, doc, out);
  return out;
}

/**
 * Finds the anonymous server in the keyed server's /.well-known/mcp.json without assuming its layout
 * (one server, an `anonymous` entry, a `servers` list…): every URL it names other than the keyed
 * endpoint and the site's own documents is a candidate, those whose entry speaks of "anonymous" or of
 * no authentication first; the first that completes an MCP initialize without a key is the one.
 */
async function discoverAnonMcp(cfg: HarnessConfig): Promise<string | null> {
  const ex = await send(
    { method: 'GET', url: `${cfg.bases.site}/.well-known/mcp.json`, headers: { accept: 'application/json' } },
    cfg.requestTimeoutMs,
  );
  const doc = jsonOf(ex);
  if (!doc || typeof doc !== 'object') return null;
  const keyed = cfg.mcpUrl.replace(/\/+$/, '');
  const seen = new Set<string>();
  const candidates = urlsIn(doc)
    .filter(
      ({ url }) =>
        url !== keyed && !/\.(json|txt|html?)$/i.test(new URL(url).pathname) && !seen.has(url) && seen.add(url),
    )
    .map((c) => ({ ...c, hint: /anonym|no[-_ ]?key|"none"|public/i.test(JSON.stringify(c.holder ?? '')) ? 0 : 1 }))
    .sort((a, b) => a.hint - b.hint);
  for (const { url } of candidates.slice(0, 6)) {
    const s = await connectMcp(url, undefined, cfg.requestTimeoutMs).catch(() => null);
    if (!s) continue;
    await s.close();
    return url;
  }
  return null;
}

export async function createEnvironment(cfg: HarnessConfig): Promise<Environment> {
  const notes: string[] = [];
  let anonMcpUrl = cfg.anonMcpUrl;
  if (!anonMcpUrl) {
    anonMcpUrl = await discoverAnonMcp(cfg).catch(() => null);
    if (anonMcpUrl) notes.push(`anonymous MCP server found in /.well-known/mcp.json: ${anonMcpUrl}`);
  }
  const target = createHttpTarget(cfg, anonMcpUrl);

  let control: ControlClient | null = null;
  if (cfg.adminToken) {
    const c = new ControlClient(target, cfg.adminToken);
    if (await c.available()) control = c;
    else notes.push('the admin token does not open the control API (/sandbox/v1): running with the profile keys only');
  }

  let receiver: WebhookReceiver | null = null;
  const fixedHooks = !control && cfg.webhookReceiverUrl !== null && Object.keys(cfg.webhookSecrets).length > 0;
  if (fixedHooks || (control && (cfg.webhookReceiverUrl || isLoopback(cfg.target)))) {
    receiver = new WebhookReceiver();
    const listen = cfg.webhookListen ?? { host: '127.0.0.1', port: 0 };
    await receiver.start(listen.host, listen.port, cfg.webhookReceiverUrl ?? undefined);
    notes.push(`webhook receiver listening at ${receiver.publicUrl}`);
  } else if (control) {
    notes.push('no webhook receiver: the target is not on loopback and the profile sets no webhookReceiverUrl');
  }

  const keys = cfg.keys;
  const capabilities: Capabilities = Object.freeze({
    freshTenants: control !== null,
    creditControl: control !== null,
    clock: cfg.capabilities.clock ?? control !== null,
    reviewDecisions: cfg.capabilities.reviewDecisions ?? control !== null,
    webhooks: receiver !== null && (control !== null || fixedHooks),
    noScopeKey: control !== null || Boolean(keys.noScreeningScope || keys.noJobsScope || keys.noMcpScope),
    anonMcp: anonMcpUrl !== null,
    negativeInput: !cfg.capabilities.validatingProxy,
    thisSandbox: control !== null,
  });
  if ((capabilities.clock || capabilities.reviewDecisions) && !control)
    notes.push('clock/reviewDecisions are declared but need an admin token for the control API');

  return {
    target,
    control,
    receiver,
    tenants: new Tenants(control, keys, receiver, cfg.webhookSecrets),
    capabilities: Object.freeze({
      ...capabilities,
      clock: capabilities.clock && control !== null,
      reviewDecisions: capabilities.reviewDecisions && control !== null,
    }),
    notes,
    close: async () => {
      await receiver?.close();
    },
  };
}
