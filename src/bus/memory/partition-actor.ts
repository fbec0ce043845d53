import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../../core/logger.ts';
import type { BusMessage } from '../../core/ports/bus.ts';
import { retryDelay } from '../../core/retry-delay.ts';
import type { SubscribeSettings } from '../subscribe-options.ts';
import type { ConcurrencySlots } from './concurrency-slots.ts';
import type { MemoryGroup } from './memory-group.ts';
import type { MemoryTopic } from './memory-topic.ts';

export interface PartitionActorContext {
  topic: MemoryTopic;
  partition: number;
  group: MemoryGroup;
  settings: SubscribeSettings;
  slots: ConcurrencySlots;
  logger: Logger;
}

/**
 * Consumes one partition for one member: reads the message after the group's
 * last commit, hands it to the handler, commits when the handler resolves, and
 * repeats. A rejection commits nothing, so the same message comes back after a
 * backoff. Stopping lets the in-flight handler settle first.
 */
export class PartitionActor {
  readonly #context: PartitionActorContext;
  readonly #controller = new AbortController();
  readonly #done: Promise<void>;

  constructor(context: PartitionActorContext) {
    this.#context = context;
    this.#done = this.#run();
  }

  /** Resolves once the in-flight handler (if any) has settled and been committed. */
  stop(): Promise<void> {
    this.#controller.abort(new Error('partition revoked'));
    return this.#done;
  }

  async #run(): Promise<void> {
    const { topic, partition, group, settings, slots, logger } = this.#context;
    const signal = this.#controller.signal;
    const log = topic.log(partition);
    let failures = 0;
    while (!signal.aborted) {
      const offset = group.position(topic, partition);
      const record = log.read(offset);
      if (record === undefined) {
        await log.nextAppend(signal);
        continue;
      }
      const release = await slots.acquire(signal);
      if (release === null) break;
      const message: BusMessage = {
        topic: topic.name,
        partition,
        offset: String(offset),
        key: record.key,
        // A fresh copy per delivery, as a Kafka fetch would give.
        value: Buffer.from(record.value),
        headers: { ...record.headers },
      };
      let failure: unknown = null;
      try {
        await settings.handler(message, { signal });
        group.commit(topic, partition, offset + 1);
        failures = 0;
      } catch (error) {
        failure = error ?? new Error('handler rejected');
      } finally {
        release();
      }
      if (failure === null) continue;
      if (signal.aborted) {
        logger.debug({ err: failure, topic: topic.name, partition, offset }, 'bus handler gave up its message on revocation; left for the next owner');
        break;
      }
      failures += 1;
      const wait = retryDelay(failures, settings.retry);
      logger.warn({ err: failure, topic: topic.name, partition, offset, failures, retryInMs: wait }, 'bus handler failed; retrying the message');
      await delay(wait, undefined, { signal }).catch(() => undefined);
    }
  }
}
