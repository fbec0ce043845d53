import { setTimeout as wait } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import type { TopicSpec } from '../../core/ports/bus.ts';
import { kafkaErrorType } from './kafka-errors.ts';

/** How long a topic just created (here or by another node) may take to show in the metadata. */
export const newTopicPatienceMs = 15_000;

/**
 * The topics' metadata. Right after a topic is created the broker may still
 * answer UNKNOWN_TOPIC_OR_PARTITION for it (seen on a busy single-node
 * cluster: the metadata had not reached the broker's cache yet), so that
 * answer is asked again until `patienceMs` has passed.
 */
export async function topicMetadata(
  admin: Pick<Admin, 'fetchTopicMetadata'>,
  specs: readonly TopicSpec[],
  patienceMs = newTopicPatienceMs,
): ReturnType<Admin['fetchTopicMetadata']> {
  const deadline = Date.now() + patienceMs;
  for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
    try {
      return await admin.fetchTopicMetadata({ topics: specs.map((spec) => spec.name) });
    } catch (error) {
      if (kafkaErrorType(error) !== 'UNKNOWN_TOPIC_OR_PARTITION' || Date.now() + pause > deadline) throw error;
      await wait(pause);
    }
  }
}
