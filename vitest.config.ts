import { defineConfig } from 'vitest/config';

/** The suites that speak HTTP (or gRPC) to a whole Herald: run once on the embedded backends and once on Cassandra, Redis and Kafka. */
export const httpSuites = ['test/api/**/*.test.ts', 'test/push/api/**/*.test.ts', 'test/push/engine/**/*.test.ts', 'test/grpc/**/*.test.ts', 'test/sdk/**/*.test.ts', 'test/console/api/**/*.test.ts'];

/**
 * Every test except the outage phase, which takes shared services away
 * (vitest.outage.config.ts), and the replicated phase, which runs on a cluster
 * of its own (vitest.replicated.config.ts), in two projects: `embedded` runs everything on
 * the embedded default; `distributed` runs the HTTP suites again with
 * HERALD_TEST_BACKENDS=distributed (test/support/test-backends.ts).
 */
/** How the main phase runs its files, shared with `npm run test:unit` (vitest.unit.config.ts). */
export const runSettings = {
  reporters: ['default', './test/support/summary-reporter.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  fileParallelism: true,
  maxWorkers: 2,
};

export default defineConfig({
  test: {
    globalSetup: ['./test/support/services-global-setup.ts'],
    ...runSettings,
    projects: [
      { test: { name: 'embedded', include: ['test/**/*.test.ts'], exclude: ['test/outage/**', 'test/replicated/**', 'node_modules/**'] } },
      { test: { name: 'distributed', include: httpSuites, env: { HERALD_TEST_BACKENDS: 'distributed' } } },
    ],
  },
});
