// In-process scaling, each size in a fresh child process: search latency over growing corpora (the
// jobs benchmark in bench/search.ts), audit page latency over growing ledgers, and resident memory
// with a million ledger rows.

import {
  atMost,
  below,
  errorMessage,
  figure,
  fmt,
  notMeasured,
  short,
  type Figure,
  type Table,
} from '../lib/figures.js';
import type { Section, SectionContext } from '../lib/section.js';
import { runWorker } from '../lib/worker.js';
import type { AuditArgs, AuditResult } from '../workers/audit.js';
import type { SearchArgs, SearchResult } from '../workers/search.js';

const MB = 1024 * 1024;
const PAGE = 100;

const seedBudgetMs = (rows: number) => Math.max(30_000, (rows / 1_000_000) * 240_000);

async function searchScaling(
  ctx: SectionContext,
  figures: Figure[],
  tables: Table[],
  data: Record<string, unknown>,
): Promise<void> {
  const sizes = ctx.opts.searchCorpora;
  const largest = Math.max(...sizes);
  const target = below(2, '< 2 ms');
  const n = (v: number) => v.toLocaleString('en-US');
  const rows: Table['rows'] = [];
  const results: SearchResult[] = [];
  for (const corpus of sizes) {
    ctx.log(`  search over ${n(corpus)} jobs`);
    const id = `scaling.search.${corpus}`;
    try {
      const r = await runWorker<SearchResult>(
        ctx.group,
        `search worker (${corpus})`,
        'search.ts',
        { corpus } satisfies SearchArgs,
        { timeoutMs: 180_000 },
      );
      results.push(r);
      rows.push([
        n(corpus),
        r.queries,
        fmt(r.medianMs, 3),
        fmt(r.p95Ms, 3),
        fmt(r.p99Ms, 3),
        fmt(r.maxMs, 1),
        n(r.buildMs),
        '',
      ]);
      figures.push(
        figure(
          `${id}.median`,
          `Search median per query, ${n(corpus)} jobs`,
          r.medianMs,
          'ms',
          corpus === largest ? target : undefined,
        ),
      );
      figures.push(figure(`${id}.p99`, `Search p99 per query, ${n(corpus)} jobs`, r.p99Ms, 'ms'));
    } catch (err) {
      rows.push([n(corpus), '—', '—', '—', '—', '—', '—', short(errorMessage(err))]);
      figures.push(
        notMeasured(
          `${id}.median`,
          `Search median per query, ${n(corpus)} jobs`,
          'ms',
          short(errorMessage(err)),
          corpus === largest ? target : undefined,
        ),
      );
    }
  }
  tables.push({
    title: 'Search latency per query over a fixed, seeded mixed query set (in-process)',
    columns: ['Corpus (jobs)', 'Queries', 'Median ms', 'p95 ms', 'p99 ms', 'Max ms', 'Build ms', 'Note'],
    rows,
  });
  if (results.length) {
    const kinds = Object.keys(results[0].byKind);
    tables.push({
      title: 'Search median by query kind, ms',
      columns: ['Kind', ...results.map((r) => `${n(r.corpus)} jobs`)],
      rows: kinds.map((k) => [k, ...results.map((r) => fmt(r.byKind[k]?.medianMs, 3))]),
    });
  }
  data.search = results;
}

