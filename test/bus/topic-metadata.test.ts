import { KafkaJSProtocolError } from 'kafkajs';
import { expect, it } from 'vitest';
import { topicMetadata } from '../../src/bus/kafka/topic-metadata.ts';

const specs = [{ name: 'herald-test.push.requests', partitions: 4 }];
const partitions = (leader: number) => [0, 1, 2, 3].map((partitionId) => ({ partitionId, leader, partitionErrorCode: 0, replicas: [1], isr: [1], offlineReplicas: [] }));
const answer = { topics: [{ name: 'herald-test.push.requests', partitions: partitions(1) }] };
/** What kafkajs throws while a new topic has not reached the broker's metadata cache. */
const unknownTopic = () =>
  new KafkaJSProtocolError(Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION', code: 3 }));

/** An admin whose metadata answers fail with `failures` first, then succeed. */
function adminFailing(failures: Error[]) {
  let calls = 0;
  return {
    calls: () => calls,
    fetchTopicMetadata: () => {
      calls += 1;
      const failure = failures.shift();
      return failure === undefined ? Promise.resolve(answer) : Promise.reject(failure);
    },
  };
}

it('asks again while a topic just created is not in the metadata yet', async () => {
  const admin = adminFailing([unknownTopic(), unknownTopic(), unknownTopic()]);
  expect(await topicMetadata(admin, specs)).toEqual(answer);
  expect(admin.calls()).toBe(4);
});

it('gives up with the broker’s answer once its patience has run out', async () => {
  const admin = adminFailing(Array.from({ length: 100 }, unknownTopic));
  await expect(topicMetadata(admin, specs, 300)).rejects.toThrow('does not host this topic-partition');
  expect(admin.calls()).toBeGreaterThan(1);
  expect(admin.calls()).toBeLessThan(10);
});

it('asks again while the partitions have no leader yet, and answers once they have', async () => {
  const answers = [{ topics: [{ name: 'herald-test.push.requests', partitions: partitions(-1) }] }, { topics: [] }, answer];
  let calls = 0;
  const admin = { fetchTopicMetadata: () => Promise.resolve(answers[Math.min(calls++, answers.length - 1)] as typeof answer) };
  expect(await topicMetadata(admin, specs)).toEqual(answer);
  expect(calls).toBe(3);
});

it('asks again after LEADER_NOT_AVAILABLE too', async () => {
  const leaderless = new KafkaJSProtocolError(Object.assign(new Error('There is no leader for this topic-partition'), { type: 'LEADER_NOT_AVAILABLE', code: 5 }));
  const admin = adminFailing([leaderless]);
  expect(await topicMetadata(admin, specs)).toEqual(answer);
  expect(admin.calls()).toBe(2);
});

it('does not ask again after any other failure', async () => {
  const admin = adminFailing([new Error('Connection error: ECONNREFUSED')]);
  await expect(topicMetadata(admin, specs)).rejects.toThrow('ECONNREFUSED');
  expect(admin.calls()).toBe(1);
});
