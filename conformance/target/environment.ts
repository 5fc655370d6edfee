// Sets up what a run needs around the target: the control API (when the admin token opens it), the
// webhook receiver (when the target can reach it), the anonymous MCP URL (given, or found in the
// keyed server's discovery document), and from those the capabilities checks may rely on.

import type { Capabilities } from '../check.js';
import type { HarnessConfig } from '../config.js';
import { ControlClient } from './control.js';
import { jsonOf, send } from './http.js';
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

/** Looks for the anonymous server's endpoint in the keyed server's /.well-known/mcp.json. */
async function discoverAnonMcp(cfg: HarnessConfig): Promise<string | null> {
  const ex = await send({ method: 'GET', url: `${cfg.bases.site}/.well-known/mcp.json`, headers: { accept: 'application/json' } }, cfg.requestTimeoutMs);
  const anon = jsonOf(ex)?.anonymous;
  if (!anon || typeof anon !== 'object') return null;
  for (const k of ['endpoint', 'url', 'href']) {
    const v = anon[k] ?? anon.transport?.[k];
    if (typeof v === 'string' && /^https?:\/\//.test(v)) return v.replace(/\/+$/, '');
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
  if (control && (cfg.webhookReceiverUrl || isLoopback(cfg.target))) {
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
    webhooks: control !== null && receiver !== null,
    noScopeKey: control !== null || Boolean(keys.noScreeningScope || keys.noJobsScope || keys.noMcpScope),
    anonMcp: anonMcpUrl !== null,
    negativeInput: !cfg.capabilities.validatingProxy,
  });
  if ((capabilities.clock || capabilities.reviewDecisions) && !control) notes.push('clock/reviewDecisions are declared but need an admin token for the control API');

  return {
    target,
    control,
    receiver,
    tenants: new Tenants(control, keys, receiver),
    capabilities: Object.freeze({ ...capabilities, clock: capabilities.clock && control !== null, reviewDecisions: capabilities.reviewDecisions && control !== null }),
    notes,
    close: async () => {
      await receiver?.close();
    },
  };
}
