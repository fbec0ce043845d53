import type { BusConfig } from '../config/backends-schema.ts';
import type { TopicSpec } from '../core/ports/bus.ts';
import { pushTopics } from '../push/push-topics.ts';

/** The topics Herald needs, with the partition counts of the config. */
export function topicSpecs(config: BusConfig): TopicSpec[] {
  const topics = pushTopics(config.topicPrefix);
  return [
    { name: topics.requests, partitions: config.topics.pushRequests },
    { name: topics.tasks, partitions: config.topics.pushTasks },
  ];
}
