// Command-line options of `npm run bench`, resolved once into a frozen BenchOptions.

import { join } from 'node:path';
import { ROOT } from './lib/sandbox.js';
import type { BenchOptions } from './lib/section.js';

export const SECTION_IDS = [
  'http',
  'postgres',
  'scaling',
  'webhooks',
  'harness',
  'hostile',
  'mutants',
  'tenants',
] as const;
/**
 * What a run without --only measures: `postgres` repeats rows of `http`, and `tenants` seeds databases
 * of a million calls (about ten minutes), so they run only when named.
 */
const DEFAULT_SECTIONS = SECTION_IDS.filter((s) => s !== 'postgres' && s !== 'tenants');

export const USAGE = `usage: npm run bench -- [--quick] [--only ${SECTION_IDS.join(',')}] [--duration S] [--warmup S] [--repetitions N] [--connections N] [--out DIR]
  --quick        short runs and small sizes while developing (figures not comparable with the targets)
  --only LIST    run only these sections (comma-separated; \`postgres\` is the http rows on the
                 in-memory sandbox, PostgreSQL with one and two instances, and Prism, without the
                 bare server; it runs only when named)
  --duration S   seconds per timed load run (default 5; 1 with --quick)
  --warmup S     seconds of warm-up before each load run (default 1; 0.5 with --quick)
  --repetitions N  interleaved runs per load figure, the median reported (default 3; 1 with --quick)
  --connections N  concurrent connections (default 50)
  --out DIR      where bench.md and bench.json go (default reports/)
  tenants section (runs only when named; issue 24's shared sandbox on PostgreSQL):
  --history-tenants N     tenants of each restart database (default 1000; 50 with --quick)
  --history-calls LIST    recorded calls per tenant of each restart database, comma-separated, the
                          last the headline size (default 100,1000: 100,000 and 1,000,000 calls)
  --starts N              timed starts per database, the median reported (default 3; 2 with --quick)
  --memory-tenants N      tenants with history in the memory database (default 10000; 500 with --quick)
  --memory-calls N        recorded calls of each of them (default 20; 5 with --quick)
  --tenants-parts LIST    which parts run, comma-separated: load (capacity, burst and submit), memory,
                          restart, drop (a dropped tenant with a long history loaded; default all four)`;

export function defaultOptions(quick = false): BenchOptions {
  return quick
    ? {
        durationS: 1,
        warmupS: 0.5,
        repetitions: 1,
        connections: 50,
        quick: true,
        outDir: join(ROOT, 'reports'),
        sections: [...DEFAULT_SECTIONS],
        searchCorpora: [2_000, 20_000],
        auditRows: [1_000, 10_000, 100_000],
        memoryRows: 100_000,
        auditSamples: 50,
        webhookDecisions: 20,
        webhookBurst: 100,
        historyTenants: 50,
        historyCalls: [20, 100],
        restartStarts: 2,
        memoryTenants: 500,
        memoryCalls: 5,
        tenantsParts: ['load', 'memory', 'restart', 'drop'],
      }
    : {
        // 19 load figures, each the median of 3 interleaved runs: 5 s runs keep the whole bench near 10 minutes
        durationS: 5,
        warmupS: 1,
        repetitions: 3,
        connections: 50,
        quick: false,
        outDir: join(ROOT, 'reports'),
        sections: [...DEFAULT_SECTIONS],
        searchCorpora: [2_000, 20_000, 100_000],
        auditRows: [1_000, 100_000, 1_000_000],
        memoryRows: 1_000_000,
        auditSamples: 200,
        webhookDecisions: 200,
        webhookBurst: 1_000,
        historyTenants: 1_000,
        historyCalls: [100, 1_000],
        restartStarts: 3,
        memoryTenants: 10_000,
        memoryCalls: 20,
        tenantsParts: ['load', 'memory', 'restart', 'drop'],
      };
}

export function parseOptions(argv: string[]): Readonly<BenchOptions> {
  const opts = defaultOptions(argv.includes('--quick'));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const positive = () => {
      const n = Number(val());
      if (!Number.isFinite(n) || n <= 0) throw new Error(`${a} needs a positive number`);
      return n;
    };
    switch (a) {
      case '--quick':
        break;
      case '--duration':
        opts.durationS = positive();
        break;
      case '--warmup':
        opts.warmupS = Number(val());
        if (!(opts.warmupS >= 0)) throw new Error('--warmup needs a number ≥ 0');
        break;
      case '--repetitions':
        opts.repetitions = Math.round(positive());
        break;
      case '--connections':
        opts.connections = Math.round(positive());
        break;
      case '--history-tenants':
        opts.historyTenants = Math.round(positive());
        break;
      case '--history-calls': {
        const sizes = val()
          .split(',')
          .map((v) => Math.round(Number(v)));
        if (!sizes.length || sizes.some((n) => !(n >= 2))) throw new Error('--history-calls needs numbers ≥ 2');
        opts.historyCalls = sizes.sort((a, b) => a - b);
        break;
      }
      case '--starts':
        opts.restartStarts = Math.round(positive());
        break;
      case '--memory-tenants':
        opts.memoryTenants = Math.round(positive());
        break;
      case '--memory-calls':
        opts.memoryCalls = Math.max(2, Math.round(positive()));
        break;
      case '--tenants-parts': {
        const parts = val()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const known = ['load', 'memory', 'restart', 'drop'] as const;
        const unknown = parts.filter((p) => !(known as readonly string[]).includes(p));
        if (!parts.length || unknown.length)
          throw new Error(
            `--tenants-parts takes ${known.join(', ')}${unknown.length ? `, not ${unknown.join(', ')}` : ''}`,
          );
        opts.tenantsParts = parts as BenchOptions['tenantsParts'];
        break;
      }
      case '--out':
        opts.outDir = val();
        break;
      case '--only': {
        const ids = val()
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const unknown = ids.filter((s) => !(SECTION_IDS as readonly string[]).includes(s));
        if (unknown.length) throw new Error(`unknown section ${unknown.join(', ')}; known: ${SECTION_IDS.join(', ')}`);
        opts.sections = ids;
        break;
      }
      case '--help':
      case '-h':
        console.log(USAGE);
        return process.exit(0);
      default:
        throw new Error(`unknown option ${a}\n${USAGE}`);
    }
  }
  return Object.freeze(opts);
}
