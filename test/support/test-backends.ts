import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { quietKafkaRequestQueues } from '../../src/bus/kafka/idle-request-queue.ts';
import { kafkaErrorType } from '../../src/bus/kafka/kafka-errors.ts';
import type { RawConfig } from '../../src/config/schema.ts';
import { serviceEndpoints } from './service-endpoints.ts';

/**
 * Which backends the HTTP suites run on: `embedded` (SQLite, in-memory
 * coordination, in-process bus; the default) or `distributed` (Cassandra,
 * Redis and Kafka on the local services). vitest.config.ts runs the HTTP
 * suites once in each project, the second with HERALD_TEST_BACKENDS=distributed.
 */
export type TestBackends = 'embedded' | 'distributed';

export function testBackends(): TestBackends {
  const chosen = process.env.HERALD_TEST_BACKENDS ?? 'embedded';
  if (chosen !== 'embedded' && chosen !== 'distributed') throw new Error(`HERALD_TEST_BACKENDS must be embedded or distributed, not ${chosen}`);
  return chosen;
}

/**
 * The Cassandra store of the distributed suites: one keyspace per
 * installation shard count (the count is fixed per keyspace), shared by every
 * test — each test herald has apps of its own, and every table is keyed by app.
 */
export function sharedCassandraStore(installationShards: number): NonNullable<RawConfig['store']> {
  return {
    kind: 'cassandra',
    contactPoints: [...serviceEndpoints.cassandra.contactPoints],
    localDataCenter: serviceEndpoints.cassandra.localDataCenter,
    keyspace: `herald_http_s${installationShards}`,
  };
}

/** A Kafka bus with topics of its own (a fresh prefix), so that no other herald's senders take its tasks. */
export function privateKafkaBus(): { kind: 'kafka'; brokers: string[]; topicPrefix: string; topics: { pushRequests: number; pushTasks: number; pushOutcomes: number } } {
  return {
    kind: 'kafka',
    brokers: [...serviceEndpoints.kafka.brokers],
    topicPrefix: `t${randomBytes(5).toString('hex')}.`,
    topics: { pushRequests: 2, pushTasks: 4, pushOutcomes: 2 },
  };
}

/** Deletes the topics a test herald created, so that runs do not pile them up in the local Kafka. */
export async function deleteKafkaTopics(prefix: string): Promise<void> {
  quietKafkaRequestQueues();
  const admin = new Kafka({ clientId: 'herald-tests', brokers: [...serviceEndpoints.kafka.brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await deleteTopics(admin, (await admin.listTopics()).filter((topic) => topic.startsWith(prefix)));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Deletes `topics`, one a request: kafkajs retries a failed request whole, and
 * a topic the first attempt deleted then answers UNKNOWN_TOPIC_OR_PARTITION on
 * every retry. That answer (also given for a topic still being deleted) means
 * it is gone, which is all a test's cleanup wants.
 */
export async function deleteTopics(admin: Admin, topics: readonly string[]): Promise<void> {
  for (const topic of topics) {
    try {
      await admin.deleteTopics({ topics: [topic], timeout: 30_000 });
    } catch (error) {
      if (kafkaErrorType(error) !== 'UNKNOWN_TOPIC_OR_PARTITION') throw error;
    }
  }
}
