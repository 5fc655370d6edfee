// `npm run bench`: load, scaling, webhook and harness benchmarks; writes reports/bench.md and
// reports/bench.json. See `npm run bench -- --help`.

import { parseOptions } from './options.js';
import { allFigures } from './lib/report.js';
import { runBench } from './runner.js';
import { SECTIONS } from './sections/index.js';

async function main() {
  const opts = parseOptions(process.argv.slice(2));
  const { report, files } = await runBench(opts, SECTIONS, (m) => console.log(m));
  const figures = allFigures(report).filter((f) => f.target);
  const count = (v: string) => figures.filter((f) => f.verdict === v).length;
  console.log(
    `\n${count('PASS')} targets met, ${count('MISS')} missed, ${count('NOT MEASURED')} not measured; ${Math.round(report.wallTimeS)} s`,
  );
  for (const s of report.sections.filter((s) => s.notMeasured))
    console.log(`section ${s.id} not measured: ${s.notMeasured}`);
  console.log(`wrote ${files.md} and ${files.json}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
