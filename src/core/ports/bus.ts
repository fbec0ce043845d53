import type { Backoff } from '../retry-delay.ts';

/** A topic to create, with the number of partitions it starts with. */
export interface TopicSpec {
  name: string;
  partitions: number;
}

/** A topic as it exists after `ensureTopics`; an existing topic keeps its partition count. */
export interface TopicState {
  name: string;
  partitions: number;
  /** Whether this call created it. */
  created: boolean;
}

export interface OutgoingMessage {
  /** Chooses the partition (Kafka's default partitioner): one key, one partition, one order. */
  key: string;
  value: Buffer | string;
  headers?: Record<string, string>;
}

export interface BusMessage {
  topic: string;
  partition: number;
  /** Position in the partition; a 64-bit integer in decimal, as Kafka gives it. */
  offset: string;
  key: string;
  value: Buffer;
  headers: Record<string, string>;
}

export interface HandlerContext {
  /**
   * Aborted when this subscription is about to give the message's partition up:
   * it is closing, or its group is rebalancing. A handler may still finish (its
   * offset is then committed), or reject soon and leave the message to the
   * partition's next owner.
   */
  signal: AbortSignal;
}

/**
 * Handles one message. The offset is committed once the returned promise
 * resolves; a rejection commits nothing and the same message is offered again.
 */
export type MessageHandler = (message: BusMessage, context: HandlerContext) => Promise<void>;

/** Delays between attempts at a message whose handler rejected. */
export type RetryBackoff = Backoff;

export interface SubscribeOptions {
  /** Members of one group share the partitions; every group gets every message. */
  groupId: string;
  topics: readonly string[];
  handler: MessageHandler;
  /** How many partitions this member handles at the same time; default 4. */
  concurrency?: number;
  /** Default: 100 ms doubling up to 30 s. */
  retry?: Partial<RetryBackoff>;
}

export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

/** One member of a consumer group. */
export interface Subscription {
  readonly groupId: string;
  /** Partitions this member owns now; empty while its group rebalances. */
  assignment(): TopicPartitions[];
  /**
   * The error that stopped this member for good (its client gave up and will
   * not rejoin), or null while it consumes or after a normal close. A member
   * that stopped takes no more messages: its process must be restarted.
   */
  stoppedBy(): Error | null;
  /**
   * Stops taking messages, waits for in-flight handlers to settle, commits what
   * they finished and leaves the group; idempotent.
   */
  close(): Promise<void>;
}

/** Raised when publishing or subscribing to a topic that was never created. */
export class UnknownTopicError extends Error {
  readonly topic: string;
  constructor(topic: string, options: { cause?: unknown } = {}) {
    super(`unknown topic ${topic}`, options);
    this.name = 'UnknownTopicError';
    this.topic = topic;
  }
}

/**
 * Partitioned, replayable topics with consumer groups (Kafka's model).
 *
 * - A message's key picks its partition; a partition's messages are handled one
 *   at a time, in order, by the one member of each group that owns it.
 * - Offsets are committed only after a handler resolves, so delivery is
 *   at-least-once: what a member had not committed when it closed, crashed or
 *   lost the partition in a rebalance is delivered again to the next owner.
 * - When a handler rejects, the member keeps the partition and offers the same
 *   message again after a backoff, indefinitely; nothing is skipped. A handler
 *   that knows a message can never succeed must settle it itself (resolve after
 *   recording the failure).
 * - A group that has committed nothing starts at the oldest retained message.
 */
export interface Bus {
  /** Creates the topics that do not exist yet; existing ones are left as they are. */
  ensureTopics(specs: readonly TopicSpec[]): Promise<TopicState[]>;
  /**
   * Resolves once every message is durably accepted. Messages of one call keep
   * their order within each partition, as do calls awaited one after another.
   * A call that resolves wrote each message once; one that rejects may have
   * written some of them, so repeating it may repeat those.
   */
  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /** Joins the group; resolves once this member has its first assignment. */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Messages of `topic` the group has not committed yet, summed over the
   * partitions: the consumer lag. A group that has committed nothing lags by
   * everything retained.
   */
  lag(groupId: string, topic: string): Promise<number>;
  /** Answers when the backing service is reachable. */
  ping(): Promise<void>;
  /** Closes every subscription made through this bus (draining them), then the bus; idempotent. */
  close(): Promise<void>;
}
