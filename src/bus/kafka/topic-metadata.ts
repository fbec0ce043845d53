import { setTimeout as wait } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import type { TopicSpec } from '../../core/ports/bus.ts';
import { kafkaErrorType } from './kafka-errors.ts';

/** How long a topic just created (here or by another node) may take to show in the metadata with its leaders. */
export const newTopicPatienceMs = 15_000;

type TopicMetadata = Awaited<ReturnType<Admin['fetchTopicMetadata']>>;

/** What a broker answers about a topic it has not fully set up yet. */
const settlingErrors = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE']);

/**
 * The topics' metadata, once every partition of every topic has a leader.
 * Right after a topic is created the broker may still answer
 * UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE for it, or list
 * partitions without a leader (seen on a busy single-node cluster, where
 * kafkajs's own `waitForLeaders` gave up on the first of these). So it asks
 * again until `patienceMs` has passed; then a settling error is thrown, and
 * metadata still without some leaders is answered as it is (producers wait
 * for leaders themselves).
 */
export async function topicMetadata(admin: Pick<Admin, 'fetchTopicMetadata'>, specs: readonly TopicSpec[], patienceMs = newTopicPatienceMs): Promise<TopicMetadata> {
  const deadline = Date.now() + patienceMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
    const last = Date.now() + pause > deadline;
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: specs.map((spec) => spec.name) });
      if (last || everyLeaderKnown(metadata, specs)) return metadata;
    } catch (error) {
      if (last || !settlingErrors.has(kafkaErrorType(error) ?? '')) throw error;
    }
    await wait(pause);
  }
}

function everyLeaderKnown(metadata: TopicMetadata, specs: readonly TopicSpec[]): boolean {
  return specs.every((spec) => {
    const topic = metadata.topics.find((candidate) => candidate.name === spec.name);
    return topic !== undefined && topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0);
  });
}
