// What a benchmark section is given and what it returns. The runner times each section, bounds it,
// and stops the children it started whatever happens.

import type { ChildGroup } from './children.js';
import type { Figure, Table } from './figures.js';

export interface BenchOptions {
  /** Seconds of each timed load run. */
  durationS: number;
  /** Seconds of warm-up before each timed load run (discarded). */
  warmupS: number;
  /** Interleaved repetitions of each load run; the median is reported (default 3). */
  repetitions?: number;
  connections: number;
  /** Reduced sizes and counts for development; figures are then not comparable with the targets. */
  quick: boolean;
  outDir: string;
  sections: string[];
  searchCorpora: number[];
  auditRows: number[];
  memoryRows: number;
  /** Audit pages fetched from random positions per ledger size. */
  auditSamples: number;
  /** Review decisions timed one by one for decision-to-delivery latency. */
  webhookDecisions: number;
  /** Deliveries released at once for the delivery-rate figure. */
  webhookBurst: number;
  /** `tenants`: tenants of each restart database (issue 24: 1,000). */
  historyTenants: number;
  /** `tenants`: recorded calls per tenant of each restart database, smallest first (the last is the headline size). */
  historyCalls: number[];
  /** `tenants`: timed starts per database, the median reported. */
  restartStarts: number;
  /** `tenants`: tenants with history in the memory database (issue 24: 10,000), and the calls of each. */
  memoryTenants: number;
  memoryCalls: number;
  /** `tenants`: which of its parts run (all four by default; fewer while developing). */
  tenantsParts: ('load' | 'memory' | 'restart' | 'drop')[];
}

export interface SectionContext {
  opts: BenchOptions;
  group: ChildGroup;
  log: (message: string) => void;
}

export interface SectionOutput {
  figures: Figure[];
  tables?: Table[];
  notes?: string[];
  data?: unknown;
}

export interface Section {
  id: string;
  title: string;
  /** Hard bound on the section's wall time, in seconds. */
  budgetS(opts: BenchOptions): number;
  run(ctx: SectionContext): Promise<SectionOutput>;
}
