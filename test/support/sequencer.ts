// Orders test files longest first, so the two workers of `npm test` stay busy to the end instead of one
// of them starting a two-minute file when everything else is done. A file's expected duration is the one
// vitest cached from this checkout's last run when there is one, else the one measured for the release
// (test/support/durations.json, rewritten by `npx tsx scripts/test-durations.ts <vitest JSON report>`);
// a file known to neither runs first (a new file may be a long one), a file that failed last time too.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Measured milliseconds per test file, by path relative to the project root. */
export function releaseDurations(): Record<string, number> {
  return JSON.parse(readFileSync(path.join(ROOT, 'test', 'support', 'durations.json'), 'utf8'));
}

export default class LongestFirstSequencer extends BaseSequencer {
  private readonly measured = releaseDurations();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const expected = (spec: TestSpecification) => {
      const file = path.relative(this.ctx.config.root, spec.moduleId).split(path.sep).join('/');
      const cached = cache.getFileTestResults(`${spec.project.name}:${file}`);
      const duration = cached?.duration ?? this.measured[file];
      return { failed: cached?.failed === true, duration: duration ?? Number.POSITIVE_INFINITY };
    };
    const keyed = files.map((spec) => ({ spec, ...expected(spec) }));
    keyed.sort((a, b) => Number(b.failed) - Number(a.failed) || b.duration - a.duration);
    return keyed.map((k) => k.spec);
  }
}
