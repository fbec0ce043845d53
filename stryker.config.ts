import type { PartialStrykerOptions } from '@stryker-mutator/api/core';

/**
 * Mutation testing of the modules that decide what happened to a delivery:
 * `npm run test:mutation` (minutes; not in CI). Each module is listed with
 * the unit tests meant to prove it; Stryker runs every mutant against the
 * tests that reach it (vitest.unit.config.ts), and each module should keep a
 * score of at least 90. A module joins with one line here. One module alone:
 * `npm run test:mutation -- --mutate src/query/match.ts`.
 */
const modules: [source: string, ...tests: string[]][] = [
  ['src/push/gateways/classify-apns-response.ts', 'test/push/gateways/classify-apns-response.test.ts'],
  ['src/push/gateways/classify-fcm-response.ts', 'test/push/gateways/classify-fcm-response.test.ts'],
  ['src/push/gateways/delivery-reasons.ts', 'test/push/gateways/delivery-reasons.test.ts'],
  ['src/push/sender/delivery-window.ts', 'test/push/sender/delivery-window.test.ts'],
  ['src/push/sender/window-sizer.ts', 'test/push/sender/window-sizer.test.ts'],
  ['src/query/match.ts', 'test/query/match.test.ts'],
];

export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.unit.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: modules.map(([source]) => source),
  testFiles: [...new Set(modules.flatMap(([, ...tests]) => tests))],
  coverageAnalysis: 'perTest',
  // The sandbox holds what the unit tests read, not the whole checkout.
  ignorePatterns: ['/*', '!/src', '!/test', '!/proto', '!/package.json', '!/tsconfig.json', '!/vitest.config.ts', '!/vitest.unit.config.ts'],
  tempDirName: 'mutation/.stryker-tmp',
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'mutation/reports/mutation.html' },
  jsonReporter: { fileName: 'mutation/reports/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
} satisfies PartialStrykerOptions;
