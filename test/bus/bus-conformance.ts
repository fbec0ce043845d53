import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partitionForKey } from '../../src/bus/key-partition.ts';
import { UnknownTopicError, type Bus, type MessageHandler, type SubscribeOptions, type Subscription } from '../../src/core/ports/bus.ts';
import { eventually } from '../support/eventually.ts';
import { withDeadline } from '../support/with-deadline.ts';
import { aborted, Deliveries, keysForPartitions } from './deliveries.ts';

/** Long enough for a Kafka group to form, rebalance and commit on a loaded machine. */
const groupWaitMs = 20_000;

/** What a test created on the bus, for adapters backed by a shared server to remove. */
export interface CreatedOnBus {
  topics: string[];
  groups: string[];
}

export interface BusUnderTest {
  bus: Bus;
  /** Closes the bus and removes what the test created. */
  cleanup(created: CreatedOnBus): Promise<void>;
}

/** Partitions each member owns, as one sorted list (topics here have one topic per test). */
function owned(subscription: Subscription): number[] {
  return subscription.assignment().flatMap((entry) => entry.partitions).sort((a, b) => a - b);
}

/** Waits until `members` own the partitions `0 … partitions - 1` between them, each at least one, and none twice. */
async function splitBetween(members: Subscription[], partitions: number): Promise<void> {
  const all = Array.from({ length: partitions }, (_, partition) => partition).join(',');
  await eventually(
    `${members.length} members to own the ${partitions} partitions between them`,
    () => members.map(owned),
    (owns) => owns.every((mine) => mine.length > 0) && owns.flat().sort((a, b) => a - b).join(',') === all,
    { timeoutMs: groupWaitMs },
  );
}

/**
 * The behaviour every `Bus` adapter must share. Topic and group names are
 * random per test, so adapters on a shared broker need no reset between tests.
 */
