import { Kafka, Partitioners, type Admin } from 'kafkajs';
import type { Logger } from '../../core/logger.ts';
import type { Bus, OutgoingMessage, SubscribeOptions, Subscription, TopicSpec, TopicState } from '../../core/ports/bus.ts';
import { partitionForKey } from '../key-partition.ts';
import { checkTopicSpecs, compileSubscribeOptions } from '../subscribe-options.ts';
import { IdempotentProducer } from './idempotent-producer.ts';
import { compileKafkaBusOptions, topicReplication, type KafkaBusOptions, type KafkaBusSettings } from './kafka-bus-options.ts';
import { toBusError } from './kafka-errors.ts';
import { kafkaLogCreator, kafkaLogLevel } from './kafka-log.ts';
import { KafkaSubscription } from './kafka-subscription.ts';
import { LazyConnection } from './lazy-connection.ts';
import { PartitionCounts } from './partition-counts.ts';
import { topicMetadata } from './topic-metadata.ts';
import { quietKafkaRequestQueues } from './idle-request-queue.ts';

/**
 * The production `Bus` on Kafka (kafkajs). The producer and admin client
 * connect on first use; each subscription is its own consumer. Every failure
 * to reach the brokers surfaces as `ServiceUnavailableError('Kafka')`.
 */
export class KafkaBus implements Bus {
  readonly #settings: KafkaBusSettings;
  readonly #logger: Logger;
  readonly #kafka: Kafka;
  readonly #producer: IdempotentProducer;
  readonly #admin: LazyConnection<Admin>;
  readonly #partitionCounts: PartitionCounts;
  readonly #subscriptions = new Set<KafkaSubscription>();
  /** Aborted when the bus begins closing: ends the wait of members still joining. */
  readonly #closing = new AbortController();
  #closed: Promise<void> | null = null;

