import type { Logger } from '../../core/logger.ts';
import type { OutgoingMessage } from '../../core/ports/bus.ts';
import { partitionForKey } from '../key-partition.ts';
import { PartitionLog } from './partition-log.ts';

/** What a topic needs to know about a group reading it: how far it has committed. */
export interface TopicReader {
  committedOffset(topic: string, partition: number): number | undefined;
}

/**
 * A topic of the in-process bus. Memory is bounded two ways: a message is
 * dropped once every group reading the topic has committed it, and a partition
 * never holds more than `maxMessagesPerPartition` (the oldest go first, read or
 * not, like Kafka's size retention).
 */
export class MemoryTopic {
  readonly name: string;
  readonly partitions: readonly PartitionLog[];
  readonly #readers = new Set<TopicReader>();
  readonly #maxMessagesPerPartition: number;
  readonly #logger: Logger;

  constructor(name: string, partitions: number, maxMessagesPerPartition: number, logger: Logger) {
    this.name = name;
    this.partitions = Array.from({ length: partitions }, () => new PartitionLog());
    this.#maxMessagesPerPartition = maxMessagesPerPartition;
    this.#logger = logger;
  }

  log(partition: number): PartitionLog {
    const log = this.partitions[partition];
    if (log === undefined) throw new RangeError(`topic ${this.name} has no partition ${partition}`);
    return log;
  }

  append(messages: readonly OutgoingMessage[]): void {
    for (const message of messages) {
      const partition = partitionForKey(message.key, this.partitions.length);
      const log = this.log(partition);
      log.append({
        key: message.key,
        // Copied so that a caller reusing its buffer cannot change what was published.
        value: typeof message.value === 'string' ? Buffer.from(message.value, 'utf8') : Buffer.from(message.value),
        headers: Object.freeze({ ...message.headers }),
      });
      if (log.size > this.#maxMessagesPerPartition) {
        log.trimTo(log.endOffset - this.#maxMessagesPerPartition);
        this.#logger.warn({ topic: this.name, partition, startOffset: log.startOffset }, 'partition over its retention limit; dropped the oldest message');
      }
    }
  }

  addReader(reader: TopicReader): void {
    this.#readers.add(reader);
  }

  /** Drops the messages every reading group has committed. */
  release(partition: number): void {
    const log = this.log(partition);
    let keepFrom = Infinity;
    for (const reader of this.#readers) {
      keepFrom = Math.min(keepFrom, reader.committedOffset(this.name, partition) ?? log.startOffset);
    }
    if (keepFrom !== Infinity) log.trimTo(keepFrom);
  }
}
