import type { PartialStrykerOptions } from '@stryker-mutator/api/core';
import { mutationModules } from './vitest.mutation.config.ts';

/**
 * Mutation testing of the modules that decide what happened to a delivery:
 * `npm run test:mutation` (minutes; not in CI). The modules and the unit
 * tests meant to prove them are listed in vitest.mutation.config.ts, which
 * runs only those tests; each module should keep a score of at least 90. One
 * module alone: `npm run test:mutation -- --mutate src/query/match.ts`.
 *
 * Stryker's `testFiles` option is not used: with it, a static mutant (one
 * evaluated when its module loads, such as a table entry) is switched on
 * after the module has loaded, and survives whatever the tests say.
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: mutationModules.map(([source]) => source),
  coverageAnalysis: 'perTest',
  // The sandbox holds what the unit tests read, not the whole checkout.
  ignorePatterns: ['/*', '!/src', '!/test', '!/proto', '!/package.json', '!/tsconfig.json', '!/vitest.config.ts', '!/vitest.unit.config.ts', '!/vitest.mutation.config.ts'],
  tempDirName: 'mutation/.stryker-tmp',
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'mutation/reports/mutation.html' },
  jsonReporter: { fileName: 'mutation/reports/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
} satisfies PartialStrykerOptions;
