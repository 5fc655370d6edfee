// Command-line flags → raw options (validated here only for shape; meaning is resolved in config.ts).

import { parseArgs } from 'node:util';
import type { RawOptions } from './config.js';

export const USAGE = `Usage: npm run conformance -- --target <base URL> [options]

  --target <url>            base URL of the deployment (screening, jobs, keyed MCP, control API)
  --target-screening <url>  base URL for /api/screening/v1 only (e.g. a validating proxy)
  --target-jobs <url>       base URL for /api/v1 only
  --anon-mcp <url>          the anonymous MCP server's endpoint (default: from /.well-known/mcp.json)
  --profile <file>          JSON or YAML profile: keys per tier, admin token, capabilities, webhook receiver
  --admin-token <token>     shortcut for a profile with only a sandbox admin token
  --seed <n>                seed for every generator (reproduces a run)
  --runs <n>                generated cases per property (default 20)
  --only <id prefix>        only checks covering matching requirement ids or check ids (repeatable)
  --report-dir <dir>        where junit.xml, report.json and report.html go (default reports/conformance)
  --no-reports              write no report files
  --baseline <file>         known failures: a baseline file (YAML/JSON) or a previous report.json. Listed
                            failures are reported as known and exit 0; new ones exit 1; an entry past
                            its expires date fails again; entries that now pass are reported as fixed
  --write-baseline <file>   write this run's must failures as a baseline file (keeps the reasons and
                            expiry dates of the --baseline entries that still apply)
  --replay <path-or-id>     replay a saved counterexample file, or <check>/<property>@<path> with --seed
  --regressions-dir <dir>   saved counterexamples (default <report dir>/regressions/<target>; never
                            shared between targets)
  --no-save-regressions     do not save new counterexamples
  --allow-spend <slot>      spend the named key (a slot of the profile's keys) to its cap, to observe the
                            402 with upsell; repeatable. Irreversible on a real deployment: the key's
                            credits stay spent. Without it, only keys.screeningSpent shows a 402
  --no-rate-windows         never spend a fixed key's rate window (skips the 429 / Retry-After / recovery
                            checks on fixed keys; a run then needs no pause of up to a minute per tier)
  --concurrency <n>         checks in flight at once (default 8; checks sharing a fixed key or moving
                            the target clock still run one after another; 1 runs every check in turn)
  --inactive-job <id>       an existing job that is not active (profile: inactiveJobId)
  --validating-proxy        the target validates requests itself (skip negative-input checks)
  --timeout <ms>            per-request timeout (default 15000)
  --quiet                   no progress output
  --help`;

export function parseCli(argv: string[]): RawOptions & { help?: boolean } {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      target: { type: 'string' },
      'target-screening': { type: 'string' },
      'target-jobs': { type: 'string' },
      'anon-mcp': { type: 'string' },
      profile: { type: 'string' },
      'admin-token': { type: 'string' },
      seed: { type: 'string' },
      runs: { type: 'string' },
      only: { type: 'string', multiple: true },
      'report-dir': { type: 'string' },
      'no-reports': { type: 'boolean' },
      replay: { type: 'string' },
      baseline: { type: 'string' },
      'write-baseline': { type: 'string' },
      'regressions-dir': { type: 'string' },
      'no-save-regressions': { type: 'boolean' },
      'validating-proxy': { type: 'boolean' },
      'allow-spend': { type: 'string', multiple: true },
      'no-rate-windows': { type: 'boolean' },
      concurrency: { type: 'string' },
      'inactive-job': { type: 'string' },
      timeout: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const int = (v: string | undefined, flag: string) => {
    if (v === undefined) return undefined;
    if (!/^-?\d+$/.test(v)) throw new Error(`${flag} must be an integer, got '${v}'`);
    return Number(v);
  };
  return {
    help: values.help,
    target: values.target,
    targetScreening: values['target-screening'],
    targetJobs: values['target-jobs'],
    anonMcp: values['anon-mcp'],
    profile: values.profile,
    adminToken: values['admin-token'],
    seed: int(values.seed, '--seed'),
    runs: int(values.runs, '--runs'),
    only: values.only
      ?.flatMap((o) => o.split(','))
      .map((o) => o.trim())
      .filter(Boolean),
    reportDir: values['no-reports'] ? null : values['report-dir'],
    replay: values.replay,
    baseline: values.baseline,
    writeBaseline: values['write-baseline'],
    regressionsDir: values['regressions-dir'],
    saveRegressions: values['no-save-regressions'] ? false : undefined,
    capabilities: values['validating-proxy'] ? { validatingProxy: true } : undefined,
    requestTimeoutMs: int(values.timeout, '--timeout'),
    allowSpend: values['allow-spend']
      ?.flatMap((o) => o.split(','))
      .map((o) => o.trim())
      .filter(Boolean),
    rateWindows: values['no-rate-windows'] ? false : undefined,
    concurrency: int(values.concurrency, '--concurrency'),
    inactiveJobId: values['inactive-job'],
    progress: values.quiet ? false : undefined,
  };
}
