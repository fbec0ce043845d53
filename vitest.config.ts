import { defineConfig } from 'vitest/config';

/** Every test except the outage phase, which takes shared services away (vitest.outage.config.ts). */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/outage/**', 'node_modules/**'],
    globalSetup: ['./test/support/services-global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
