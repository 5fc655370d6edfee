// The four endpoints of the load rows and how a sandbox is made ready for them: a tenant for the
// search, job and submit rows, and one whose first audit page is full. The paths are taken from the
// in-memory sandbox's answers; every sandbox on the same seed and corpus serves the same ones.

import { errorMessage } from './figures.js';
import { clientFor, expectStatus, pool, type Client } from './http.js';
import { createBenchTenant, submitBody, type SandboxChild } from './sandbox.js';

export const JOBS = 'contracts/jobs.openapi.yaml';
export const SCREENING = 'contracts/screening.openapi.yaml';
export const FULL_AUDIT_PAGE = 100;

export interface EndpointPrep {
  id: 'search' | 'job' | 'audit' | 'submit';
  label: string;
  method: 'GET' | 'POST';
  contract: string;
  /** Sandbox path with query string; null when the sandbox could not serve it. */
  path: string | null;
  /** The in-memory sandbox's key for this row. */
  key: string;
  body?: () => string;
  captured?: { status: number; body: string };
  unavailable?: string;
}

/** The keys of one sandbox: its load tenant (search, job, submit) and its audit tenant. */
export interface RowKeys {
  load: string;
  audit: string;
}

export function loadEndpoints(): EndpointPrep[] {
  return [
    { id: 'search', label: 'GET /api/v1/jobs (20-job search)', method: 'GET', contract: JOBS, path: null, key: '' },
    { id: 'job', label: 'GET /api/v1/jobs/{id}', method: 'GET', contract: JOBS, path: null, key: '' },
    {
      id: 'audit',
      label: 'GET /api/screening/v1/audit (page of 100)',
      method: 'GET',
      contract: SCREENING,
      path: null,
      key: '',
    },
    {
      id: 'submit',
      label: 'POST /api/screening/v1/screen (new key each)',
      method: 'POST',
      contract: SCREENING,
      path: null,
      key: '',
      body: () => submitBody('load'),
    },
  ];
}

export const keyOf = (ep: EndpointPrep, keys: RowKeys) => (ep.id === 'audit' ? keys.audit : keys.load);

/** The most frequent title word (4+ letters) on a page: a realistic, well-populated `q`. */
function commonWord(titles: string[]): string | null {
  const counts = new Map<string, number>();
  for (const t of titles)
    for (const w of t.toLowerCase().match(/[a-z]{4,}/g) ?? []) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

async function captureSearch(api: Client, ep: EndpointPrep): Promise<void> {
  const plain = await api('GET', '/api/v1/jobs');
  if (plain.status !== 200 || !Array.isArray(plain.json?.jobs))
    throw new Error(`GET /api/v1/jobs answered ${plain.status}: ${plain.text.slice(0, 200)}`);
  const word = commonWord(plain.json.jobs.map((j: { title?: string }) => String(j.title ?? '')));
  if (word) {
    const path = `/api/v1/jobs?q=${encodeURIComponent(word)}`;
    const res = await api('GET', path);
    if (res.status === 200 && res.json?.jobs?.length === 20) {
      ep.path = path;
      ep.captured = { status: 200, body: res.text };
      return;
    }
  }
  if (plain.json.jobs.length !== 20) throw new Error(`search returned ${plain.json.jobs.length} jobs, not 20`);
  ep.path = '/api/v1/jobs';
  ep.captured = { status: 200, body: plain.text };
}

/** Submits until the audit tenant's first page holds a full page of rows; returns the submits made. */
async function seedAudit(api: Client): Promise<number> {
  // each request writes several ledger rows as it moves through the pipeline; submit until a full page exists
  let submitted = 0;
  let rows = 0;
  const deadline = performance.now() + 60_000;
  while (submitted < 400 && performance.now() < deadline) {
    await pool(Array.from({ length: 40 }), 10, async () => {
      expectStatus(await api('POST', '/api/screening/v1/screen', submitBody('audit-seed')), 201, 'seed submit');
    });
    submitted += 40;
    const settle = performance.now() + 5_000;
    while (performance.now() < settle) {
      const page = await api('GET', `/api/screening/v1/audit?limit=${FULL_AUDIT_PAGE}`);
      rows = Array.isArray(page.json?.events) ? page.json.events.length : 0;
      if (rows >= FULL_AUDIT_PAGE) return submitted;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`after ${submitted} submits the first audit page holds ${rows} rows, not ${FULL_AUDIT_PAGE}`);
}

/** Two tenants with large balances on `sb`, the audit one seeded with a full first page. */
export async function prepareKeys(sb: SandboxChild, log: (m: string) => void): Promise<RowKeys> {
  const tenant = await createBenchTenant(sb, { name: 'bench load' });
  const auditTenant = await createBenchTenant(sb, { name: 'bench audit' });
  const submits = await seedAudit(clientFor(sb.baseUrl, auditTenant.apiKey));
  log(`  audit tenant seeded with ${submits} submits`);
  return { load: tenant.apiKey, audit: auditTenant.apiKey };
}

/** Makes the in-memory sandbox ready and captures each endpoint's path and answer (for the bare server). */
export async function prepareSandbox(
  log: (m: string) => void,
  endpoints: EndpointPrep[],
  sb: SandboxChild,
): Promise<void> {
  const [search, job, audit, submit] = endpoints;
  const attempt = async (ep: EndpointPrep, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      ep.unavailable = errorMessage(err);
      log(`  ${ep.label}: not available on the sandbox: ${ep.unavailable}`);
    }
  };
  let keys: RowKeys | null = null;
  try {
    keys = await prepareKeys(sb, log);
  } catch (err) {
    // the audit row alone needs the seeded tenant: the others still run on a fresh load tenant
    audit.unavailable = errorMessage(err);
    log(`  ${audit.label}: not available on the sandbox: ${audit.unavailable}`);
    keys = { load: (await createBenchTenant(sb, { name: 'bench load' })).apiKey, audit: '' };
  }
  for (const ep of endpoints) ep.key = keyOf(ep, keys);
  const api = clientFor(sb.baseUrl, keys.load);
  await attempt(search, () => captureSearch(api, search));
  await attempt(job, async () => {
    if (!search.captured) throw new Error('no search result to take a job id from');
    const id = JSON.parse(search.captured.body).jobs[0].id as string;
    const path = `/api/v1/jobs/${encodeURIComponent(id)}`;
    const res = expectStatus(await api('GET', path), 200, `GET ${path}`);
    job.path = path;
    job.captured = { status: 200, body: res.text };
  });
  if (!audit.unavailable) {
    await attempt(audit, async () => {
      const path = `/api/screening/v1/audit?limit=${FULL_AUDIT_PAGE}`;
      const res = expectStatus(await clientFor(sb.baseUrl, keys.audit)('GET', path), 200, `GET ${path}`);
      audit.path = path;
      audit.captured = { status: 200, body: res.text };
    });
  }
  await attempt(submit, async () => {
    const res = expectStatus(
      await api('POST', '/api/screening/v1/screen', submitBody('probe')),
      201,
      'POST /api/screening/v1/screen',
    );
    submit.path = '/api/screening/v1/screen';
    submit.captured = { status: 201, body: res.text };
  });
}
