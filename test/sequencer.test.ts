// The test sequencer's order: a file that failed last time first, then files of unknown duration, then the
// rest longest first, by this checkout's cached duration where vitest has one, else by the release table.

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import LongestFirstSequencer, { releaseDurations } from './support/sequencer.js';

const ROOT = path.resolve(import.meta.dirname, '..');

function order(files: string[], cached: Record<string, { duration: number; failed: boolean }>): Promise<string[]> {
  const ctx = {
    config: { root: ROOT },
    cache: { getFileTestResults: (key: string) => cached[key.replace(/^[^:]*:/, '')] },
  } as unknown as Vitest;
  const specs = files.map((f) => ({ moduleId: path.join(ROOT, f), project: { name: '' } }) as TestSpecification);
  return new LongestFirstSequencer(ctx)
    .sort(specs)
    .then((sorted) => sorted.map((s) => path.relative(ROOT, s.moduleId)));
}

describe('the longest-first test sequencer', () => {
  const table = releaseDurations();
  const [longest, second, third] = Object.keys(table);

  it('runs a fresh checkout longest first by the release table, files it does not know before all', async () => {
    expect(table[longest]).toBeGreaterThan(table[third]);
    expect(await order([third, 'test/brand-new.test.ts', longest, second], {})).toEqual([
      'test/brand-new.test.ts',
      longest,
      second,
      third,
    ]);
  });

  it("prefers this checkout's cached durations to the table, and runs last time's failures first", async () => {
    const cached = {
      [third]: { duration: table[longest] + 1, failed: false },
      [second]: { duration: 1, failed: true },
    };
    expect(await order([longest, second, third], cached)).toEqual([second, third, longest]);
  });
});
