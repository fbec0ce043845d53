import { defineConfig } from 'vitest/config';

/**
 * The outage phase: tests that stop and restart the local Cassandra and
 * Redis under a running API node. One file at a time, after the main run,
 * since nothing else may use the services while they are down.
 */
export default defineConfig({
  test: {
    include: ['test/outage/**/*.test.ts'],
    globalSetup: ['./test/support/services-global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
  },
});
