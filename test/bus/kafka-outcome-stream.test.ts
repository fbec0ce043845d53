import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Admin, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietKafkaRequestQueues } from '../../src/bus/kafka/idle-request-queue.ts';
import { compileConfig } from '../../src/config/load-config.ts';
import { systemClock } from '../../src/core/clock.ts';
import { silentLogger } from '../../src/core/logger.ts';
import type { Bus } from '../../src/core/ports/bus.ts';
import { OutcomeStream } from '../../src/push/outcomes/stream/outcome-stream.ts';
import { noopOutcomeStreamMetrics } from '../../src/push/outcomes/stream/outcome-stream-metrics.ts';
import { pushTopics } from '../../src/push/push-topics.ts';
import { openBus } from '../../src/runtime/open-bus.ts';
import { withDeadline } from '../support/with-deadline.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { deleteTopics } from '../support/test-backends.ts';
import { deliveryEvent } from '../push/outcomes/support/outcome-fixtures.ts';

const prefix = `t${randomBytes(5).toString('hex')}.`;
const topic = pushTopics(prefix).outcomes;
let admin: Admin;
let bus: Bus;

beforeAll(async () => {
  quietKafkaRequestQueues();
  admin = new Kafka({ clientId: 'herald-outcome-tests', brokers: [...serviceEndpoints.kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const config = compileConfig({ bus: { kind: 'kafka', brokers: [...serviceEndpoints.kafka.brokers], topicPrefix: prefix, topics: { pushRequests: 1, pushTasks: 1, pushOutcomes: 3 } } });
  bus = await openBus(config.bus, silentLogger());
});

afterAll(async () => {
  await bus?.close();
  await deleteTopics(admin, (await admin.listTopics()).filter((name) => name.startsWith(prefix)));
  await admin.disconnect();
});

/** Reads `count` messages of the topic from its start. */
async function consume(count: number): Promise<{ key: string; partition: number; value: Record<string, unknown> }[]> {
  const consumer: Consumer = new Kafka({ clientId: 'herald-outcome-reader', brokers: [...serviceEndpoints.kafka.brokers], logLevel: logLevel.NOTHING }).consumer({ groupId: `${prefix}reader` });
  const read: { key: string; partition: number; value: Record<string, unknown> }[] = [];
  const { promise, resolve } = Promise.withResolvers<void>();
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message, partition }) => {
        read.push({ key: message.key?.toString('utf8') ?? '', partition, value: JSON.parse(message.value?.toString('utf8') ?? 'null') as Record<string, unknown> });
        if (read.length >= count) resolve();
        return Promise.resolve();
      },
    });
    await withDeadline(promise, `${count} outcome messages`, { timeoutMs: 30_000, seen: () => String(read.length) });
  } finally {
    await consumer.disconnect();
  }
  return read;
}

/** The documented fields of a version 1 message (docs/outcome-stream.md) and what each holds. */
const schema: Record<string, (value: unknown) => boolean> = {
  id: (value) => typeof value === 'string' && value !== '',
  version: (value) => value === 1,
  appId: (value) => typeof value === 'string',
  pushId: (value) => typeof value === 'string',
  sliceKey: (value) => typeof value === 'string',
  installation: (value) => typeof value === 'string' || value === null,
  tokenSuffix: (value) => (typeof value === 'string' && value.length <= 8) || value === null,
  platform: (value) => value === 'ios' || value === 'android',
  gateway: (value) => ['apns', 'fcm', 'hms', 'honor', 'xiaomi', 'oppo', 'vivo', 'meizu'].includes(value as string),
  outcome: (value) => ['delivered', 'invalidToken', 'failed'].includes(value as string),
  reason: (value) => typeof value === 'string' || value === null,
  unregistered: (value) => typeof value === 'boolean',
  status: (value) => Number.isInteger(value) || value === null,
  messageId: (value) => typeof value === 'string' || value === null,
  attempts: (value) => Number.isInteger(value) && (value as number) >= 0,
  latencyMs: (value) => typeof value === 'number' && value >= 0,
  at: (value) => typeof value === 'string' && !Number.isNaN(Date.parse(value)) && new Date(value).toISOString() === value,
};

describe('the outcome stream on Kafka', () => {
  it('is a topic Herald creates with the configured partitions', async () => {
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    expect(metadata.topics[0]?.partitions).toHaveLength(3);
  });

  it('keeps one device\'s events on one partition in the order they were made, each a version 1 message of the documented fields', async () => {
    const stream = new OutcomeStream({ bus, topic, settings: { maxPendingEvents: 10_000, maxWaitMs: 1000, maxBatchEvents: 7 }, metrics: noopOutcomeStreamMetrics, logger: silentLogger(), clock: systemClock });
    const devices = ['inst-a', 'inst-b', 'inst-c', 'inst-d', 'inst-e', 'inst-f'];
    // Twelve slices of one push, each reaching every device once (as redeliveries and later pushes would): order is per device.
    for (let slice = 0; slice < 12; slice += 1) {
      const events = devices.map((installation, index) =>
        deliveryEvent(slice * 10 + index, { installation, sliceKey: `s0/${slice}`, outcome: slice % 3 === 0 ? 'delivered' : 'failed', reason: slice % 3 === 0 ? null : 'InternalServerError' }),
      );
      if (slice === 5) events.push(deliveryEvent(99, { installation: null, tokenSuffix: 'ffeeddcc', sliceKey: 's0/5', gateway: 'fcm', platform: 'android' }));
      await stream.record({ appId: 'shop', pushId: 'p1', sliceKey: `s0/${slice}`, endedAt: 0 }, events);
    }
    await stream.close(10_000);
    const read = await consume(73);
    expect(read).toHaveLength(73);
    for (const message of read) {
      expect(Object.keys(message.value).sort()).toEqual(Object.keys(schema).sort());
      for (const [field, holds] of Object.entries(schema)) expect(holds(message.value[field]), `${field}: ${JSON.stringify(message.value[field])}`).toBe(true);
      expect(message.key).toBe(message.value.installation ?? `~${message.value.tokenSuffix as string}`);
    }
    for (const device of devices) {
      const ofDevice = read.filter((message) => message.key === device);
      expect(new Set(ofDevice.map((message) => message.partition)).size).toBe(1);
      expect(ofDevice.map((message) => message.value.sliceKey)).toEqual(Array.from({ length: 12 }, (_, slice) => `s0/${slice}`));
    }
    expect(new Set(read.map((message) => message.value.id)).size).toBe(73);
  });
});
