import { describe, expect, it } from 'vitest';
import { PartitionCounts, partitionCountTtlMs } from '../../src/bus/kafka/partition-counts.ts';

/** An admin client answering from `topics`, counting its calls. */
function fakeAdmin(topics: Map<string, number>) {
  const asked: string[] = [];
  const admin = {
    fetchTopicMetadata: ({ topics: names }: { topics: string[] }) => {
      asked.push(...names);
      return Promise.resolve({
        topics: names.filter((name) => topics.has(name)).map((name) => ({ name, partitions: Array.from({ length: topics.get(name)! }, (_, partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1], partitionErrorCode: 0, offlineReplicas: [] })) })),
      });
    },
  };
  return { admin, asked };
}

describe('PartitionCounts', () => {
  it('asks the brokers once per topic while the count is fresh, and once more after it expires', async () => {
    let now = 1_000;
    const topics = new Map([['push.tasks', 8]]);
    const { admin, asked } = fakeAdmin(topics);
    const counts = new PartitionCounts(() => Promise.resolve(admin), () => now);
    expect(await Promise.all([counts.of('push.tasks'), counts.of('push.tasks')])).toEqual([8, 8]);
    expect(asked).toEqual(['push.tasks']);
    now += partitionCountTtlMs - 1;
    expect(await counts.of('push.tasks')).toBe(8);
    expect(asked).toHaveLength(1);
    topics.set('push.tasks', 12);
    now += 1;
    expect(await counts.of('push.tasks')).toBe(12);
    expect(asked).toHaveLength(2);
  });

  it('asks again after forget, and uses a count it was told without asking', async () => {
    const { admin, asked } = fakeAdmin(new Map([['push.requests', 4]]));
    const counts = new PartitionCounts(() => Promise.resolve(admin));
    counts.remember('push.requests', 3);
    expect(await counts.of('push.requests')).toBe(3);
    expect(asked).toEqual([]);
    counts.forget('push.requests');
    expect(await counts.of('push.requests')).toBe(4);
    expect(asked).toEqual(['push.requests']);
  });

  it('rejects a topic without partitions as unknown, and keeps nothing for it', async () => {
    const topics = new Map<string, number>();
    const { admin, asked } = fakeAdmin(topics);
    const counts = new PartitionCounts(() => Promise.resolve(admin));
    await expect(counts.of('missing')).rejects.toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    topics.set('missing', 2);
    expect(await counts.of('missing')).toBe(2);
    expect(asked).toEqual(['missing', 'missing']);
  });
});
