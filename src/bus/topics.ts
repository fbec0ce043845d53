import type { BusConfig } from '../config/backends-schema.ts';
import type { TopicSpec } from '../core/ports/bus.ts';

/** Topic names, one place for every producer and consumer. */
export const topicNames = {
  /** Push requests as the API accepted them, keyed by push id. */
  pushRequests: 'push.requests',
  /** Shard tasks of a push, keyed by shard, one sender actor per partition. */
  pushTasks: 'push.tasks',
} as const;

/** The topics Herald needs, with the partition counts of the config. */
export function topicSpecs(config: BusConfig): TopicSpec[] {
  return [
    { name: topicNames.pushRequests, partitions: config.topics.pushRequests },
    { name: topicNames.pushTasks, partitions: config.topics.pushTasks },
  ];
}
