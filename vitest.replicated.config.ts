import { defineConfig } from 'vitest/config';

/**
 * The replicated phase: Herald on three Cassandra nodes and three Kafka
 * brokers (`npm run services -- cluster up`) losing nodes mid-push. One file
 * at a time, last in `npm test`: the tests kill and restart the cluster's
 * nodes, and the cluster shares two cores with whatever else runs.
 */
export default defineConfig({
  test: {
    include: ['test/replicated/**/*.test.ts'],
    globalSetup: ['./test/replicated/support/replicated-global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
  },
});
