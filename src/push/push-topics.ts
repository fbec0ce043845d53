/** The names of the push engine's topics; one place for every producer and consumer. */
export interface PushTopics {
  /** Push requests as the API accepted them (or the scheduler found due), keyed by push id. */
  requests: string;
  /** Slices of a push's tasks, keyed by task, one sender actor per partition. */
  tasks: string;
  /** Delivery events for outside readers (Kafka only, docs/outcome-stream.md), keyed by installation; Herald never reads it. */
  outcomes: string;
}

/** The push topics after `prefix` (the bus's topic prefix, so several deployments can share one Kafka). */
export function pushTopics(prefix: string): PushTopics {
  return { requests: `${prefix}push.requests`, tasks: `${prefix}push.tasks`, outcomes: `${prefix}push.outcomes` };
}
