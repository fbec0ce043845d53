import type { Logger } from '../../core/logger.ts';
import type { Subscription, TopicPartitions } from '../../core/ports/bus.ts';
import type { SubscribeSettings } from '../subscribe-options.ts';
import { ConcurrencySlots } from './concurrency-slots.ts';
import type { GroupMember, MemoryGroup } from './memory-group.ts';
import type { MemoryTopic } from './memory-topic.ts';
import { PartitionActor } from './partition-actor.ts';

/** A member of an in-process consumer group: one actor per assigned partition. */
export class MemorySubscription implements Subscription, GroupMember {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly #settings: SubscribeSettings;
  readonly #group: MemoryGroup;
  readonly #topic: (name: string) => MemoryTopic;
  readonly #slots: ConcurrencySlots;
  readonly #logger: Logger;
  readonly #onClosed: (subscription: MemorySubscription) => void;
  #assignment: TopicPartitions[] = [];
  #actors: PartitionActor[] = [];
  #closed: Promise<void> | null = null;

  constructor(
    settings: SubscribeSettings,
    group: MemoryGroup,
    topic: (name: string) => MemoryTopic,
    logger: Logger,
    onClosed: (subscription: MemorySubscription) => void,
  ) {
    this.groupId = settings.groupId;
    this.topics = settings.topics;
    this.#settings = settings;
    this.#group = group;
    this.#topic = topic;
    this.#slots = new ConcurrencySlots(settings.concurrency);
    this.#logger = logger;
    this.#onClosed = onClosed;
  }

  assignment(): TopicPartitions[] {
    return this.#assignment.map(({ topic, partitions }) => ({ topic, partitions: [...partitions] }));
  }

  /** An in-process member never stops on its own. */
  stoppedBy(): Error | null {
    return null;
  }

  assign(assignment: TopicPartitions[]): void {
    this.#assignment = assignment;
    this.#actors = assignment.flatMap(({ topic, partitions }) =>
      partitions.map(
        (partition) =>
          new PartitionActor({
            topic: this.#topic(topic),
            partition,
            group: this.#group,
            settings: this.#settings,
            slots: this.#slots,
            logger: this.#logger,
          }),
      ),
    );
    // The logger is bound to the group already.
    this.#logger.debug({ assignment }, 'bus subscription assigned');
  }

  async revoke(): Promise<void> {
    const actors = this.#actors;
    this.#actors = [];
    this.#assignment = [];
    await Promise.all(actors.map((actor) => actor.stop()));
  }

  close(): Promise<void> {
    this.#closed ??= this.#group.leave(this).finally(() => this.#onClosed(this));
    return this.#closed;
  }
}
