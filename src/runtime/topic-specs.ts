import type { BusConfig } from '../config/backends-schema.ts';
import type { TopicSpec } from '../core/ports/bus.ts';
import { pushTopics } from '../push/push-topics.ts';

/**
 * The topics Herald needs, with the partition counts of the config. On
 * Kafka the outcome stream's topic too, whether the stream is on or not, so
 * that a team's consumer can be set up before the stream is turned on; the
 * in-process bus has no outside reader and gets none.
 */
export function topicSpecs(config: BusConfig): TopicSpec[] {
  const topics = pushTopics(config.topicPrefix);
  return [
    { name: topics.requests, partitions: config.topics.pushRequests },
    { name: topics.tasks, partitions: config.topics.pushTasks },
    ...(config.kind === 'kafka' ? [{ name: topics.outcomes, partitions: config.topics.pushOutcomes }] : []),
  ];
}
