// Starts a sandbox on free loopback ports for a test file and stops it afterwards.

import { afterAll, beforeAll } from 'vitest';
import type { ConfigInput } from '../../src/config.js';
import { startSandbox, type RunningSandbox } from '../../src/main.js';

export const ADMIN_TOKEN = 'sat_test_admin_token';

export function useSandbox(overrides: ConfigInput = {}): { get: () => RunningSandbox } {
  let sb: RunningSandbox | undefined;
  beforeAll(async () => {
    sb = await startSandbox({
      host: '127.0.0.1',
      port: 0,
      anonMcpPort: 0,
      adminToken: ADMIN_TOKEN,
      selfCheck: true,
      ...overrides,
    });
  });
  afterAll(async () => {
    await sb?.close();
  });
  return {
    get: () => {
      if (!sb) throw new Error('sandbox not started');
      return sb;
    },
  };
}

/** fetch with JSON helpers against a running sandbox. */
export function client(baseUrl: string, apiKey?: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  };
}

/** Creates a tenant through the control API and returns its key and ids. */
export async function createTenant(baseUrl: string, input: Record<string, unknown> = { planTier: 'pro' }) {
  const admin = client(baseUrl, ADMIN_TOKEN);
  const res = await admin('POST', '/sandbox/v1/tenants', input);
  if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${res.text}`);
  return res.json as { tenantId: string; apiKey: string; webhookSecret: string; planTier: string; scopes: string[] };
}
