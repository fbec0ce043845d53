import { defineConfig } from 'vitest/config';
import { runSettings } from './vitest.config.ts';
import { noServices } from './vitest.unit.config.ts';

/**
 * The modules `npm run test:mutation` mutates (stryker.config.ts), each with
 * the unit tests meant to prove it. A module joins with one line.
 */
export const mutationModules: [source: string, ...tests: string[]][] = [
  ['src/push/gateways/classify-apns-response.ts', 'test/push/gateways/classify-apns-response.test.ts'],
  ['src/push/gateways/classify-fcm-response.ts', 'test/push/gateways/classify-fcm-response.test.ts'],
  ['src/push/gateways/delivery-reasons.ts', 'test/push/gateways/delivery-reasons.test.ts'],
  ['src/push/sender/delivery-window.ts', 'test/push/sender/delivery-window.test.ts'],
  ['src/push/sender/window-sizer.ts', 'test/push/sender/window-sizer.test.ts'],
  ['src/query/match.ts', 'test/query/match.test.ts'],
  ['src/http2/hpack-decoder.ts', 'test/http2/hpack.test.ts', 'test/http2/connection-bounds.test.ts'],
  // What a hostile gateway meets: the bounds of a connection, and the checks of an answer.
  ['src/http2/frame-limits.ts', 'test/http2/connection-bounds.test.ts', 'test/http2/floods.test.ts'],
  ['src/http2/control-frame-queue.ts', 'test/http2/connection-bounds.test.ts', 'test/http2/floods.test.ts'],
  ['src/http2/header-block.ts', 'test/http2/header-block.test.ts', 'test/http2/connection-bounds.test.ts', 'test/http2/floods.test.ts'],
  ['src/http2/answer-headers.ts', 'test/http2/connection-bounds.test.ts', 'test/http2/malformed-answers.test.ts'],
  ['src/http2/field-rules.ts', 'test/http2/connection-bounds.test.ts', 'test/http2/malformed-answers.test.ts'],
];

/** Only the tests of the mutated modules, so that a static mutant, which runs every test, costs seconds. */
export default defineConfig({
  test: {
    include: [...new Set(mutationModules.flatMap(([, ...tests]) => tests))],
    env: noServices,
    ...runSettings,
  },
});
