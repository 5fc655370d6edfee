// `npm test`: the test files (vitest) and the static checks (`npm run typecheck`, `format:check`, `lint`) at
// once. Vitest keeps its normal priority and its live output; the three checks run side by side at the
// lowest priority, so on a machine of two cores they take only the time the test files leave idle (waits on
// PostgreSQL, receivers, rate windows and child processes) and never slow a test's real-time wait; what is
// left of them runs at full speed once vitest is done. A check's output is printed as soon as it fails, the
// summary at the end; the run fails when vitest or any check fails. Arguments go to vitest
// (`npm test -- test/foo.test.ts`, `npm test -- --reporter=json --outputFile=/tmp/vitest.json`).

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import path from 'node:path';

const CHECKS = ['typecheck', 'format:check', 'lint'];
const LOWEST_PRIORITY = 19;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const vitestPackage = createRequire(import.meta.url).resolve('vitest/package.json');
const vitestBin = path.join(
  path.dirname(vitestPackage),
  (JSON.parse(readFileSync(vitestPackage, 'utf8')) as { bin: { vitest: string } }).bin.vitest,
);

const exited = (child: ChildProcess) =>
  new Promise<number>((resolve) => {
    child.once('error', (err) => {
      console.error(err.message);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });

const started = performance.now();
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(0)} s`;

// vitest first, at this process's priority; the checks spawned after this process lowered its own inherit it
const vitest = spawn(process.execPath, [vitestBin, 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
setPriority(LOWEST_PRIORITY);

const checks = CHECKS.map(async (name) => {
  const t = performance.now();
  const child = spawn(npm, ['run', '--silent', name], {
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: process.platform === 'win32',
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const code = await exited(child);
  if (code !== 0) console.error(`\n✗ npm run ${name} failed (exit ${code}, ${seconds(t)}):\n${out.trimEnd()}\n`);
  return { name, code, took: seconds(t) };
});

const vitestCode = await exited(vitest);
const results = await Promise.all(checks);
console.log(
  `\nchecks beside vitest: ${results.map((r) => `${r.name} ${r.code === 0 ? 'passed' : 'FAILED'} (${r.took})`).join(', ')}; npm test ${seconds(started)}`,
);
process.exit(vitestCode !== 0 ? vitestCode : results.some((r) => r.code !== 0) ? 1 : 0);
