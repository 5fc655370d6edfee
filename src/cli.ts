// `npm start`: runs the sandbox on its embedded in-memory default and prints where everything is.
// The flags are the OPTIONS of config.ts (`npm start -- --help` lists them).

import { startSandbox } from './main.js';
import { parseFlags, usage } from './config.js';

function parseArgs(argv: string[]) {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage());
    process.exit(0);
  }
  return parseFlags(argv);
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
    `  account dashboard   ${core.config.appUrl}   (integrators sign up, make keys, change plan)`,
    `  control API         ${sb.baseUrl}/sandbox/v1`,
    // an operator-supplied token is theirs already: printing it would only leak it into logs
    core.config.adminTokenGenerated
      ? `  admin token         ${sb.adminToken}   (generated; set SANDBOX_ADMIN_TOKEN to fix it)`
      : '  admin token         (as supplied in SANDBOX_ADMIN_TOKEN; not printed)',
    `  corpus              ${core.config.corpusSize} active jobs, seed ${core.config.seed}`,
    `  store               ${core.store.kind === 'memory' ? 'in memory (this process only)' : 'PostgreSQL, shared by every instance on the same database'}`,
  ];
  if (core.config.noRateLimits) lines.push('  rate limits         LIFTED (--no-rate-limits)');
  if (core.config.bugs.length)
    lines.push(`  planted bugs        ${core.config.bugs.join(', ')}  (for harness self-tests only)`);
  if (core.demo) {
    lines.push('  demo tenants (API key / webhook secret):');
    for (const t of core.demo.tenants) {
      lines.push(
        `    ${t.name.padEnd(16)} ${t.planTier.padEnd(8)} ${t.apiKey}  ${t.webhookSecret}${t.note ? `  (${t.note})` : ''}`,
      );
    }
  }
  console.log(lines.join('\n'));
  // one clean stop, however many signals arrive (a wrapper that forwards a signal to its process group sends two)
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= sb.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`the sandbox did not stop cleanly: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    ));
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
