import type { Kafka, Producer, ProducerRecord, RecordMetadata } from 'kafkajs';
import { LazyConnection } from './lazy-connection.ts';

/** What the producer is made with. */
export interface ProducerSettings {
  readonly idempotent: boolean;
  readonly maxInFlightRequests: number;
  readonly retries: number;
  readonly createPartitioner: NonNullable<Parameters<Kafka['producer']>[0]>['createPartitioner'];
}

interface Generation {
  readonly connection: LazyConnection<Producer>;
  inFlight: number;
  retired: boolean;
}

/**
 * The bus's producer, kept safe to be idempotent with kafkajs.
 *
 * An idempotent producer numbers each partition's batches; a batch sent again
 * with its number is written once. kafkajs takes the numbers back when a
 * request fails, so that the retry reuses them. That is right for the retry,
 * wrong for anything else sent to the partition before it: had the failed
 * request been written after all (its answer lost with a broker), a
 * different batch under the reused numbers is taken for the duplicate and
 * silently dropped. So:
 *
 * - sends to one partition run one at a time (`send` awaits the previous),
 *   and only the retries of a send reuse its numbers;
 * - after a send fails for good, the producer is replaced: the next one has
 *   a new producer id, whose numbers nothing has used. The old one closes
 *   once its sends have settled.
 *
 * kafkajs already sends one request at a time to each broker when
 * idempotent, so the first costs little. Without idempotence none of this
 * applies and sends run freely.
 */
export class IdempotentProducer {
  readonly #kafka: Kafka;
  readonly #settings: ProducerSettings;
  readonly #queues = new Map<string, Promise<unknown>>();
  #current: Generation;

  constructor(kafka: Kafka, settings: ProducerSettings) {
    this.#kafka = kafka;
    this.#settings = settings;
    this.#current = this.#generation();
  }

  /** Sends a batch to one partition, after the sends to it before; rejects as the send does. */
  send(partitionKey: string, record: ProducerRecord): Promise<RecordMetadata[]> {
    if (!this.#settings.idempotent) return this.#sendOn(this.#current, record);
    const previous = this.#queues.get(partitionKey) ?? Promise.resolve();
    const sent = previous.catch(() => undefined).then(() => this.#sendOn(this.#current, record));
    const settled = sent.catch(() => undefined);
    this.#queues.set(partitionKey, settled);
    void settled.then(() => {
      if (this.#queues.get(partitionKey) === settled) this.#queues.delete(partitionKey);
    });
    return sent;
  }

  /** Connects the producer now (its producer id is asked for on connect). */
  async connect(): Promise<void> {
    await this.#current.connection.get();
  }

  async close(): Promise<void> {
    const current = this.#current;
    current.retired = true;
    await current.connection.close();
  }

  async #sendOn(generation: Generation, record: ProducerRecord): Promise<RecordMetadata[]> {
    generation.inFlight += 1;
    try {
      const producer = await generation.connection.get();
      return await producer.send(record);
    } catch (error) {
      if (this.#settings.idempotent) this.#retire(generation);
      throw error;
    } finally {
      generation.inFlight -= 1;
      if (generation.retired && generation.inFlight === 0 && generation !== this.#current) void generation.connection.close().catch(() => undefined);
    }
  }

  /** Puts a new producer in `generation`'s place, unless that happened already. */
  #retire(generation: Generation): void {
    if (generation !== this.#current) return;
    generation.retired = true;
    this.#current = this.#generation();
  }

  #generation(): Generation {
    const { idempotent, maxInFlightRequests, retries, createPartitioner } = this.#settings;
    const producer = this.#kafka.producer({
      createPartitioner,
      allowAutoTopicCreation: false,
      idempotent,
      maxInFlightRequests,
      // Bounded, idempotent or not (kafkajs would retry an idempotent send for ever): a publish during an
      // outage fails, and its caller answers 503 or tries the message again later. Idempotence needs one retry at least.
      retry: { retries: idempotent ? Math.max(1, retries) : retries, initialRetryTime: 100, maxRetryTime: 5_000 },
    });
    return { connection: new LazyConnection(producer), inFlight: 0, retired: false };
  }
}
