// `npm run mutants`: mutation testing of the alternate deployment's rule code with the conformance
// harness as the test. See `npm run mutants -- --help` and the README section "Mutation testing".

import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './model.js';
import { buildReport, writeReport } from './report.js';
import { listMutants, ruleFiles, runMutants, stopAll, type RunSettings } from './run.js';

export const DEFAULTS = { sample: 60, seed: 21, concurrency: 4, harnessSeed: 20261123, runs: 3 };

export const USAGE = `Usage: npm run mutants -- [options]

  --sample <n>        run a seeded random sample of n mutants (default ${DEFAULTS.sample}: under 30 minutes on 2 busy cores)
  --all               run every mutant (hours)
  --seed <n>          seed of the sample (default ${DEFAULTS.seed})
  --files <a,b>       only these rule files of test/alt-deployment (basename, with or without .ts)
  --keys <k1,k2>      only these mutants (keys as printed in the report)
  --include-reviewed  also draw the reviewed survivors of mutants/survivors.yaml (to see whether a check now kills them)
  --concurrency <n>   mutants run at once (default ${DEFAULTS.concurrency}; each run mostly waits on the deployment's timers)
  --timeout <s>       a mutant's run times out after this many seconds (default 3 × the clean run, at least 90)
  --no-fail-fast      run the whole harness against each mutant (default: stop at its first must failure)
  --rate-windows      spend the fixed keys' rate windows in every mutant's run (adds up to a minute per mutant)
  --no-rate-pass      without --rate-windows, a survivor is run once more through the checks that spend the
                      rate windows and days (about a minute per survivor); this leaves that pass out
  --harness-seed <n>  the harness's --seed (default ${DEFAULTS.harnessSeed}); --runs <n> its runs per property (default ${DEFAULTS.runs})
  --only <prefix>     pass --only to the harness (check or requirement id prefixes; repeatable): a faster, weaker test
  --control-every <n> run the unmutated deployment again after every n mutants (default 20; 0: never): a failing
                      control shows kills under its ids may be false
  --report-dir <dir>  where report.json and report.md go (default reports/mutants)
  --list              list the mutants (key, file:line, operator, change) and run nothing
  --help`;

function int(v: string | undefined, flag: string, min = 0): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`${flag} must be an integer ≥ ${min}, got '${v}'`);
  return Number(v);
}

export function parseMutantArgs(argv: string[]): (RunSettings & { reportDir: string; list: boolean }) | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      sample: { type: 'string' },
      all: { type: 'boolean' },
      seed: { type: 'string' },
      files: { type: 'string' },
      keys: { type: 'string' },
      'include-reviewed': { type: 'boolean' },
      concurrency: { type: 'string' },
      timeout: { type: 'string' },
      'no-fail-fast': { type: 'boolean' },
      'rate-windows': { type: 'boolean' },
      'no-rate-pass': { type: 'boolean' },
      'harness-seed': { type: 'string' },
      runs: { type: 'string' },
      'report-dir': { type: 'string' },
      'control-every': { type: 'string' },
      only: { type: 'string', multiple: true },
      list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (values.all && values.sample) throw new Error('--all and --sample exclude each other');
  const csv = (s: string | undefined) =>
    s
      ?.split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  const timeoutS = int(values.timeout, '--timeout', 1);
  return {
    sample: values.all ? 'all' : (int(values.sample, '--sample', 1) ?? DEFAULTS.sample),
    seed: int(values.seed, '--seed') ?? DEFAULTS.seed,
    files: csv(values.files),
    keys: csv(values.keys),
    includeReviewed: !!values['include-reviewed'],
    controlEvery: int(values['control-every'], '--control-every') ?? 20,
    ...(values['no-rate-pass'] ? { ratePass: false } : {}),
    concurrency: int(values.concurrency, '--concurrency', 1) ?? DEFAULTS.concurrency,
    ...(timeoutS ? { timeoutMs: timeoutS * 1000 } : {}),
    worker: {
      seed: int(values['harness-seed'], '--harness-seed') ?? DEFAULTS.harnessSeed,
      runs: int(values.runs, '--runs', 1) ?? DEFAULTS.runs,
      allowSpend: ['free'],
      rateWindows: !!values['rate-windows'],
      failFast: !values['no-fail-fast'],
      ...(values.only ? { only: values.only.flatMap((x) => csv(x) ?? []) } : {}),
    },
    reportDir: path.resolve(values['report-dir'] ?? path.join(ROOT, 'reports/mutants')),
    list: !!values.list,
  };
}

async function main() {
  const s = parseMutantArgs(process.argv.slice(2));
  if (s === 'help') return void console.log(USAGE);
  if (s.list) {
    const { mutants } = listMutants(ruleFiles(s.files));
    for (const m of mutants)
      console.log(
        `${m.key}\t${m.file}:${m.line}:${m.column}\t${m.operator}\t${JSON.stringify(m.original)} → ${JSON.stringify(m.replacement)}`,
      );
    return void console.log(`${mutants.length} mutants`);
  }
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.once(sig, () => {
      stopAll();
      process.exit(130);
    });
  const run = await runMutants({
    ...s,
    log: (l) => console.log(l),
    onResult: (partial) => writeReport(buildReport(partial), s.reportDir),
  });
  const report = buildReport(run);
  const files = writeReport(report, s.reportDir);
  const o = report.overall;
  console.log(
    `\nscore ${o.score === null ? '—' : `${(o.score * 100).toFixed(1)}%`}: ${o.killed} killed, ${o.timeout} timed out, ${o.survived} survived, ${o.error} errors; ${report.reviewed.length} reviewed survivors not run; ${report.durationS} s`,
  );
  console.log(`wrote ${path.relative(process.cwd(), files.md)} and ${path.relative(process.cwd(), files.json)}`);
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(ROOT, 'mutants/cli.ts');
if (isMain)
  main().then(
    () => process.exit(0),
    (e) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(2);
    },
  );
