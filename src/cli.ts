// `npm start`: runs the sandbox on its embedded in-memory default and prints where everything is.
// Flags: --port N, --anon-port N, --host H, --seed N, --corpus N (e.g. 100000), --no-demo,
// --no-rate-limits, --self-check, --bug NAME (repeatable), --log, --store postgres://… (a shared sandbox).

import { startSandbox } from './main.js';
import type { ConfigInput } from './config.js';
import type { StoreInput } from './main.js';

function parseArgs(argv: string[]): ConfigInput & StoreInput {
  const out: ConfigInput & StoreInput = {};
  const bugs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const int = () => {
      const v = Number(val());
      if (!Number.isInteger(v) || v < 0) throw new Error(`${a} needs a non-negative integer`);
      return v;
    };
    switch (a) {
      case '--port': out.port = int(); break;
      case '--anon-port': out.anonMcpPort = int(); break;
      case '--host': out.host = val(); break;
      case '--seed': out.seed = int(); break;
      case '--corpus': out.corpusSize = int(); break;
      case '--no-demo': out.seedDemo = false; break;
      case '--no-rate-limits': out.noRateLimits = true; break;
      case '--self-check': out.selfCheck = true; break;
      case '--log': out.log = true; break;
      case '--bug': bugs.push(val()); break;
      case '--store': out.store = val(); break;
      case '--help':
      case '-h':
        console.log('usage: remote-jobs-sandbox (in a checkout: npm start --) [--port N] [--anon-port N] [--host H] [--seed N] [--corpus N] [--no-demo] [--no-rate-limits] [--self-check] [--bug NAME] [--log] [--store memory|postgres://user:password@host:port/db]');
        process.exit(0);
      default:
        throw new Error(`unknown option ${a} (try --help)`);
    }
  }
  if (bugs.length) out.bugs = bugs;
  return out;
}

async function main() {
  const sb = await startSandbox(parseArgs(process.argv.slice(2)), process.env);
  const { core } = sb;
  const lines = [
    `remote-jobs sandbox listening`,
    `  API base URL        ${sb.baseUrl}`,
    ...(sb.listenUrl !== sb.baseUrl ? [`  this instance       ${sb.listenUrl}`] : []),
    `  screening API       ${sb.baseUrl}/api/screening/v1`,
    `  jobs & market API   ${sb.baseUrl}/api/v1`,
    `  keyed MCP server    ${sb.baseUrl}/api/mcp`,
    `  anonymous MCP       ${sb.anonMcpUrl}`,
    `  OpenAPI             ${sb.baseUrl}/api/openapi.json`,
    `  API docs            ${sb.baseUrl}/docs`,
    `  console             ${sb.baseUrl}/console`,
    `  control API         ${sb.baseUrl}/sandbox/v1`,
    // an operator-supplied token is theirs already: printing it would only leak it into logs
    core.config.adminTokenGenerated
      ? `  admin token         ${sb.adminToken}   (generated; set SANDBOX_ADMIN_TOKEN to fix it)`
      : '  admin token         (as supplied in SANDBOX_ADMIN_TOKEN; not printed)',
    `  corpus              ${core.config.corpusSize} active jobs, seed ${core.config.seed}`,
    `  store               ${core.store.kind === 'memory' ? 'in memory (this process only)' : 'PostgreSQL, shared by every instance on the same database'}`,
  ];
  if (core.config.noRateLimits) lines.push('  rate limits         LIFTED (--no-rate-limits)');
  if (core.config.bugs.length) lines.push(`  planted bugs        ${core.config.bugs.join(', ')}  (for harness self-tests only)`);
  if (core.demo) {
    lines.push('  demo tenants (API key / webhook secret):');
    for (const t of core.demo.tenants) {
      lines.push(`    ${t.name.padEnd(16)} ${t.planTier.padEnd(8)} ${t.apiKey}  ${t.webhookSecret}${t.note ? `  (${t.note})` : ''}`);
    }
  }
  console.log(lines.join('\n'));
  const stop = async () => {
    await sb.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
