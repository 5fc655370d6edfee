import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/sequencer.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'conformance/**/*.test.ts', 'test/**/*.test.ts'],
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
  },
});
