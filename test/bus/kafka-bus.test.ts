import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileKafkaBusOptions } from '../../src/bus/kafka/kafka-bus-options.ts';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { ServiceUnavailableError } from '../../src/core/errors.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { memoryLogger } from '../support/memory-logger.ts';
import { serviceEndpoints } from '../support/service-endpoints.ts';
import { describeBusConformance } from './bus-conformance.ts';

// Short group timeouts so that joins, rebalances and leaves take well under a second here.
const fastGroups = { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 250, rebalanceTimeoutMs: 10_000, maxWaitTimeMs: 100, retries: 2 };

let admin: Admin;

beforeAll(async () => {
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
      const ours = topics.filter((topic) => existing.has(topic));
      if (ours.length > 0) await admin.deleteTopics({ topics: ours });
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
      if (written.length > 0) await admin.deleteTopics({ topics: written.map(({ topic }) => topic) });
    }
    expect(refusals(), 'no partition refused a publish: the retry was not exercised').toBeGreaterThan(0);
    expect(written.filter(({ sent, held }) => sent !== held)).toEqual([]);
  }, 120_000);

  it.each<[string, object, string]>([
    ['no brokers', { brokers: [] }, 'brokers'],
    ['a heartbeat interval as long as the session', { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 6_000 }, 'heartbeatIntervalMs'],
    ['a negative retry count', { retries: -1 }, 'retries'],
  ])('rejects options with %s', (_, change, mentions) => {
    expect(() => compileKafkaBusOptions({ brokers: ['localhost:9092'], logger: silentLogger(), ...change })).toThrow(mentions);
  });
});
