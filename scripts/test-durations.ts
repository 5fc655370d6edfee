// Rewrites test/support/durations.json, the per-file durations the test sequencer orders a fresh
// checkout's run by, from a vitest JSON report:
//   npx vitest run --reporter=json --outputFile=/tmp/vitest.json && npx tsx scripts/test-durations.ts /tmp/vitest.json

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const report = process.argv[2];
if (!report) {
  console.error('usage: tsx scripts/test-durations.ts <vitest JSON report>');
  process.exit(2);
}
const root = process.cwd();
const { testResults } = JSON.parse(readFileSync(report, 'utf8')) as {
  testResults: { name: string; startTime: number; endTime: number }[];
};
// a report made in another checkout (a fresh clone) names files outside this one: run the script there
const outside = testResults.find((r) => path.relative(root, r.name).startsWith('..'));
if (outside) {
  console.error(`the report's files are not under ${root} (${outside.name}): run this in the checkout that made it`);
  process.exit(2);
}
const durations = Object.fromEntries(
  testResults
    .map((r) => [path.relative(root, r.name).split(path.sep).join('/'), Math.round(r.endTime - r.startTime)] as const)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
);
writeFileSync(path.join(root, 'test', 'support', 'durations.json'), JSON.stringify(durations, null, 2) + '\n');
console.log(`${Object.keys(durations).length} files written to test/support/durations.json`);
