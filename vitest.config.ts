import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Everything a run writes to the temporary directory goes in one of its own, removed at the end.
    globalSetup: ['test/support/run-temporary-directory.ts'],
    // Crash and power-loss suites spawn many child processes; give them room on a 2-core machine.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    // The JSON report feeds the plain closing line `npm test` prints (scripts/test-summary.ts).
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
