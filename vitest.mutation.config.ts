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
  // The phone makers: each one's answers read into outcomes, and the framework's batches and how their answers are split.
  ['src/push/gateways/makers/hms/classify-hms-answer.ts', 'test/push/gateways/makers/classify-hms-answer.test.ts'],
  ['src/push/gateways/makers/honor/classify-honor-answer.ts', 'test/push/gateways/makers/classify-honor-answer.test.ts'],
  ['src/push/gateways/makers/xiaomi/classify-xiaomi-answer.ts', 'test/push/gateways/makers/classify-xiaomi-answer.test.ts'],
  ['src/push/gateways/makers/oppo/classify-oppo-answer.ts', 'test/push/gateways/makers/classify-oppo-answer.test.ts'],
  ['src/push/gateways/makers/vivo/classify-vivo-answer.ts', 'test/push/gateways/makers/classify-vivo-answer.test.ts'],
  ['src/push/gateways/makers/meizu/classify-meizu-answer.ts', 'test/push/gateways/makers/classify-meizu-answer.test.ts'],
  ['src/push/gateways/makers/maker-client.ts', 'test/push/gateways/makers/maker-client.test.ts'],
  // The delivery log: how a slice's entries are written and read back, and how a device's entries are found.
  ['src/push/delivery-log/entries-codec.ts', 'test/push/delivery-log/delivery-log-writer.test.ts', 'test/push/delivery-log/entry-line.test.ts'],
  ['src/push/delivery-log/entry-line.ts', 'test/push/delivery-log/entry-line.test.ts'],
  ['src/push/delivery-log/installation-filter.ts', 'test/push/delivery-log/delivery-log-writer.test.ts'],
  ['src/push/delivery-log/installation-ranges.ts', 'test/push/delivery-log/delivery-log-writer.test.ts'],
  // `flow_control`: the token bucket's arithmetic both coordination adapters share.
  ['src/coord/token-bucket.ts', 'test/coord/token-bucket.test.ts', 'test/coord/memory-coordination.test.ts'],
];

/** Only the tests of the mutated modules, so that a static mutant, which runs every test, costs seconds. */
export default defineConfig({
  test: {
    include: [...new Set(mutationModules.flatMap(([, ...tests]) => tests))],
    env: noServices,
    ...runSettings,
    // Instrumented code runs several times slower; a loaded machine slows it again.
    testTimeout: 120_000,
  },
});
