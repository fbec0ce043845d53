import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietKafkaRequestQueues } from '../../src/bus/kafka/idle-request-queue.ts';
import { compileKafkaBusOptions } from '../../src/bus/kafka/kafka-bus-options.ts';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { ServiceUnavailableError } from '../../src/core/errors.ts';
import type { BusMessage } from '../../src/core/ports/bus.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { eventually } from '../support/eventually.ts';
import { JoinGroupRefusals } from '../support/kafka-join-refusals.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { deleteTopics } from '../support/test-backends.ts';
import { describeBusConformance } from './bus-conformance.ts';

// Short group timeouts so that joins, rebalances and leaves take well under a second here.
const fastGroups = { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 250, rebalanceTimeoutMs: 10_000, maxWaitTimeMs: 100, retries: 2 };

let admin: Admin;

beforeAll(async () => {
  // Before the first client connects, as the bus itself does (kafkajs's idle timer loop).
  quietKafkaRequestQueues();
  admin = new Kafka({ clientId: 'herald-bus-tests', brokers: [...serviceEndpoints.kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

afterAll(async () => {
  await admin.disconnect();
});

describeBusConformance('KafkaBus', () => {
  const bus = new KafkaBus({ brokers: serviceEndpoints.kafka.brokers, logger: silentLogger(), clientId: 'herald-bus-tests', ...fastGroups });
  return Promise.resolve({
    bus,
    cleanup: async ({ topics, groups }) => {
      await bus.close();
      const existing = new Set(await admin.listTopics());
      await deleteTopics(admin, topics.filter((topic) => existing.has(topic)));
      // Groups a test never joined are unknown to the broker; nothing to delete then.
      if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    },
  });
});

describe('KafkaBus', () => {
  it('reports an unreachable broker as ServiceUnavailableError from every call', async () => {
    const bus = new KafkaBus({ brokers: ['127.0.0.1:1'], logger: silentLogger(), retries: 0, connectionTimeoutMs: 500 });
    const calls: [string, () => Promise<unknown>][] = [
      ['ping', () => bus.ping()],
      ['ensureTopics', () => bus.ensureTopics([{ name: 'push.tasks', partitions: 2 }])],
      ['publish', () => bus.publish('push.tasks', [{ key: 'k', value: 'v' }])],
      ['subscribe', () => bus.subscribe({ groupId: 'senders', topics: ['push.tasks'], handler: () => Promise.resolve() })],
    ];
    for (const [name, call] of calls) {
      const error: unknown = await call().then(
        () => null,
        (rejection: unknown) => rejection,
      );
      expect(error, name).toBeInstanceOf(ServiceUnavailableError);
      expect(error, name).toMatchObject({ code: 503, status: 503, message: 'Kafka is unavailable; retry later' });
    }
    await bus.close();
  });

  it('writes each message once when a partition refuses part of a publish and kafkajs retries it', async () => {
    // Right after a topic is created, its leader may still refuse a partition
    // (NOT_LEADER_OR_FOLLOWER) while accepting the others of the same publish:
    // about one topic in three here. Topics are created until that has been
    // seen three times; every topic's log must then hold each message once.
    const { logger, lines } = memoryLogger('warn');
    const bus = new KafkaBus({ brokers: serviceEndpoints.kafka.brokers, logger, clientId: 'herald-bus-tests', ...fastGroups });
    const refusals = (): number => lines.filter((line) => JSON.stringify(line).includes('not the leader')).length;
    const written: { topic: string; sent: number; held: number }[] = [];
    try {
      for (let attempt = 0; attempt < 40 && refusals() < 3; attempt += 1) {
        const topic = `publish-once.${randomUUID()}`;
        await bus.ensureTopics([{ name: topic, partitions: 4 }]);
        let sent = 0;
        for (const [from, to] of [[0, 7], [7, 14], [14, 20]] as const) {
          const messages = [];
          for (let sequence = from; sequence < to; sequence += 1) {
            for (let key = 0; key < 12; key += 1) messages.push({ key: `shard-${key}`, value: `shard-${key}#${sequence}` });
          }
          await bus.publish(topic, messages);
          sent += messages.length;
        }
        const ends = await admin.fetchTopicOffsets(topic);
        written.push({ topic, sent, held: ends.reduce((sum, end) => sum + Number(end.high), 0) });
      }
    } finally {
      await bus.close();
      // Deleted only now: kafkajs's producer fails every later publish once a topic it wrote to is gone.
      await deleteTopics(admin, written.map(({ topic }) => topic));
    }
    expect(refusals(), 'no partition refused a publish: the retry was not exercised').toBeGreaterThan(0);
    expect(written.filter(({ sent, held }) => sent !== held)).toEqual([]);
  }, 120_000);

  describe('while the group coordinator refuses joins', () => {
    // kafkajs restarts a consumer whose join failed for a retriable reason; a
    // member must wait through those restarts, not fail (a sender whose start
    // failed this way once took a whole process start down in CI).
    it('waits through the refusals, joins once they stop and then takes messages, logging the outage once', async () => {
      const refusals = new JoinGroupRefusals();
      const { logger, lines } = memoryLogger('info');
      const bus = new KafkaBus({ brokers: serviceEndpoints.kafka.brokers, logger, clientId: 'herald-bus-tests', ...fastGroups, socketFactory: refusals.socketFactory });
      const topic = `join-refused.${randomUUID()}`;
      const groupId = `join-refused.${randomUUID()}`;
      const received: string[] = [];
      try {
        await bus.ensureTopics([{ name: topic, partitions: 2 }]);
        let outcome = 'pending';
        const handler = (message: BusMessage): Promise<void> => {
          received.push(message.value.toString());
          return Promise.resolve();
        };
        const subscribing = bus.subscribe({ groupId, topics: [topic], handler });
        subscribing.then(
          () => (outcome = 'joined'),
          (error: unknown) => (outcome = `failed: ${String(error)}`),
        );
        // Each refusal crashes the consumer (kafkajs does not retry this answer within a join) and restarts it.
        await eventually('five refused joins', () => refusals.refused, (refused) => refused >= 5 || outcome !== 'pending', { timeoutMs: 20_000 });
        expect(outcome).toBe('pending');
        refusals.refusing = false;
        const subscription = await subscribing;
        expect(subscription.assignment()).toEqual([{ topic, partitions: [0, 1] }]);
        await bus.publish(topic, [{ key: 'k', value: 'after the outage' }]);
        await eventually('the message', () => received, (values) => values.length > 0, { timeoutMs: 20_000 });
        expect(received).toEqual(['after the outage']);
      } finally {
        await bus.close();
        await deleteTopics(admin, [topic]);
        await admin.deleteGroups([groupId]).catch(() => undefined);
      }
      const ours = lines.filter((line) => line.component !== 'kafkajs');
      expect(ours.filter((line) => line.msg?.startsWith('Kafka consumer crashed')).map((line) => line.msg)).toEqual([
        'Kafka consumer crashed; restarting it until it joins its group',
      ]);
      const rejoined = ours.find((line) => line.msg === 'Kafka consumer joined its group again after restarting');
      expect(rejoined?.restarts).toBeGreaterThanOrEqual(5);
    }, 60_000);

    it('stops waiting, and stops the consumer, when the bus closes', async () => {
      const refusals = new JoinGroupRefusals();
      const bus = new KafkaBus({ brokers: serviceEndpoints.kafka.brokers, logger: silentLogger(), clientId: 'herald-bus-tests', ...fastGroups, socketFactory: refusals.socketFactory });
      const topic = `join-refused.${randomUUID()}`;
      try {
        await bus.ensureTopics([{ name: topic, partitions: 1 }]);
        const subscribing = bus.subscribe({ groupId: `join-refused.${randomUUID()}`, topics: [topic], handler: () => Promise.resolve() });
        const failure = subscribing.then(
          () => null,
          (error: unknown) => error,
        );
        await eventually('two refused joins', () => refusals.refused, (refused) => refused >= 2, { timeoutMs: 20_000 });
        await bus.close();
        expect(await failure).toMatchObject({ message: 'bus is closed' });
        // A consumer left restarting would be refused about ten times a second.
        const refusedAtClose = refusals.refused;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(refusals.refused - refusedAtClose).toBeLessThanOrEqual(1);
      } finally {
        await bus.close();
        await deleteTopics(admin, [topic]);
      }
    }, 60_000);
  });

  it.each<[string, object, string]>([
    ['no brokers', { brokers: [] }, 'brokers'],
    ['a heartbeat interval as long as the session', { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 6_000 }, 'heartbeatIntervalMs'],
    ['a negative retry count', { retries: -1 }, 'retries'],
  ])('rejects options with %s', (_, change, mentions) => {
    expect(() => compileKafkaBusOptions({ brokers: ['localhost:9092'], logger: silentLogger(), ...change })).toThrow(mentions);
  });
});
