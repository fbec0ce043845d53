import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from '../../core/logger.ts';
import type { BusMessage, Subscription, TopicPartitions } from '../../core/ports/bus.ts';
import { retryDelay } from '../../core/retry-delay.ts';
import type { SubscribeSettings } from '../subscribe-options.ts';
import type { KafkaBusSettings } from './kafka-bus-options.ts';
import { isRevocation, toBusError } from './kafka-errors.ts';

/**
 * One member of a Kafka consumer group.
 *
 * kafkajs hands each fetched partition's batch to one of `concurrency` workers;
 * `eachBatch` walks the batch one message at a time, and after each handler
 * resolves commits that message's offset before taking the next. Auto-commit
 * and auto-resolve are off, so kafkajs never moves an offset on its own.
 *
 * Revocation: kafkajs rejoins a rebalancing group only after every running
 * batch has returned, and the broker accepts commits from the old generation
 * until then. So when a heartbeat reports a rebalance, each batch lets its
 * in-flight handler settle (the handler's signal is aborted), commits it, and
 * throws the rebalance error to let kafkajs rejoin; the next owner starts after
 * the last commit. While a handler runs, this member keeps heartbeating so that
 * a long handler does not get it dropped from the group.
 *
 * A rejected handler pauses its partition and resumes it after a backoff; the
 * message was neither committed nor resolved, so the next fetch returns it.
 *
 * Limit (kafkajs 2.x): a member fetches again only once every batch of its
 * previous fetch from that broker is done, so one slow partition holds back new
 * messages for the member's other partitions on that broker. Keep each message's
 * work bounded (small tasks) rather than long-running.
 */
export class KafkaSubscription implements Subscription {
  readonly groupId: string;
  readonly #consumer: Consumer;
  readonly #settings: SubscribeSettings;
  readonly #heartbeatIntervalMs: number;
  readonly #logger: Logger;
  readonly #onClosed: (subscription: KafkaSubscription) => void;
  readonly #joined: Promise<void>;
  #assignment: TopicPartitions[] = [];
  /** Aborted when this member's partitions are about to go: a rebalance, or close. */
  #generation = new AbortController();
  /** The heartbeat or commit error that told us the partitions are being revoked. */
  #revocation: Error | null = null;
  readonly #batches = new Set<Promise<void>>();
  readonly #failures = new Map<string, number>();
  readonly #resumeTimers = new Set<NodeJS.Timeout>();
  #closing = false;
  /** Restarts of the consumer since it last joined its group. */
  #restarts = 0;
  #stoppedBy: Error | null = null;
  #closed: Promise<void> | null = null;

