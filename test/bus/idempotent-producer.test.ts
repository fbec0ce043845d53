import type { Kafka, ProducerRecord, RecordMetadata } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { IdempotentProducer } from '../../src/bus/kafka/idempotent-producer.ts';

/** A producer kafkajs would make: sends wait until the test settles them. */
class FakeProducer {
  readonly id: number;
  readonly options: Record<string, unknown>;
  readonly pending: { record: ProducerRecord; resolve: (value: RecordMetadata[]) => void; reject: (error: Error) => void }[] = [];
  disconnected = false;

  constructor(id: number, options: Record<string, unknown>) {
    this.id = id;
    this.options = options;
  }

  connect(): Promise<void> {
    return Promise.resolve();
  }

  disconnect(): Promise<void> {
    this.disconnected = true;
    return Promise.resolve();
  }

  send(record: ProducerRecord): Promise<RecordMetadata[]> {
    return new Promise((resolve, reject) => this.pending.push({ record, resolve, reject }));
  }
}

function fakeKafka(): { kafka: Kafka; producers: FakeProducer[] } {
  const producers: FakeProducer[] = [];
  const kafka = {
    producer: (options: Record<string, unknown>) => {
      const producer = new FakeProducer(producers.length, options);
      producers.push(producer);
      return producer;
    },
  } as unknown as Kafka;
  return { kafka, producers };
}

const settings = { idempotent: true, maxInFlightRequests: 5, retries: 5, createPartitioner: undefined };
const record = (value: string): ProducerRecord => ({ topic: 't', acks: -1, messages: [{ value }] });
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('IdempotentProducer', () => {
  it('makes an idempotent kafkajs producer with bounded retries and at most five requests in flight', () => {
    const { kafka, producers } = fakeKafka();
    new IdempotentProducer(kafka, settings);
    expect(producers[0]?.options).toMatchObject({ idempotent: true, maxInFlightRequests: 5, allowAutoTopicCreation: false, retry: { retries: 5 } });
  });

  it('sends to one partition one batch at a time, and to others at once', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = new IdempotentProducer(kafka, settings);
    const first = producer.send('t/0', record('a'));
    const second = producer.send('t/0', record('b'));
    const other = producer.send('t/1', record('c'));
    await settle();
    const fake = producers[0]!;
    expect(fake.pending.map((entry) => entry.record.messages[0]?.value)).toEqual(['a', 'c']);
    fake.pending.shift()!.resolve([]);
    await first;
    await settle();
    expect(fake.pending.map((entry) => entry.record.messages[0]?.value)).toEqual(['c', 'b']);
    for (const entry of fake.pending.splice(0)) entry.resolve([]);
    await Promise.all([second, other]);
  });

  it('puts a new producer (a new producer id) in place after a send fails, and closes the old one once its sends are done', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = new IdempotentProducer(kafka, settings);
    const failing = producer.send('t/0', record('lost answer'));
    const elsewhere = producer.send('t/1', record('in flight'));
    const after = producer.send('t/0', record('next'));
    await settle();
    const old = producers[0]!;
    old.pending.shift()!.reject(new Error('connection closed'));
    await expect(failing).rejects.toThrow('connection closed');
    await settle();
    // The next batch of the partition goes out on a producer whose numbers nothing has used.
    expect(producers).toHaveLength(2);
    expect(producers[1]!.pending.map((entry) => entry.record.messages[0]?.value)).toEqual(['next']);
    expect(old.disconnected).toBe(false);
    old.pending.shift()!.resolve([]);
    await elsewhere;
    await settle();
    expect(old.disconnected).toBe(true);
    producers[1]!.pending.shift()!.resolve([]);
    await after;
  });

  it('without idempotence sends freely and keeps its producer after a failure', async () => {
    const { kafka, producers } = fakeKafka();
    const producer = new IdempotentProducer(kafka, { ...settings, idempotent: false });
    const one = producer.send('t/0', record('a'));
    const two = producer.send('t/0', record('b'));
    await settle();
    expect(producers[0]!.pending).toHaveLength(2);
    producers[0]!.pending.shift()!.reject(new Error('refused'));
    producers[0]!.pending.shift()!.resolve([]);
    await expect(one).rejects.toThrow('refused');
    await two;
    expect(producers).toHaveLength(1);
  });
});