export function describeBusConformance(name: string, make: () => Promise<BusUnderTest>): void {
  describe(`${name} (Bus conformance)`, () => {
    let subject: BusUnderTest;
    let bus: Bus;
    let created: CreatedOnBus;

    beforeEach(async () => {
      subject = await make();
      bus = subject.bus;
      created = { topics: [], groups: [] };
    });

    afterEach(async () => {
      await subject.cleanup(created);
    });

    function topicName(): string {
      const topic = `conformance.${randomUUID()}`;
      created.topics.push(topic);
      return topic;
    }

    async function newTopic(partitions: number): Promise<string> {
      const topic = topicName();
      await bus.ensureTopics([{ name: topic, partitions }]);
      return topic;
    }

    function newGroup(): string {
      const groupId = `conformance.${randomUUID()}`;
      created.groups.push(groupId);
      return groupId;
    }

    function subscribe(topic: string, groupId: string, handler: MessageHandler, options: Partial<SubscribeOptions> = {}): Promise<Subscription> {
      return bus.subscribe({ groupId, topics: [topic], handler, retry: { initialDelayMs: 10, maxDelayMs: 50 }, ...options });
    }

    it('creates topics with the partition count asked for and leaves existing ones as they are', async () => {
      const wide = topicName();
      const narrow = topicName();
      expect(await bus.ensureTopics([{ name: wide, partitions: 3 }, { name: narrow, partitions: 1 }])).toEqual([
        { name: wide, partitions: 3, created: true },
        { name: narrow, partitions: 1, created: true },
      ]);
      expect(await bus.ensureTopics([{ name: wide, partitions: 5 }])).toEqual([{ name: wide, partitions: 3, created: false }]);
    });

    it('refuses to publish or subscribe to a topic that was never created', async () => {
      const missing = `conformance.missing.${randomUUID()}`;
      await expect(bus.publish(missing, [{ key: 'k', value: 'v' }])).rejects.toThrow(new UnknownTopicError(missing));
      await expect(subscribe(missing, newGroup(), () => Promise.resolve())).rejects.toMatchObject({ name: 'UnknownTopicError', topic: missing });
      // Refusing created nothing: the topic is still unknown.
      await expect(bus.publish(missing, [{ key: 'k', value: 'v' }])).rejects.toMatchObject({ topic: missing });
    });

    it('reports the lag of a group: everything before it reads, nothing once it has committed all', async () => {
      const topic = await newTopic(3);
      const groupId = newGroup();
      await bus.publish(topic, Array.from({ length: 7 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })));
      expect(await bus.lag(groupId, topic)).toBe(7);
      const deliveries = new Deliveries();
      await subscribe(topic, groupId, (message) => Promise.resolve(deliveries.record('a', message)));
      await deliveries.count(7);
      await expect.poll(() => bus.lag(groupId, topic), { timeout: groupWaitMs, interval: 50, message: 'lag of a group that handled everything' }).toBe(0);
      await bus.publish(topic, [{ key: 'late', value: 'x' }]);
      await deliveries.count(8);
      await expect.poll(() => bus.lag(groupId, topic), { timeout: groupWaitMs, interval: 50, message: 'lag of a group that handled everything' }).toBe(0);
    });

    it('delivers key, value and headers as published', async () => {
      const topic = await newTopic(2);
      const deliveries = new Deliveries();
      await subscribe(topic, newGroup(), (message) => Promise.resolve(deliveries.record('a', message)));
      await bus.publish(topic, [
        { key: 'binary', value: Buffer.from([0, 1, 2, 255]), headers: { kind: 'task', 'trace-id': 'abc' } },
        { key: 'text', value: 'héllo' },
      ]);
      await deliveries.count(2);
      const byKey = new Map(deliveries.all.map(({ message }) => [message.key, message]));
      expect(byKey.get('binary')).toMatchObject({ topic, offset: '0', headers: { kind: 'task', 'trace-id': 'abc' } });
      expect(byKey.get('binary')?.value).toEqual(Buffer.from([0, 1, 2, 255]));
      expect(byKey.get('text')?.value.toString('utf8')).toBe('héllo');
      expect(byKey.get('text')?.headers).toEqual({});
    });

    it("handles each key's messages in publish order, on the key's partition, one at a time per partition", async () => {
      const partitions = 4;
      const topic = await newTopic(partitions);
      const keys = Array.from({ length: 12 }, (_, index) => `shard-${index}`);
      const perKey = 20;
      const deliveries = new Deliveries();
      const busy = new Set<number>();
      let overlapped = false;
      await subscribe(
        topic,
        newGroup(),
        async (message) => {
          if (busy.has(message.partition)) overlapped = true;
          busy.add(message.partition);
          // Yield so a second message of the same partition would have the chance to start.
          await new Promise<void>((resolve) => setImmediate(resolve));
          busy.delete(message.partition);
          deliveries.record('a', message);
        },
        { concurrency: partitions },
      );
      // Keys interleaved, in three publishes awaited one after another.
      for (const [from, to] of [[0, 7], [7, 14], [14, perKey]] as const) {
        const messages = [];
        for (let sequence = from; sequence < to; sequence += 1) {
          for (const key of keys) messages.push({ key, value: `${key}#${sequence}` });
        }
        await bus.publish(topic, messages);
      }

      await deliveries.count(keys.length * perKey);
      expect(overlapped).toBe(false);
      for (const key of keys) {
        const ofKey = deliveries.all.filter((delivery) => delivery.message.key === key);
        expect(ofKey.map((delivery) => delivery.text)).toEqual(Array.from({ length: perKey }, (_, sequence) => `${key}#${sequence}`));
        expect(new Set(ofKey.map((delivery) => delivery.message.partition))).toEqual(new Set([partitionForKey(key, partitions)]));
      }
    });

    it('handles different partitions at the same time', async () => {
      const topic = await newTopic(2);
      const [first, second] = keysForPartitions(2);
      await bus.publish(topic, [
        { key: first!, value: 'waits for the other partition' },
        { key: second!, value: 'unblocks it' },
      ]);
      const otherDone = Promise.withResolvers<void>();
      const deliveries = new Deliveries();
      await subscribe(
        topic,
        newGroup(),
        async (message) => {
          if (message.partition === 0) await otherDone.promise;
          deliveries.record('a', message);
          otherDone.resolve();
        },
        { concurrency: 2 },
      );
      await deliveries.count(2);
      expect(deliveries.texts()).toEqual(['unblocks it', 'waits for the other partition']);
    });

    it('splits partitions between the members of a group, handles each message once, and gives a leaving member’s partitions to the others', async () => {
      const partitions = 4;
      const topic = await newTopic(partitions);
      const groupId = newGroup();
      const deliveries = new Deliveries();
      const record = (member: string): MessageHandler => (message) => Promise.resolve(deliveries.record(member, message));
      const first = await subscribe(topic, groupId, record('first'));
      const second = await subscribe(topic, groupId, record('second'));
      await splitBetween([first, second], partitions);
      const firstOwns = owned(first);
      const keys = keysForPartitions(partitions);
      await bus.publish(topic, Array.from({ length: 40 }, (_, index) => ({ key: keys[index % partitions]!, value: `before-${index}` })));
      await deliveries.count(40);
      expect(deliveries.texts().sort()).toEqual(Array.from({ length: 40 }, (_, index) => `before-${index}`).sort());
      for (const { member, message } of deliveries.all) {
        expect(firstOwns.includes(message.partition)).toBe(member === 'first');
      }

      await second.close();
      await splitBetween([first], partitions);
      await bus.publish(topic, Array.from({ length: 8 }, (_, index) => ({ key: keys[index % partitions]!, value: `after-${index}` })));
      await deliveries.count(48);
      expect(deliveries.all.slice(40).map((delivery) => delivery.member)).toEqual(Array(8).fill('first'));
    });

    it('gives every group every message, and a group that joins late starts at the oldest one', async () => {
      const topic = await newTopic(3);
      const early = new Deliveries();
      await subscribe(topic, newGroup(), (message) => Promise.resolve(early.record('early', message)));
      const values = Array.from({ length: 15 }, (_, index) => `message-${index}`);
      await bus.publish(topic, values.map((value, index) => ({ key: `key-${index % 5}`, value })));
      const late = new Deliveries();
      await subscribe(topic, newGroup(), (message) => Promise.resolve(late.record('late', message)));
      await Promise.all([early.count(15), late.count(15)]);
      expect(early.texts().sort()).toEqual([...values].sort());
      expect(late.texts().sort()).toEqual([...values].sort());
    });

    it('delivers a message again to the next member when its handler had not settled well when the member closed', async () => {
      const topic = await newTopic(1);
      const groupId = newGroup();
      const before = new Deliveries();
      const first = await subscribe(topic, groupId, async (message, { signal }) => {
        before.record('first', message);
        if (message.value.toString() !== 'in flight') return;
        await aborted(signal);
        throw new Error('stopped before finishing');
      });
      await bus.publish(topic, ['committed', 'in flight', 'never reached'].map((value) => ({ key: 'k', value })));
      // The second message only starts once the first has settled and been committed.
      await before.count(2);
      await first.close();

      const after = new Deliveries();
      await subscribe(topic, groupId, (message) => Promise.resolve(after.record('second', message)));
      await after.until("the second member to reach 'never reached'", (all) => all.some((delivery) => delivery.text === 'never reached'));
      expect(before.texts()).toEqual(['committed', 'in flight']);
      expect(after.texts()).toEqual(['in flight', 'never reached']);
    });

    it('lets in-flight handlers finish on close, commits them, and starts no new ones', async () => {
      const topic = await newTopic(1);
      const groupId = newGroup();
      const started = Promise.withResolvers<AbortSignal>();
      const release = Promise.withResolvers<void>();
      const events: string[] = [];
      const before = new Deliveries();
      const first = await subscribe(topic, groupId, async (message, { signal }) => {
        before.record('first', message);
        started.resolve(signal);
        await release.promise;
        events.push('handler finished');
      });
      await bus.publish(topic, ['slow', 'next'].map((value) => ({ key: 'k', value })));
      const signal = await withDeadline(started.promise, 'the slow handler to start', { timeoutMs: groupWaitMs });

      const closing = first.close().then(() => events.push('closed'));
      await aborted(signal);
      expect(events).toEqual([]);
      // A turn of the event loop later, so that a close which did not wait would have resolved first.
      setImmediate(() => release.resolve());
      await closing;
      expect(events).toEqual(['handler finished', 'closed']);

      const after = new Deliveries();
      await subscribe(topic, groupId, (message) => Promise.resolve(after.record('second', message)));
      await after.count(1);
      expect(before.texts()).toEqual(['slow']);
      expect(after.texts()).toEqual(['next']);
    });

    it('offers a rejected message again after a backoff, and holds back the rest of its partition until it succeeds', async () => {
      const topic = await newTopic(1);
      const attempts = new Deliveries();
      let failuresLeft = 2;
      await subscribe(topic, newGroup(), (message) => {
        attempts.record('a', message);
        if (message.value.toString() === 'flaky' && failuresLeft > 0) {
          failuresLeft -= 1;
          return Promise.reject(new Error('dependency down'));
        }
        return Promise.resolve();
      });
      await bus.publish(topic, ['flaky', 'after'].map((value) => ({ key: 'k', value })));
      await attempts.count(4);
      expect(attempts.texts()).toEqual(['flaky', 'flaky', 'flaky', 'after']);
      expect(new Set(attempts.all.slice(0, 3).map((attempt) => attempt.message.offset))).toEqual(new Set(['0']));
    });

    it('hands partitions over in a rebalance only after in-flight handlers settle and commit', async () => {
      const topic = await newTopic(2);
      const groupId = newGroup();
      const [zero, one] = keysForPartitions(2);
      const events: string[] = [];
      const deliveries = new Deliveries();
      const inFlight = Promise.withResolvers<AbortSignal>();
      const handler =
        (member: string): MessageHandler =>
        async (message, { signal }) => {
          deliveries.record(member, message);
          // Only the first delivery is slow, so that a redelivery shows up as a failed expectation, not a hang.
          if (message.value.toString() !== 'slow' || events.includes('slow started')) return;
          events.push('slow started');
          inFlight.resolve(signal);
          // Finishes its work once asked to let go: it is committed, not redelivered.
          await aborted(signal);
          events.push('slow settled');
        };
      const first = await subscribe(topic, groupId, handler('first'));
      await bus.publish(topic, [{ key: zero!, value: 'slow' }]);
      const signal = await withDeadline(inFlight.promise, 'the slow handler to start', { timeoutMs: groupWaitMs });

      const joining = subscribe(topic, groupId, handler('second')).then((subscription) => {
        events.push('second joined');
        return subscription;
      });
      await aborted(signal);
      const second = await joining;
      expect(events).toEqual(['slow started', 'slow settled', 'second joined']);

      await splitBetween([first, second], 2);
      const later = Array.from({ length: 10 }, (_, index) => ({ key: index % 2 === 0 ? zero! : one!, value: `later-${index}` }));
      await bus.publish(topic, later);
      await deliveries.count(11);
      expect(deliveries.texts().sort()).toEqual(['slow', ...later.map((message) => message.value)].sort());
      expect(owned(first).length + owned(second).length).toBe(2);
    });

    it('answers ping, closes idempotently, and refuses work once closed', async () => {
      const topic = await newTopic(1);
      const subscription = await subscribe(topic, newGroup(), () => Promise.resolve());
      await expect(bus.ping()).resolves.toBeUndefined();
      await Promise.all([bus.close(), bus.close()]);
      await bus.close();
      expect(subscription.assignment()).toEqual([]);
      await expect(bus.publish(topic, [{ key: 'k', value: 'v' }])).rejects.toThrow('closed');
      await expect(bus.ping()).rejects.toThrow('closed');
    });
  });
}