  /**
   * Joins the group; resolves once this member has its first assignment.
   *
   * A retriable failure to join (the group's coordinator loading or moving, a
   * broker away) makes kafkajs restart the consumer after a backoff; the start
   * waits through those restarts for as long as they take, so a role stays
   * `starting` instead of failing. An error kafkajs does not retry fails the
   * start, and so does `signal` (the bus closing), with its reason.
   */
  static async start(
    kafka: Kafka,
    settings: SubscribeSettings,
    busSettings: KafkaBusSettings,
    logger: Logger,
    onClosed: (subscription: KafkaSubscription) => void,
    signal: AbortSignal,
  ): Promise<KafkaSubscription> {
    const consumer = kafka.consumer({
      groupId: settings.groupId,
      sessionTimeout: busSettings.sessionTimeoutMs,
      heartbeatInterval: busSettings.heartbeatIntervalMs,
      rebalanceTimeout: busSettings.rebalanceTimeoutMs,
      maxWaitTimeInMs: busSettings.maxWaitTimeMs,
      allowAutoTopicCreation: false,
    });
    const subscription = new KafkaSubscription(consumer, settings, busSettings.heartbeatIntervalMs, logger, onClosed);
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [...settings.topics], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: settings.concurrency,
        eachBatch: (payload) => subscription.#eachBatch(payload),
      });
      await untilSettled(subscription.#joined, signal);
    } catch (error) {
      subscription.#closing = true;
      await consumer.disconnect().catch(() => undefined);
      // The bus's own "bus is closed", not a Kafka failure.
      if (signal.aborted) throw signal.reason;
      throw toBusError(error, settings.topics.join(', '));
    }
    return subscription;
  }

  private constructor(
    consumer: Consumer,
    settings: SubscribeSettings,
    heartbeatIntervalMs: number,
    logger: Logger,
    onClosed: (subscription: KafkaSubscription) => void,
  ) {
    this.groupId = settings.groupId;
    this.#consumer = consumer;
    this.#settings = settings;
    this.#heartbeatIntervalMs = heartbeatIntervalMs;
    this.#logger = logger;
    this.#onClosed = onClosed;
    this.#joined = new Promise((resolve, reject) => {
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
        this.#generation = new AbortController();
        this.#revocation = null;
        this.#assignment = Object.entries(payload.memberAssignment).map(([topic, partitions]) => ({ topic, partitions: [...partitions].sort((a, b) => a - b) }));
        this.#logger.debug({ assignment: this.#assignment }, 'bus subscription assigned');
        if (this.#restarts > 0) this.#logger.info({ restarts: this.#restarts }, 'Kafka consumer joined its group again after restarting');
        this.#restarts = 0;
        resolve();
      });
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        this.#assignment = [];
        if (payload.restart) {
          // kafkajs rejoins after a backoff; the first join waits for that. One line per outage, not per restart.
          this.#restarts += 1;
          if (this.#restarts === 1) this.#logger.warn({ err: payload.error }, 'Kafka consumer crashed; restarting it until it joins its group');
          else this.#logger.debug({ err: payload.error, restarts: this.#restarts }, 'Kafka consumer restarting again');
          return;
        }
        if (!this.#closing) {
          this.#stoppedBy = payload.error;
          this.#logger.error({ err: payload.error }, 'Kafka consumer crashed and stopped');
        }
        reject(payload.error);
      });
    });
    // Crashes after the first join are reported above, not through this promise.
    this.#joined.catch(() => undefined);
    consumer.on(consumer.events.REBALANCING, () => {
      this.#assignment = [];
    });
  }

  assignment(): TopicPartitions[] {
    return this.#assignment.map(({ topic, partitions }) => ({ topic, partitions: [...partitions] }));
  }

  stoppedBy(): Error | null {
    return this.#stoppedBy;
  }

  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  async #shutdown(): Promise<void> {
    this.#closing = true;
    this.#generation.abort(new Error('subscription closing'));
    for (const timer of this.#resumeTimers) clearTimeout(timer);
    this.#resumeTimers.clear();
    try {
      // Stops fetches from returning more batches while in-flight ones drain.
      this.#consumer.pause(this.#settings.topics.map((topic) => ({ topic })));
    } catch {
      // The consumer is not running (it crashed); there is nothing to pause.
    }
    // Batches commit as they go: let them finish before leaving the group. (kafkajs'
    // own stop waits for them too; draining here keeps that guarantee ours.)
    while (this.#batches.size > 0) await Promise.allSettled([...this.#batches]);
    try {
      await this.#consumer.disconnect();
    } catch (error) {
      this.#logger.warn({ err: error }, 'Kafka consumer did not disconnect cleanly');
    }
    this.#assignment = [];
    this.#onClosed(this);
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const run = this.#processBatch(payload);
    this.#batches.add(run);
    try {
      await run;
    } finally {
      this.#batches.delete(run);
    }
  }

  async #processBatch(payload: EachBatchPayload): Promise<void> {
    const { topic, partition } = payload.batch;
    const heartbeat = (): Promise<void> => payload.heartbeat();
    const failureKey = `${topic}/${partition}`;
    for (const message of payload.batch.messages) {
      if (this.#closing || !payload.isRunning()) return;
      this.#throwIfRevoked();
      const signal = this.#generation.signal;
      const failure = await this.#handle(toBusMessage(topic, partition, message), signal, heartbeat);
      if (failure !== null) {
        if (this.#closing) return;
        this.#throwIfRevoked();
        const failures = (this.#failures.get(failureKey) ?? 0) + 1;
        this.#failures.set(failureKey, failures);
        this.#backOff(payload, failures, failure, message.offset);
        return;
      }
      this.#failures.delete(failureKey);
      await this.#commit(payload, message.offset);
      payload.resolveOffset(message.offset);
      await this.#beat(heartbeat);
    }
    this.#throwIfRevoked();
  }

  /** Runs the handler, heartbeating meanwhile; answers what it rejected with, or null. */
  async #handle(message: BusMessage, signal: AbortSignal, heartbeat: () => Promise<void>): Promise<unknown> {
    const keepAlive = setInterval(() => void this.#beat(heartbeat), this.#heartbeatIntervalMs);
    try {
      await this.#settings.handler(message, { signal });
      return null;
    } catch (error) {
      return error ?? new Error('handler rejected');
    } finally {
      clearInterval(keepAlive);
    }
  }

  async #commit(payload: EachBatchPayload, offset: string): Promise<void> {
    const { batch } = payload;
    const next = (BigInt(offset) + 1n).toString();
    try {
      // With explicit offsets this commits at once (no auto-commit threshold).
      await payload.commitOffsetsIfNecessary({ topics: [{ topic: batch.topic, partitions: [{ partition: batch.partition, offset: next }] }] });
    } catch (error) {
      this.#logger.warn({ err: error, topic: batch.topic, partition: batch.partition, offset }, 'commit failed; the message will be delivered again');
      if (isRevocation(error)) this.#revoked(error);
      // Thrown to kafkajs, which rejoins or restarts the fetch from the last commit.
      throw error;
    }
  }

  /** Pauses the partition and resumes it after a backoff; the next fetch starts at the failed message. */
  #backOff(payload: EachBatchPayload, failures: number, failure: unknown, offset: string): void {
    const { batch } = payload;
    const wait = retryDelay(failures, this.#settings.retry);
    this.#logger.warn(
      { err: failure, topic: batch.topic, partition: batch.partition, offset, failures, retryInMs: wait },
      'bus handler failed; retrying the message',
    );
    const resume = payload.pause();
    const timer = setTimeout(() => {
      this.#resumeTimers.delete(timer);
      resume();
    }, wait);
    this.#resumeTimers.add(timer);
  }

  async #beat(heartbeat: () => Promise<void>): Promise<void> {
    try {
      await heartbeat();
    } catch (error) {
      if (isRevocation(error)) this.#revoked(error);
      else this.#logger.debug({ err: error }, 'Kafka heartbeat failed');
    }
  }

  #revoked(error: unknown): void {
    this.#revocation ??= error instanceof Error ? error : new Error(String(error));
    this.#generation.abort(error);
  }

  #throwIfRevoked(): void {
    // Throwing the broker's own error makes kafkajs rejoin the group.
    if (this.#revocation !== null) throw this.#revocation;
  }
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function untilSettled(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function toBusMessage(topic: string, partition: number, message: KafkaMessage): BusMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    // Kafka allows a header name to repeat; Herald never repeats one, so the last wins.
    const last = Array.isArray(value) ? value.at(-1) : value;
    if (last !== undefined) headers[name] = last.toString();
  }
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value ?? Buffer.alloc(0),
    headers,
  };
}
