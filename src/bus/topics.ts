import type { BusConfig } from '../config/backends-schema.ts';
import type { TopicSpec } from '../core/ports/bus.ts';

/** The names of Herald's topics, after the configured prefix; one place for every producer and consumer. */
export interface PushTopics {
  /** Push requests as the API accepted them (or the scheduler found due), keyed by push id. */
  requests: string;
  /** Slices of a push's tasks, keyed by task, one sender actor per partition. */
  tasks: string;
}

export function pushTopics(config: Pick<BusConfig, 'topicPrefix'>): PushTopics {
  return { requests: `${config.topicPrefix}push.requests`, tasks: `${config.topicPrefix}push.tasks` };
}

/** The topics Herald needs, with the partition counts of the config. */
export function topicSpecs(config: BusConfig): TopicSpec[] {
  const topics = pushTopics(config);
  return [
    { name: topics.requests, partitions: config.topics.pushRequests },
    { name: topics.tasks, partitions: config.topics.pushTasks },
  ];
}