async function auditScaling(
  ctx: SectionContext,
  figures: Figure[],
  tables: Table[],
  data: Record<string, unknown>,
): Promise<void> {
  const { auditRows, auditSamples, memoryRows } = ctx.opts;
  const results = new Map<number, AuditResult | Error>();
  const run = async (rows: number, via: AuditArgs['via']) => {
    ctx.log(`  audit and memory with ${rows.toLocaleString('en-US')} ledger rows (${via})`);
    const args: AuditArgs = { rows, samples: auditSamples, pageSize: PAGE, seedBudgetMs: seedBudgetMs(rows), via };
    return runWorker<AuditResult>(ctx.group, `audit worker (${rows}, ${via})`, 'audit.ts', args, {
      timeoutMs: seedBudgetMs(rows) + 120_000,
      exposeGc: true,
    });
  };
  const sizes = [...new Set([...auditRows, memoryRows])].sort((a, b) => a - b);
  for (const rows of sizes) {
    try {
      results.set(rows, await run(rows, 'submits'));
    } catch (err) {
      results.set(rows, err instanceof Error ? err : new Error(String(err)));
    }
  }
  let ledgerOnly: AuditResult | Error;
  try {
    ledgerOnly = await run(memoryRows, 'ledger');
  } catch (err) {
    ledgerOnly = err instanceof Error ? err : new Error(String(err));
  }

  const table: Table = {
    title: `Audit pages of ${PAGE} from random cursor positions, and memory (one tenant; rows written by real submits)`,
    columns: [
      'Ledger rows',
      'Requests',
      'Seed s',
      'Page p50 ms',
      'Page p99 ms',
      'Pages sampled',
      'RSS MB',
      'Heap used MB',
      'Note',
    ],
    rows: [],
  };
  for (const rows of sizes) {
    const r = results.get(rows)!;
    if (r instanceof Error)
      table.rows.push([rows.toLocaleString('en-US'), '—', '—', '—', '—', '—', '—', '—', short(r.message)]);
    else
      table.rows.push([
        r.tenantRows.toLocaleString('en-US'),
        r.requests.toLocaleString('en-US'),
        fmt(r.seedMs / 1000, 1),
        fmt(r.pageP50Ms, 3),
        fmt(r.pageP99Ms, 3),
        r.samples,
        fmt(r.rssBytes / MB, 0),
        fmt(r.heapUsedBytes / MB, 0),
        r.gc ? '' : 'no --expose-gc: measured without a forced GC',
      ]);
  }
  if (ledgerOnly instanceof Error)
    table.rows.push([
      `${memoryRows.toLocaleString('en-US')} (ledger only)`,
      '—',
      '—',
      '—',
      '—',
      '—',
      '—',
      '—',
      short(ledgerOnly.message),
    ]);
  else
    table.rows.push([
      `${ledgerOnly.tenantRows.toLocaleString('en-US')} (ledger only)`,
      '—',
      fmt(ledgerOnly.seedMs / 1000, 1),
      fmt(ledgerOnly.pageP50Ms, 3),
      fmt(ledgerOnly.pageP99Ms, 3),
      ledgerOnly.samples,
      fmt(ledgerOnly.rssBytes / MB, 0),
      fmt(ledgerOnly.heapUsedBytes / MB, 0),
      'rows appended straight to the ledger, no requests',
    ]);
  tables.push(table);

  for (const rows of auditRows) {
    const r = results.get(rows)!;
    const label = `Audit page p50, ${rows.toLocaleString('en-US')} rows`;
    figures.push(
      r instanceof Error
        ? notMeasured(`scaling.audit.${rows}.p50`, label, 'ms', short(r.message))
        : figure(`scaling.audit.${rows}.p50`, label, r.pageP50Ms, 'ms'),
    );
  }
  const small = results.get(Math.min(...auditRows));
  const large = results.get(Math.max(...auditRows));
  const ratioLabel = `Audit page p50 at ${Math.max(...auditRows).toLocaleString('en-US')} rows / at ${Math.min(...auditRows).toLocaleString('en-US')} rows`;
  const ratioTarget = atMost(2, '≤ 2×');
  if (small instanceof Error || large instanceof Error || !small || !large) {
    figures.push(
      notMeasured(
        'scaling.audit.ratio',
        ratioLabel,
        '×',
        short(((small instanceof Error ? small : large) as Error | undefined)?.message ?? 'not run'),
        ratioTarget,
      ),
    );
  } else {
    figures.push(
      figure(
        'scaling.audit.ratio',
        ratioLabel,
        large.pageP50Ms / small.pageP50Ms,
        '×',
        ratioTarget,
        `${fmt(large.pageP50Ms, 3)} ms vs ${fmt(small.pageP50Ms, 3)} ms`,
      ),
    );
  }

  const mem = results.get(memoryRows)!;
  const memLabel = `Resident memory with ${memoryRows.toLocaleString('en-US')} ledger rows (after GC)`;
  const memTarget = below(400, '< 400 MB');
  if (mem instanceof Error)
    figures.push(notMeasured('scaling.memory.rss', memLabel, 'MB', short(mem.message), memTarget));
  else {
    figures.push(
      figure(
        'scaling.memory.rss',
        memLabel,
        mem.rssBytes / MB,
        'MB',
        memTarget,
        `${mem.requests.toLocaleString('en-US')} screening requests; an idle sandbox core is ${fmt(mem.baselineRssBytes / MB, 0)} MB`,
      ),
    );
  }
  if (!(ledgerOnly instanceof Error)) {
    figures.push(
      figure(
        'scaling.memory.ledgerOnly',
        `Resident memory with ${memoryRows.toLocaleString('en-US')} rows appended to the ledger alone`,
        ledgerOnly.rssBytes / MB,
        'MB',
        undefined,
        "splits the ledger's share from the request store's",
      ),
    );
  }
  data.audit = {
    bySize: Object.fromEntries([...results].map(([k, v]) => [k, v instanceof Error ? { error: v.message } : v])),
    ledgerOnly: ledgerOnly instanceof Error ? { error: ledgerOnly.message } : ledgerOnly,
  };
}

export const scalingSection: Section = {
  id: 'scaling',
  title: 'Scaling (in-process)',
  budgetS: (o) =>
    o.searchCorpora.length * 180 +
    [...o.auditRows, o.memoryRows, o.memoryRows].reduce((s, r) => s + seedBudgetMs(r) / 1000 + 120, 0),
  async run(ctx) {
    const figures: Figure[] = [];
    const tables: Table[] = [];
    const data: Record<string, unknown> = {};
    await searchScaling(ctx, figures, tables, data);
    await auditScaling(ctx, figures, tables, data);
    return {
      figures,
      tables,
      notes: [
        "Search: `benchSearch` from bench/search.ts (the jobs domain's search, 300 untimed warm-up queries, then 3,000 timed queries of ten kinds over free, starter and pro tiers), the corpus generated at each size.",
        "Every size runs in its own child process (`node --import tsx --expose-gc`), so one measurement's heap never weighs on the next.",
        `Audit: one tenant's ledger grown by real submits (four rows per request: received, parsed, scored, pending_review); the whole ledger is walked once with limit ${PAGE} to collect real cursors, then ${ctx.opts.auditSamples} pages are read from cursors picked at random (seeded) after 1,000 warm-up reads. Times are the domain call alone (no HTTP, no JSON).`,
        'Memory is process.memoryUsage().rss after two forced full GCs, in the same child, with every request, ledger row, pending expiry timer and the 2,000-job corpus resident.',
      ],
      data,
    };
  },
};
