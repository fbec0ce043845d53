import type { Admin } from 'kafkajs';

/** How long a topic's partition count is trusted before it is asked again (an operator may add partitions). */
export const partitionCountTtlMs = 60_000;

interface Entry {
  partitions: number;
  expiresAt: number;
}

/**
 * Partition counts of the topics this bus publishes to, asked of the brokers
 * once a minute at most. Publishing needs them to split a publish into one
 * request per partition (see `KafkaBus.publish`). A count that led to a failed
 * publish is forgotten, so a topic deleted and created again is asked anew.
 */
export class PartitionCounts {
  readonly #admin: () => Promise<Pick<Admin, 'fetchTopicMetadata'>>;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #loading = new Map<string, Promise<number>>();

  constructor(admin: () => Promise<Pick<Admin, 'fetchTopicMetadata'>>, now: () => number = Date.now) {
    this.#admin = admin;
    this.#now = now;
  }

  /** The topic's partition count; rejects as kafkajs does for a topic the brokers do not know. */
  of(topic: string): Promise<number> {
    const entry = this.#entries.get(topic);
    if (entry !== undefined && entry.expiresAt > this.#now()) return Promise.resolve(entry.partitions);
    let loading = this.#loading.get(topic);
    if (loading === undefined) {
      loading = this.#load(topic).finally(() => this.#loading.delete(topic));
      this.#loading.set(topic, loading);
    }
    return loading;
  }

  /** Records a count learnt elsewhere (from `ensureTopics`). */
  remember(topic: string, partitions: number): void {
    if (partitions > 0) this.#entries.set(topic, { partitions, expiresAt: this.#now() + partitionCountTtlMs });
  }

  forget(topic: string): void {
    this.#entries.delete(topic);
  }

  async #load(topic: string): Promise<number> {
    const admin = await this.#admin();
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = metadata.topics.find((candidate) => candidate.name === topic)?.partitions.length ?? 0;
    if (partitions === 0) throw Object.assign(new Error(`topic ${topic} has no partitions`), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    this.remember(topic, partitions);
    return partitions;
  }
}
