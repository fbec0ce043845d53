import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { quietKafkaRequestQueues } from '../../src/bus/kafka/idle-request-queue.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';

/**
 * kafkajs re-armed a timer on every broker connection after each answer,
 * forever (src/bus/kafka/idle-request-queue.ts). These count the timers a
 * connection's request queue arms while nothing is asked, on a real broker.
 */
const topic = `herald-idle-queue-${process.pid}`;
const brokers = [...serviceEndpoints.kafka.brokers];
let bus: KafkaBus;

type QueueProto = { scheduleCheckPendingRequests: (this: unknown) => void };
const queueProto = (createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as { prototype: QueueProto }).prototype;

/** Timers armed by request queues (counted at their scheduling method) while `idleMs` passes. */
async function queueTimersWhileIdle(idleMs: number): Promise<number> {
  const schedule = queueProto.scheduleCheckPendingRequests;
  let armed = 0;
  const realSetTimeout = globalThis.setTimeout;
  queueProto.scheduleCheckPendingRequests = function counted(this: unknown) {
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      armed += 1;
      return realSetTimeout(...args);
    }) as typeof setTimeout;
    try {
      schedule.call(this);
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
  };
  try {
    await sleep(idleMs);
  } finally {
    queueProto.scheduleCheckPendingRequests = schedule;
  }
  return armed;
}

beforeAll(async () => {
  bus = new KafkaBus({ brokers, logger: silentLogger(), clientId: 'herald-idle-queue-tests' });
  await bus.ensureTopics([{ name: topic, partitions: 2 }]);
  await bus.publish(topic, [{ key: 'a', value: 'warm' }]);
});
afterAll(async () => {
  await bus?.close();
  const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
});

it('arms no timer on an idle connection once a Kafka bus is made', async () => {
  // kafkajs 2.2.4 as shipped armed one about every millisecond per connection: hundreds in this second.
  expect(await queueTimersWhileIdle(1000)).toBeLessThan(5);
  await bus.publish(topic, [{ key: 'b', value: 'still works' }]);
});

it('still sends every request that had to wait behind the in-flight limit', async () => {
  quietKafkaRequestQueues();
  const kafka = new Kafka({ clientId: 'herald-idle-queue-tests', brokers, logLevel: logLevel.NOTHING });
  // One request in flight per connection: the others wait in the queue and go as answers come back.
  const producer = kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const sends = Array.from({ length: 40 }, (_, n) => producer.send({ topic, messages: [{ key: String(n), value: `queued ${n}` }] }));
    const results = await Promise.all(sends);
    expect(results.flat().every((result) => result.errorCode === 0)).toBe(true);
    expect(results).toHaveLength(40);
  } finally {
    await producer.disconnect();
  }
});
