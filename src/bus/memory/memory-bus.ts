import type { Logger } from '../../core/logger.ts';
import {
  UnknownTopicError,
  type Bus,
  type OutgoingMessage,
  type SubscribeOptions,
  type Subscription,
  type TopicSpec,
  type TopicState,
} from '../../core/ports/bus.ts';
import { checkTopicSpecs, compileSubscribeOptions } from '../subscribe-options.ts';
import { MemoryGroup } from './memory-group.ts';
import { MemorySubscription } from './memory-subscription.ts';
import { MemoryTopic } from './memory-topic.ts';

export interface MemoryBusOptions {
  logger: Logger;
  /**
   * Messages a partition keeps before dropping its oldest, committed or not
   * (Kafka's size retention); default 100,000. Messages every reading group has
   * committed are dropped anyway.
   */
  maxMessagesPerPartition?: number;
}

/**
 * The embedded `Bus`: topics, partitions, consumer groups and committed offsets
 * in this process, with Kafka's semantics where they matter (key → partition
 * by the same hash, one owner per partition, in-order handling, commit after the
 * handler resolves, redelivery of what was not committed). Nothing survives the
 * process.
 */
export class MemoryBus implements Bus {
  readonly #logger: Logger;
  readonly #maxMessagesPerPartition: number;
  readonly #topics = new Map<string, MemoryTopic>();
  readonly #groups = new Map<string, MemoryGroup>();
  readonly #subscriptions = new Set<MemorySubscription>();
  #closed: Promise<void> | null = null;

  constructor(options: MemoryBusOptions) {
    this.#logger = options.logger;
    this.#maxMessagesPerPartition = options.maxMessagesPerPartition ?? 100_000;
    if (!Number.isInteger(this.#maxMessagesPerPartition) || this.#maxMessagesPerPartition < 1) {
      throw new RangeError('MemoryBus: maxMessagesPerPartition must be a positive integer');
    }
  }

  ensureTopics(specs: readonly TopicSpec[]): Promise<TopicState[]> {
    return this.#run(() => {
      checkTopicSpecs(specs);
      return specs.map((spec) => {
        const existing = this.#topics.get(spec.name);
        if (existing !== undefined) {
          if (existing.partitions.length !== spec.partitions) {
            this.#logger.warn({ topic: spec.name, partitions: existing.partitions.length, wanted: spec.partitions }, 'topic exists with another partition count; kept as it is');
          }
          return { name: spec.name, partitions: existing.partitions.length, created: false };
        }
        this.#topics.set(spec.name, new MemoryTopic(spec.name, spec.partitions, this.#maxMessagesPerPartition, this.#logger));
        return { name: spec.name, partitions: spec.partitions, created: true };
      });
    });
  }

  publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    return this.#run(() => this.#topic(topic).append(messages));
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const { settings, group } = await this.#run(() => {
      const settings = compileSubscribeOptions(options);
      for (const name of settings.topics) this.#topic(name);
      let group = this.#groups.get(settings.groupId);
      if (group === undefined) {
        group = new MemoryGroup(settings.groupId, (name) => this.#topic(name));
        this.#groups.set(settings.groupId, group);
      }
      return { settings, group };
    });
    const logger = this.#logger.child({ groupId: settings.groupId });
    const subscription = new MemorySubscription(settings, group, (name) => this.#topic(name), logger, (closed) => this.#subscriptions.delete(closed));
    this.#subscriptions.add(subscription);
    await group.join(subscription);
    // The bus began closing while this member was joining; its close covers this one.
    if (this.#closed !== null) throw new Error('bus is closed');
    return subscription;
  }

  lag(groupId: string, topic: string): Promise<number> {
    return this.#run(() => {
      const group = this.#groups.get(groupId);
      return this.#topic(topic).partitions.reduce((sum, log, partition) => {
        const committed = Math.max(group?.committedOffset(topic, partition) ?? 0, log.startOffset);
        return sum + Math.max(0, log.endOffset - committed);
      }, 0);
    });
  }

  ping(): Promise<void> {
    return this.#run(() => undefined);
  }

  close(): Promise<void> {
    this.#closed ??= Promise.all([...this.#subscriptions].map((subscription) => subscription.close())).then(() => undefined);
    return this.#closed;
  }

  #topic(name: string): MemoryTopic {
    const topic = this.#topics.get(name);
    if (topic === undefined) throw new UnknownTopicError(name);
    return topic;
  }

  #run<T>(work: () => T): Promise<T> {
    if (this.#closed !== null) return Promise.reject(new Error('bus is closed'));
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
