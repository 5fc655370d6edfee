// `npm run conformance -- --target <url> …`: parses flags, runs the suite, exits 0 only when every
// `must` requirement that ran passed or failed only as the --baseline expects (policy items never change
// the exit code), 2 on a usage error or
// when the harness itself failed (a check threw, a report could not be written; reports are still written).

import { parseCli, USAGE } from './args.js';
import { runConformance } from './index.js';

async function main(): Promise<number> {
  let raw;
  try {
    raw = parseCli(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (raw.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    const result = await runConformance(raw);
    if (raw.reportDir !== null)
      process.stderr.write(`reports: ${raw.reportDir ?? 'reports/conformance'}/{junit.xml,report.json,report.html}\n`);
    if (raw.writeBaseline && !result.harnessErrors.some((e) => e.startsWith('reporter')))
      process.stderr.write(
        `baseline written: ${raw.writeBaseline} (${result.requirements.filter((r) => r.level === 'must' && r.status === 'fail').length} failing must requirement(s))\n`,
      );
    for (const e of result.harnessErrors) process.stderr.write(`conformance: harness error in ${e}\n`);
    if (result.harnessErrors.length) return 2;
    return result.ok ? 0 : 1;
  } catch (e) {
    process.stderr.write(`conformance: ${e instanceof Error ? (e.stack ?? e.message) : JSON.stringify(e)}\n`);
    return 2;
  }
}

void main().then((code) => process.exit(code));
