import { randomUUID } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { partitionForKey } from '../../src/bus/key-partition.ts';
import { MemoryBus } from '../../src/bus/memory/memory-bus.ts';
import { silentLogger } from '../../src/core/logger.ts';
import { describeBusConformance } from './bus-conformance.ts';
import { Deliveries } from './deliveries.ts';

describeBusConformance('MemoryBus', () => {
  const bus = new MemoryBus({ logger: silentLogger() });
  return Promise.resolve({ bus, cleanup: () => bus.close() });
});

describe('MemoryBus', () => {
  it("places keys on the partitions Kafka's default partitioner picks", () => {
    const kafkaPartitioner = Partitioners.DefaultPartitioner();
    const keys = ['', 'a', 'ab', 'abc', 'abcd', 'shard-17', 'ünïcødé', ...Array.from({ length: 500 }, () => randomUUID())];
    for (const partitions of [1, 3, 16, 64]) {
      const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, partitionErrorCode: 0, leader: 0, replicas: [0], isr: [0] }));
      for (const key of keys) {
        const expected = kafkaPartitioner({ topic: 'any', partitionMetadata, message: { key, value: null } });
        expect(partitionForKey(key, partitions), `key ${JSON.stringify(key)} over ${partitions}`).toBe(expected);
      }
    }
  });

  it('keeps at most maxMessagesPerPartition, dropping the oldest, so a new group starts after them', async () => {
    const bus = new MemoryBus({ logger: silentLogger(), maxMessagesPerPartition: 3 });
    await bus.ensureTopics([{ name: 'capped', partitions: 1 }]);
    await bus.publish('capped', ['m0', 'm1', 'm2', 'm3', 'm4'].map((value) => ({ key: 'k', value })));
    const deliveries = new Deliveries();
    await bus.subscribe({ groupId: 'reader', topics: ['capped'], handler: (message) => Promise.resolve(deliveries.record('reader', message)) });
    await deliveries.count(3);
    expect(deliveries.texts()).toEqual(['m2', 'm3', 'm4']);
    expect(deliveries.all.map((delivery) => delivery.message.offset)).toEqual(['2', '3', '4']);
    await bus.close();
  });

  it('handles no more partitions at once than the concurrency asked for', async () => {
    const bus = new MemoryBus({ logger: silentLogger() });
    await bus.ensureTopics([{ name: 'busy', partitions: 4 }]);
    const deliveries = new Deliveries();
    let running = 0;
    let peak = 0;
    await bus.subscribe({
      groupId: 'limited',
      topics: ['busy'],
      concurrency: 2,
      handler: async (message) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => setImmediate(resolve));
        running -= 1;
        deliveries.record('limited', message);
      },
    });
    await bus.publish('busy', Array.from({ length: 40 }, (_, index) => ({ key: `key-${index}`, value: `m${index}` })));
    await deliveries.count(40);
    expect(peak).toBe(2);
    await bus.close();
  });
});
