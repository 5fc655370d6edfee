// The harness's keys-only profile for this deployment, as a plain object and as YAML.
import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { Slot, TenantStore } from './tenants.js';

export interface AltProfile {
  target: string;
  targets: { anonMcp: string };
  keys: Record<Slot, string>;
  webhookSecrets: Partial<Record<'free' | 'starter' | 'pro' | 'scale', string>>;
  webhookReceiverUrl?: string;
  inactiveJobId: string;
  waits: { pipelineMs: number; reviewMs: number; webhookMs: number };
}

export function buildProfile(a: {
  baseUrl: string;
  anonMcpUrl: string;
  tenants: TenantStore;
  webhookUrl?: string;
  inactiveJobId: string;
  waits: AltProfile['waits'];
}): AltProfile {
  const keys = Object.fromEntries([...a.tenants.bySlot].map(([slot, t]) => [slot, t.key])) as Record<Slot, string>;
  const webhookSecrets: AltProfile['webhookSecrets'] = {};
  for (const slot of ['free', 'starter', 'pro', 'scale'] as const) {
    const t = a.tenants.slot(slot);
    if (a.webhookUrl && t.webhookUrl === a.webhookUrl) webhookSecrets[slot] = t.webhookSecret;
  }
  return {
    target: a.baseUrl,
    targets: { anonMcp: a.anonMcpUrl },
    keys,
    webhookSecrets,
    ...(a.webhookUrl ? { webhookReceiverUrl: a.webhookUrl } : {}),
    inactiveJobId: a.inactiveJobId,
    waits: a.waits,
  };
}

export const profileYaml = (p: AltProfile) => stringify(p);

export async function writeProfileYaml(p: AltProfile, file: string): Promise<void> {
  await writeFile(file, profileYaml(p), 'utf8');
}
