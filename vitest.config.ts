import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/sequencer.js';

const INCLUDE = ['src/**/*.test.ts', 'conformance/**/*.test.ts', 'test/**/*.test.ts'];

/**
 * Test files that run in a fresh process each (vitest's default isolation): they start child processes,
 * PostgreSQL, a browser or minutes of harness runs, so sharing a process would save them little and a leak
 * would reach the next file. Every other file (unit tests and in-process sandboxes over HTTP and MCP) runs
 * in a process shared with the files before it on the same worker, which spares each one the seconds of
 * importing the sandbox again; such a file must leave no global state behind (no mock, timer or
 * environment change it does not undo, every server it starts stopped).
 */
export const OWN_PROCESS = [
  'test/harness-*.test.ts',
  'test/store-postgres*.test.ts',
  'test/*-e2e.test.ts',
  'test/*-shared.test.ts',
  'test/shared-harness.test.ts',
  'test/bench-*.test.ts',
  'test/mutants-run.test.ts',
  'test/package.test.ts',
  'test/cli-banner.test.ts',
  'test/webhooks-listen*.test.ts',
  'test/clients-inspector.test.ts',
  'test/mcp-conformance.test.ts',
];

export default defineConfig({
  test: {
    setupFiles: ['test/support/fast-check-seed.ts'],
    // one throwaway PostgreSQL cluster for the run, started when a file first needs it
    globalSetup: ['test/support/postgres-global.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    // longest files first (test/support/sequencer.ts), so neither worker is left with a long file at the end
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: 'own-process', include: OWN_PROCESS } },
      {
        extends: true,
        test: {
          name: 'shared-process',
          include: INCLUDE,
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          isolate: false,
        },
      },
    ],
  },
});
