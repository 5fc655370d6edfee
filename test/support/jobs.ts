// Helpers for the jobs API tests: calls that are checked against contracts/jobs.openapi.yaml on every
// response, tenants per tier, and an independent model of the corpus read back over HTTP.

import { expect } from 'vitest';
import type { RunningSandbox } from '../../src/main.js';
import type { JobRecord } from '../../src/domain/jobs/index.js';
import { ADMIN_TOKEN, client, createTenant } from './sandbox.js';

export type Res = Awaited<ReturnType<ReturnType<typeof client>>>;

/** Asserts a response conforms to the contract of `operationId` (status, body and headers). */
export function expectConform(sb: RunningSandbox, operationId: string, res: Res): Res {
  const problems = sb.core.contracts.operation(operationId).checkResponse(res.status, res.json, res.headers);
  expect(problems, `${operationId} ${res.status} ${res.text.slice(0, 300)}`).toEqual([]);
  return res;
}

/** A jobs API caller whose every response is checked against the contract operation it names. */
export function jobsApi(sb: RunningSandbox, apiKey?: string) {
  const call = client(sb.baseUrl, apiKey);
  return async (operationId: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    expectConform(sb, operationId, await call(method, path, body, headers));
}

export async function tenantKey(sb: RunningSandbox, planTier: string, scopes?: string[]) {
  const t = await createTenant(sb.baseUrl, { planTier, ...(scopes ? { scopes } : {}) });
  return { ...t, api: jobsApi(sb, t.apiKey) };
}

export const admin = (sb: RunningSandbox) => client(sb.baseUrl, ADMIN_TOKEN);

/** Both credit balances of a tenant, read through the control API. */
export async function balances(sb: RunningSandbox, tenantId: string) {
  const t = await admin(sb)('GET', `/sandbox/v1/tenants/${tenantId}`);
  return { apply: t.json.applyCredits.remaining as number, screening: t.json.screeningCredits.remaining as number };
}

/** Moves the sandbox clock past the current per-minute window. */
export async function nextMinute(sb: RunningSandbox): Promise<void> {
  const res = await admin(sb)('POST', '/sandbox/v1/clock/advance', { seconds: 60 });
  expect(res.status).toBe(200);
}

/** Moves the sandbox clock to the start of a fresh per-minute window, so a test has a whole minute. */
export async function startOfWindow(sb: RunningSandbox): Promise<void> {
  const now = Date.parse((await admin(sb)('GET', '/sandbox/v1/clock')).json.now);
  const res = await admin(sb)('POST', '/sandbox/v1/clock/advance', {
    seconds: (60_000 - (now % 60_000)) / 1000 + 0.01,
  });
  expect(res.status).toBe(200);
}

/**
 * Every active job, read by paging through search over HTTP with a pro key, with its internal record.
 * It is the model the tests compare search, filters and market data against.
 */
export async function readCorpus(sb: RunningSandbox): Promise<JobRecord[]> {
  const { api } = await tenantKey(sb, 'pro');
  const out: JobRecord[] = [];
  // the pro tier reads 50 pages of 50: enough for the test corpus
  for (let offset = 0; ; offset += 50) {
    const res = await api('searchJobs', 'GET', `/api/v1/jobs?limit=50&offset=${offset}`);
    expect(res.status).toBe(200);
    for (const j of res.json.jobs) out.push(sb.core.jobs.record(j.id)!);
    if (!res.json.hasMore) return out;
  }
}

/** Diacritic- and case-insensitive form, computed independently of the sandbox's text module. */
export const folded = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** Result order of the specification's search: newest first, ties by id. */
export const byResultOrder = (a: { postedAt: string; id: string }, b: { postedAt: string; id: string }) =>
  b.postedAt.localeCompare(a.postedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export const message = (n: number) => 'I would love to join your team. '.repeat(Math.ceil(n / 32)).slice(0, n);

export const applyBody = (overrides: Record<string, unknown> = {}) => ({
  candidate_name: 'Dewi Lestari',
  candidate_email: 'dewi@example.com',
  message: message(120),
  ...overrides,
});
