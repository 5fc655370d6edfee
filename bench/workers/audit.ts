// In-process audit scaling: builds a core, grows one tenant's ledger to `rows` rows through real
// submits (each request runs the pipeline and writes its rows) or, with `via: 'ledger'`, by appending
// the same rows straight to the ledger (to tell the ledger's share of memory from the requests'),
// measures resident memory after a full GC, then times audit pages from random positions reached
// through real cursors.

import { resolveConfig } from '../../src/config.js';
import { createCore } from '../../src/domain/core.js';
import type { Ledger } from '../../src/domain/screening/ledger.js';
import { summarize } from '../lib/stats.js';
import { submission } from '../lib/submission.js';
import { collectGarbage, runAsWorker, seeded, yieldToLoop } from './ipc.js';
import { openMemoryStore } from '../../src/store/memory.js';

export interface AuditArgs {
  rows: number;
  samples: number;
  pageSize: number;
  /** Bound on the seeding phase. */
  seedBudgetMs: number;
  via: 'submits' | 'ledger';
}

export interface AuditResult {
  rows: number;
  requests: number;
  tenantRows: number;
  seedMs: number;
  gc: boolean;
  rssBytes: number;
  heapUsedBytes: number;
  baselineRssBytes: number;
  walkPages: number;
  walkMs: number;
  samples: number;
  pageP50Ms: number;
  pageP99Ms: number;
  pageMeanMs: number;
}

const WARMUP_READS = 1000;

/** The four rows a submit writes before review, with payloads shaped like the pipeline's. */
function appendLifecycle(ledger: Ledger, tenantId: string, requestId: string, now: number): void {
  ledger.append(
    tenantId,
    requestId,
    null,
    'received',
    'system',
    { creditsCharged: 1, candidateKind: 'structured' },
    now,
  );
  ledger.append(tenantId, requestId, 'received', 'parsed', 'system', { source: 'structured' }, now);
  ledger.append(
    tenantId,
    requestId,
    'parsed',
    'scored',
    'system',
    { score: 72, confidence: 0.81, modelId: 'sandbox-scorer-1', promptVersion: 'v1' },
    now,
  );
  ledger.append(
    tenantId,
    requestId,
    'scored',
    'pending_review',
    'system',
    { expiresAt: new Date(now + 72 * 3600_000).toISOString() },
    now,
  );
}

runAsWorker<AuditArgs, AuditResult>(async ({ rows, samples, pageSize, seedBudgetMs, via }) => {
  const core = await createCore(resolveConfig({ adminToken: 'sat_bench', seedDemo: false }), openMemoryStore);
  collectGarbage();
  const baselineRssBytes = process.memoryUsage().rss;
  const { tenant } = core.tenants.create({ planTier: 'scale', name: 'bench audit' });
  tenant.screeningWallet.remaining = Number.MAX_SAFE_INTEGER;
  const { screening } = core;

  const t0 = performance.now();
  let n = 0;
  for (let have: number; (have = screening.ledger.rowsOf(tenant.id).length) < rows;) {
    if (performance.now() - t0 > seedBudgetMs)
      throw new Error(`seeding stopped at ${have} of ${rows} rows after ${seedBudgetMs} ms`);
    // a request writes four rows before review; size the batch so the ledger lands on `rows`
    const batch = Math.min(1000, Math.ceil((rows - have) / 4));
    if (via === 'ledger') {
      for (let i = 0; i < batch; i++, n++)
        appendLifecycle(screening.ledger, tenant.id, `scr_bench${n.toString(36)}`, core.clock.now());
      continue;
    }
    // a batch of submits, then let their pipelines (setImmediate) write the remaining rows
    for (let i = 0; i < batch; i++, n++) screening.submit(tenant, submission(`audit-${n}`, n));
    await yieldToLoop();
  }
  await yieldToLoop();
  const seedMs = performance.now() - t0;
  const tenantRows = screening.ledger.rowsOf(tenant.id).length;

  const gc = collectGarbage();
  const mem = process.memoryUsage();

  // walk the whole ledger once, keeping every cursor: each one is a position a client can resume from
  const w0 = performance.now();
  const cursors: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page = screening.audit(tenant.id, cursor === null ? { limit: pageSize } : { cursor, limit: pageSize });
    cursor = page.nextCursor;
    pages++;
    if (cursor !== null) cursors.push(cursor);
  } while (cursor !== null && pages < 1_000_000);
  const walkMs = performance.now() - w0;
  // full pages only: a cursor before the last page may lead to a short one
  const full = cursors.slice(0, Math.max(1, cursors.length - 1));
  const rand = seeded(rows);
  const pick = () => full[Math.floor(rand() * full.length)];

  // the same number of warm-up reads at every size, so a small ledger is not timed cold
  for (let i = 0; i < WARMUP_READS; i++) screening.audit(tenant.id, { cursor: pick(), limit: pageSize });
  const times = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const c = pick();
    const s = performance.now();
    const page = screening.audit(tenant.id, { cursor: c, limit: pageSize });
    times[i] = performance.now() - s;
    if (page.events.length !== pageSize)
      throw new Error(`a page from a random position held ${page.events.length} events, not ${pageSize}`);
  }
  const st = summarize(times);
  return {
    rows,
    requests: n,
    tenantRows,
    seedMs,
    gc,
    rssBytes: mem.rss,
    heapUsedBytes: mem.heapUsed,
    baselineRssBytes,
    walkPages: pages,
    walkMs,
    samples,
    pageP50Ms: st.p50,
    pageP99Ms: st.p99,
    pageMeanMs: st.mean,
  };
});
