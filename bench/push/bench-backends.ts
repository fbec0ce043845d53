import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { RawConfig } from '../../src/config/schema.ts';
import { servicesUp } from '../../scripts/services/services.ts';
import { dropKeyspace } from '../../test/store/cassandra-test-keyspace.ts';
import { serviceEndpoints } from '../../test/support/service-endpoints.ts';
import { deleteKafkaTopics } from '../../test/support/test-backends.ts';

export const benchStores = ['sqlite', 'cassandra'] as const;
export type BenchStore = (typeof benchStores)[number];

/** Where a benchmark's Herald keeps its state, and how to remove it afterwards. */
export interface BenchBackends {
  store: RawConfig['store'];
  coordination: RawConfig['coordination'];
  bus: RawConfig['bus'];
  /** Drops what the run created: keyspace, topics, Redis keys (the SQLite file goes with the data directory). */
  drop(): Promise<void>;
}

/**
 * `sqlite`: the embedded default (SQLite in the data directory, in-memory
 * coordination, in-process bus). `cassandra`: the distributed services on
 * this machine — Cassandra in a fresh keyspace, Redis under a fresh key
 * prefix, Kafka topics under a fresh prefix — brought up first if needed.
 */
export async function benchBackends(store: BenchStore): Promise<BenchBackends> {
  if (store === 'sqlite') return { store: { kind: 'sqlite' }, coordination: { kind: 'memory' }, bus: { kind: 'memory' }, drop: () => Promise.resolve() };
  await servicesUp(['cassandra', 'redis', 'kafka']);
  const run = randomBytes(4).toString('hex');
  const keyspace = `herald_bench_${run}`;
  const topicPrefix = `bench${run}.`;
  const keyPrefix = `herald-bench:${run}:`;
  return {
    store: {
      kind: 'cassandra',
      contactPoints: [...serviceEndpoints.cassandra.contactPoints],
      localDataCenter: serviceEndpoints.cassandra.localDataCenter,
      keyspace,
    },
    coordination: { kind: 'redis', url: serviceEndpoints.redis.url, keyPrefix },
    bus: { kind: 'kafka', brokers: [...serviceEndpoints.kafka.brokers], topicPrefix },
    drop: async () => {
      await Promise.allSettled([dropKeyspace(keyspace), deleteKafkaTopics(topicPrefix), deleteRedisKeys(keyPrefix)]);
    },
  };
}

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(serviceEndpoints.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