  constructor(options: KafkaBusOptions) {
    this.#settings = compileKafkaBusOptions(options);
    this.#logger = options.logger;
    quietKafkaRequestQueues();
    this.#kafka = new Kafka({
      clientId: this.#settings.clientId,
      brokers: [...this.#settings.brokers],
      ssl: this.#settings.tls,
      sasl: this.#settings.sasl,
      connectionTimeout: this.#settings.connectionTimeoutMs,
      requestTimeout: this.#settings.requestTimeoutMs,
      retry: { retries: this.#settings.retries, initialRetryTime: 100, maxRetryTime: 5_000 },
      logLevel: kafkaLogLevel(this.#logger),
      logCreator: kafkaLogCreator(this.#logger),
      socketFactory: options.socketFactory,
    });
    this.#producer = new IdempotentProducer(this.#kafka, {
      idempotent: this.#settings.idempotent,
      maxInFlightRequests: this.#settings.maxInFlightRequests,
      retries: this.#settings.retries,
      // Named explicitly: it is Kafka's murmur2 partitioner, which `partitionForKey` mirrors.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    this.#admin = new LazyConnection(this.#kafka.admin());
    this.#partitionCounts = new PartitionCounts(() => this.#admin.get());
  }

  async ensureTopics(specs: readonly TopicSpec[]): Promise<TopicState[]> {
    this.#assertOpen();
    checkTopicSpecs(specs);
    if (specs.length === 0) return [];
    try {
      const admin = await this.#admin.get();
      const existing = new Set(await admin.listTopics());
      const missing = specs.filter((spec) => !existing.has(spec.name));
      // Another node may create the same topics at the same moment; kafkajs answers false then.
      // Leaders are waited for by topicMetadata: kafkajs's own wait gives up on UNKNOWN_TOPIC_OR_PARTITION.
      const replication = topicReplication(this.#settings, missing.length > 0 ? (await admin.describeCluster()).brokers.length : 1);
      const created =
        missing.length > 0 &&
        (await admin.createTopics({
          topics: missing.map((spec) => ({
            topic: spec.name,
            numPartitions: spec.partitions,
            replicationFactor: replication.replicationFactor,
            configEntries: [{ name: 'min.insync.replicas', value: String(replication.minInsyncReplicas) }],
          })),
          waitForLeaders: false,
        }));
      if (created) this.#logger.info({ topics: missing.map((spec) => spec.name), ...replication }, 'created topics');
      const metadata = await topicMetadata(admin, specs);
      return specs.map((spec) => {
        const topic = metadata.topics.find((candidate) => candidate.name === spec.name);
        const partitions = topic?.partitions.length ?? 0;
        this.#partitionCounts.remember(spec.name, partitions);
        if (partitions !== spec.partitions) {
          this.#logger.warn({ topic: spec.name, partitions, wanted: spec.partitions }, 'topic exists with another partition count; kept as it is');
        }
        const replicas = Math.min(...(topic?.partitions ?? []).map((partition) => partition.replicas.length));
        if (this.#settings.replicationFactor !== undefined && replicas < this.#settings.replicationFactor) {
          this.#logger.warn({ topic: spec.name, replicas, wanted: this.#settings.replicationFactor }, 'topic exists with fewer replicas than configured; kept as it is');
        }
        return { name: spec.name, partitions, created: created && missing.includes(spec) };
      });
    } catch (error) {
      throw toBusError(error);
    }
  }

  /**
   * Sends one produce request per partition, all at once, and answers when
   * every one has settled. kafkajs answers a request naming several partitions
   * as one: when a single partition refuses (NOT_LEADER_OR_FOLLOWER while a
   * leader moves, or on a topic just created), it sends the whole request again,
   * and the partitions that had accepted would hold those messages twice. Split
   * this way, a retry repeats only what was refused. The partition is the one
   * kafkajs' default partitioner would pick (`partitionForKey`). Every send
   * waits for all in-sync replicas (acks=all; the topic's min.insync.replicas
   * says how many must be), and with idempotence a batch retried after a lost
   * answer is written once (`IdempotentProducer`).
   */
  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.#assertOpen();
    if (messages.length === 0) return;
    try {
      const partitions = await this.#partitionCounts.of(topic);
      const sends = [...byPartition(messages, partitions)].map(([partition, ofPartition]) =>
        this.#producer.send(`${topic}/${partition}`, {
          topic,
          // -1: every in-sync replica has the messages before the call resolves.
          acks: -1,
          messages: ofPartition.map((message) => ({ key: message.key, value: message.value, headers: message.headers, partition })),
        }),
      );
      const failed = (await Promise.allSettled(sends)).find((result) => result.status === 'rejected');
      if (failed !== undefined) {
        this.#partitionCounts.forget(topic);
        throw failed.reason;
      }
    } catch (error) {
      throw toBusError(error, topic);
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    this.#assertOpen();
    const settings = compileSubscribeOptions(options);
    const logger = this.#logger.child({ groupId: settings.groupId });
    const subscription = await KafkaSubscription.start(
      this.#kafka,
      settings,
      this.#settings,
      logger,
      (closed) => this.#subscriptions.delete(closed),
      this.#closing.signal,
    );
    this.#subscriptions.add(subscription);
    if (this.#closed !== null) {
      // The bus began closing while this member was joining.
      await subscription.close();
      throw new Error('bus is closed');
    }
    return subscription;
  }

  async lag(groupId: string, topic: string): Promise<number> {
    this.#assertOpen();
    try {
      const admin = await this.#admin.get();
      const [ends, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
      const committedBy = new Map((committed?.partitions ?? []).map((partition) => [partition.partition, Number(partition.offset)]));
      return ends.reduce((sum, end) => {
        const low = Number(end.low);
        // -1: the group has committed nothing for the partition, so it starts at the oldest retained message.
        const from = Math.max(committedBy.get(end.partition) ?? -1, low);
        return sum + Math.max(0, Number(end.high) - from);
      }, 0);
    } catch (error) {
      throw toBusError(error, topic);
    }
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    try {
      const admin = await this.#admin.get();
      await admin.describeCluster();
    } catch (error) {
      throw toBusError(error);
    }
  }

  close(): Promise<void> {
    this.#closing.abort(new Error('bus is closed'));
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  async #shutdown(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((subscription) => subscription.close()));
    const results = await Promise.allSettled([this.#producer.close(), this.#admin.close()]);
    for (const result of results) {
      if (result.status === 'rejected') this.#logger.warn({ err: result.reason }, 'Kafka client did not disconnect cleanly');
    }
  }

  #assertOpen(): void {
    if (this.#closed !== null) throw new Error('bus is closed');
  }
}

/** The messages grouped by the partition their key maps to, each group in publish order. */
function byPartition(messages: readonly OutgoingMessage[], partitions: number): Map<number, OutgoingMessage[]> {
  const groups = new Map<number, OutgoingMessage[]>();
  for (const message of messages) {
    const partition = partitionForKey(message.key, partitions);
    const group = groups.get(partition);
    if (group === undefined) groups.set(partition, [message]);
    else group.push(message);
  }
  return groups;
}
