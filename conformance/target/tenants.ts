// Where checks get API keys: fresh tenants provisioned through the control API when the profile has an
// admin token (each check starts from a known state), or the fixed keys the profile lists otherwise
// (then checks that need a known or adjustable state skip with the reason).

import { randomBytes } from 'node:crypto';
import type { KeySlot } from '../config.js';
import { skip } from '../failure.js';
import type { ControlClient, PlanTier, TenantPatch } from './control.js';
import type { WebhookReceiver } from './webhook-receiver.js';

/** Scopes a sandbox key can carry; a key without one of them provokes 403. */
export const ALL_SCOPES = ['screening', 'jobs', 'apply', 'market', 'mcp', 'employer'] as const;

export interface TenantHandle {
  apiKey: string;
  tier: PlanTier;
  /** Known when the harness provisioned the tenant. */
  tenantId: string | null;
  /** True when provisioned for this check (its history is empty and its state can be adjusted). */
  fresh: boolean;
  webhookSecret: string | null;
  /** Receiver hook id when the tenant posts webhooks to the harness. */
  hook: string | null;
}

export interface FreshOptions {
  scopes?: readonly string[];
  webhook?: boolean;
}

export class Tenants {
  constructor(
    private readonly control: ControlClient | null,
    private readonly keys: Readonly<Partial<Record<KeySlot, string>>>,
    private readonly receiver: WebhookReceiver | null,
    private readonly webhookSecrets: Readonly<Partial<Record<KeySlot, string>>> = {},
  ) {}

  /** The fixed key of a profile slot (e.g. screeningSpent), or null. */
  slot(name: KeySlot): string | null {
    return this.keys[name] ?? null;
  }

  /** The webhook secrets of the fixed keys' tenants (for telling a delivery's signer). */
  get fixedSecrets(): string[] {
    return Object.values(this.webhookSecrets).filter((s): s is string => typeof s === 'string');
  }

  get canProvision(): boolean {
    return this.control !== null;
  }

  /** A tenant on `tier`: provisioned fresh when possible, else the profile's key for that tier. */
  async get(tier: PlanTier, opts: FreshOptions = {}): Promise<TenantHandle> {
    if (this.control) {
      let hook: { id: string; url: string } | null = null;
      let secret: string | undefined;
      if (opts.webhook) {
        if (!this.receiver)
          throw skip('no webhook receiver reachable from the target (set webhookReceiverUrl in the profile)');
        hook = this.receiver.newHook();
        secret = `whsec_${randomBytes(18).toString('base64url')}`;
      }
      const t = await this.control.createTenant({
        planTier: tier,
        ...(opts.scopes ? { scopes: [...opts.scopes] } : {}),
        ...(hook ? { webhookUrl: hook.url, webhookSecret: secret } : {}),
      });
      return {
        apiKey: t.apiKey,
        tier,
        tenantId: t.tenantId,
        fresh: true,
        webhookSecret: hook ? (t.webhookSecret ?? secret ?? null) : t.webhookSecret,
        hook: hook?.id ?? null,
      };
    }
    if (opts.scopes) throw skip('needs an admin token to provision a key with chosen scopes');
    const key = this.keys[tier];
    if (!key) throw skip(`the profile has no ${tier} key and no admin token to provision one`);
    const secret = this.webhookSecrets[tier] ?? null;
    if (opts.webhook && (!this.receiver || !secret)) {
      throw skip(
        `webhook checks on fixed keys need webhookReceiverUrl (the URL the operator set as the tenant's webhookUrl) and webhookSecrets.${tier} in the profile`,
      );
    }
    return { apiKey: key, tier, tenantId: null, fresh: false, webhookSecret: secret, hook: null };
  }

  /** A fresh tenant (skips when the target cannot provision one). */
  async fresh(tier: PlanTier, opts: FreshOptions = {}): Promise<TenantHandle> {
    if (!this.control) throw skip('needs fresh tenants (an admin token for the control API)');
    return this.get(tier, opts);
  }

  /** A valid key whose tenant lacks `scope`. */
  async withoutScope(scope: 'screening' | 'jobs' | 'mcp'): Promise<TenantHandle> {
    if (this.control) return this.get('pro', { scopes: ALL_SCOPES.filter((s) => s !== scope) });
    const slot = ({ screening: 'noScreeningScope', jobs: 'noJobsScope', mcp: 'noMcpScope' } as const)[scope];
    const key = this.keys[slot];
    if (!key) throw skip(`the profile has no key without the ${scope} scope (keys.${slot}) and no admin token`);
    return { apiKey: key, tier: 'pro', tenantId: null, fresh: false, webhookSecret: null, hook: null };
  }

  /** Sets balances through the control API (skips when the target has none). */
  async patch(t: TenantHandle, patch: TenantPatch): Promise<void> {
    if (!this.control || !t.tenantId) throw skip('needs the control API to set credit balances');
    await this.control.patchTenant(t.tenantId, patch);
  }
}

const SCOPE_SLOTS = { screening: 'noScreeningScope', jobs: 'noJobsScope', mcp: 'noMcpScope' } as const;

/**
 * The same tenants, telling `touched` each fixed profile key slot handed out (not fresh tenants): how
 * the runner checks that a check uses only the keys it declares (check-resources.ts).
 */
export function watchedTenants(base: Tenants, touched: (slot: KeySlot) => void): Tenants {
  const w = Object.create(base) as Tenants;
  w.slot = (name) => {
    const key = base.slot(name);
    if (key) touched(name);
    return key;
  };
  w.get = async (tier, opts) => {
    const t = await base.get(tier, opts);
    if (!t.fresh) touched(tier);
    return t;
  };
  w.withoutScope = async (scope) => {
    const t = await base.withoutScope(scope);
    if (!t.fresh) touched(SCOPE_SLOTS[scope]);
    return t;
  };
  return w;
}
