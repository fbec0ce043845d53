import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/core/clock.ts';
import { ServiceUnavailableError } from '../../../../src/core/errors.ts';
import { silentLogger } from '../../../../src/core/logger.ts';
import type { OutgoingMessage } from '../../../../src/core/ports/bus.ts';
import { OutcomeStream, type OutcomeStreamDeps } from '../../../../src/push/outcomes/stream/outcome-stream.ts';
import type { OutcomeDropReason, OutcomeStreamMetrics } from '../../../../src/push/outcomes/stream/outcome-stream-metrics.ts';
import { eventually } from '../../../support/eventually.ts';
import { deliveryEvent } from '../support/outcome-fixtures.ts';

const slice = { appId: 'shop', pushId: 'p1', sliceKey: 's0/0', endedAt: 0 };

/** A bus whose publish calls wait until the test lets them go, or fail while `failing`. */
class HeldBus {
  readonly published: OutgoingMessage[][] = [];
  readonly calls: OutgoingMessage[][] = [];
  failing = false;
  held = false;
  #release = Promise.withResolvers<void>();

  async publish(_topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    this.calls.push([...messages]);
    if (this.held) await this.#release.promise;
    if (this.failing) throw new ServiceUnavailableError('Kafka');
    this.published.push([...messages]);
  }

  letGo(): void {
    this.held = false;
    this.#release.resolve();
    this.#release = Promise.withResolvers<void>();
  }
}

class Counted implements OutcomeStreamMetrics {
  producedCount = 0;
  failures = 0;
  readonly drops = new Map<OutcomeDropReason, number>();
  pending: (() => number) | undefined;
  produced(count: number): void {
    this.producedCount += count;
  }
  dropped(reason: OutcomeDropReason, count: number): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + count);
  }
  produceFailed(): void {
    this.failures += 1;
  }
  trackPending(read: () => number): () => void {
    this.pending = read;
    return () => (this.pending = undefined);
  }
}

const streams: OutcomeStream[] = [];

function streamOver(bus: HeldBus, metrics: Counted, settings: Partial<OutcomeStreamDeps['settings']> = {}): OutcomeStream {
  const stream = new OutcomeStream({
    bus,
    topic: 'push.outcomes',
    settings: { maxPendingEvents: 1000, maxWaitMs: 200, maxBatchEvents: 100, ...settings },
    metrics,
    logger: silentLogger(),
    clock: systemClock,
    retry: { initialDelayMs: 10, maxDelayMs: 50 },
  });
  streams.push(stream);
  return stream;
}

afterEach(async () => {
  for (const stream of streams.splice(0)) await stream.close(0);
});

describe('the outcome stream', () => {
  it('produces each event keyed by its installation, as its id and JSON form, in batches and in order', async () => {
    const bus = new HeldBus();
    const metrics = new Counted();
    const events = Array.from({ length: 250 }, (_, n) => deliveryEvent(n % 7, { sliceKey: `s0/${n}` }));
    await streamOver(bus, metrics).record(slice, events);
    await eventually('250 produced', () => metrics.producedCount, (count) => count === 250);
    expect(bus.published.map((batch) => batch.length)).toEqual([100, 100, 50]);
    const messages = bus.published.flat();
    expect(messages.map((message) => message.key)).toEqual(events.map((event) => event.installation));
    expect(JSON.parse(messages[8]?.value as string)).toEqual({
      id: 'p1/s0/8/inst1',
      version: 1,
      appId: 'shop',
      pushId: 'p1',
      sliceKey: 's0/8',
      installation: 'inst1',
      tokenSuffix: '00000001',
      platform: 'ios',
      gateway: 'apns',
      outcome: 'invalidToken',
      reason: 'BadDeviceToken',
      unregistered: false,
      status: 400,
      messageId: null,
      attempts: 1,
      latencyMs: 3.5,
      at: '2026-11-27T12:00:00.001Z',
    });
  });

  it('keys a device without an installation by ~ and its token suffix', async () => {
    const bus = new HeldBus();
    const metrics = new Counted();
    await streamOver(bus, metrics).record(slice, [deliveryEvent(3, { installation: null, tokenSuffix: 'abcd1234' })]);
    await eventually('one produced', () => metrics.producedCount, (count) => count === 1);
    expect(bus.published[0]?.[0]?.key).toBe('~abcd1234');
  });

  it('answers a slice only once its events are produced, so a sender killed after the slice reported loses none', async () => {
    const bus = new HeldBus();
    bus.held = true;
    const metrics = new Counted();
    const stream = streamOver(bus, metrics, { maxWaitMs: 10_000 });
    let answered = false;
    const recording = stream.record(slice, Array.from({ length: 150 }, (_, i) => deliveryEvent(i))).then(() => (answered = true));
    await eventually('the first batch sent', () => bus.calls.length, (calls) => calls === 1);
    expect(answered).toBe(false);
    bus.letGo();
    await recording;
    expect(metrics.producedCount).toBe(150);
    expect(bus.published.map((batch) => batch.length)).toEqual([100, 50]);
  });

  it('lets a slice go after maxWaitMs while Kafka is slow, its events kept and produced when Kafka takes them', async () => {
    const bus = new HeldBus();
    bus.held = true;
    const metrics = new Counted();
    const stream = streamOver(bus, metrics, { maxWaitMs: 200 });
    const started = performance.now();
    await stream.record(slice, Array.from({ length: 60 }, (_, i) => deliveryEvent(i)));
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(190);
    expect(waited).toBeLessThan(1500);
    expect(metrics.producedCount).toBe(0);
    expect(metrics.pending?.()).toBe(60);
    expect(metrics.drops.size).toBe(0);
    bus.letGo();
    await eventually('the slice produced', () => metrics.producedCount, (count) => count === 60);
  });

  it('takes slices while Kafka is slow until its buffer is full; then waits at most maxWaitMs and drops what does not fit', async () => {
    const bus = new HeldBus();
    bus.held = true;
    const metrics = new Counted();
    const stream = streamOver(bus, metrics, { maxPendingEvents: 1000, maxWaitMs: 200 });
    const slices = Array.from({ length: 10 }, (_, n) => stream.record(slice, Array.from({ length: 100 }, (_, i) => deliveryEvent(n * 100 + i))));
    expect(metrics.pending?.()).toBe(1000);
    const started = performance.now();
    await stream.record(slice, Array.from({ length: 50 }, (_, i) => deliveryEvent(2000 + i)));
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(metrics.drops.get('buffer_full')).toBe(50);
    expect(metrics.pending?.()).toBe(1000);
    await Promise.all(slices);
    bus.letGo();
    await eventually('the buffer produced', () => metrics.producedCount, (count) => count === 1000);
  });

  it('takes a full buffer\'s events as room appears within maxWaitMs, and answers when they are produced', async () => {
    const bus = new HeldBus();
    bus.held = true;
    const metrics = new Counted();
    const stream = streamOver(bus, metrics, { maxPendingEvents: 1000, maxWaitMs: 5000, maxBatchEvents: 500 });
    const first = stream.record(slice, Array.from({ length: 1000 }, (_, i) => deliveryEvent(i)));
    const waiting = stream.record(slice, Array.from({ length: 300 }, (_, i) => deliveryEvent(5000 + i)));
    await eventually('the first batch sent', () => bus.calls.length, (calls) => calls === 1);
    const started = performance.now();
    bus.letGo();
    await Promise.all([first, waiting]);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(metrics.drops.get('buffer_full') ?? 0).toBe(0);
    expect(metrics.producedCount).toBe(1300);
  });

  it('counts a failed produce and sends the batch again, so nothing is lost while Kafka is away', async () => {
    const bus = new HeldBus();
    bus.failing = true;
    const metrics = new Counted();
    const stream = streamOver(bus, metrics);
    await stream.record(slice, Array.from({ length: 30 }, (_, i) => deliveryEvent(i)));
    await eventually('failures counted', () => metrics.failures, (failures) => failures >= 3);
    bus.failing = false;
    await eventually('the events produced', () => metrics.producedCount, (count) => count === 30);
    expect(bus.published.flat().map((message) => message.key)).toEqual(Array.from({ length: 30 }, (_, i) => `inst${i}`));
    // Every attempt carried the same batch.
    expect(new Set(bus.calls.map((call) => call.length))).toEqual(new Set([30]));
  });

  it('on close produces what it holds within the drain time, then drops the rest as shutdown', async () => {
    const bus = new HeldBus();
    const metrics = new Counted();
    const stream = streamOver(bus, metrics);
    await stream.record(slice, Array.from({ length: 40 }, (_, i) => deliveryEvent(i)));
    await stream.close(5000);
    expect(metrics.producedCount).toBe(40);

    const stuck = new HeldBus();
    stuck.held = true;
    const stuckMetrics = new Counted();
    const held = streamOver(stuck, stuckMetrics, { maxWaitMs: 10_000 });
    const waiting = held.record(slice, Array.from({ length: 40 }, (_, i) => deliveryEvent(i)));
    const started = performance.now();
    await held.close(100);
    // The slice waiting for its events is let go by the close, not its deadline.
    await waiting;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(stuckMetrics.drops.get('shutdown')).toBe(40);
    await held.record(slice, [deliveryEvent(99)]);
    expect(stuckMetrics.drops.get('shutdown')).toBe(41);
    stuck.letGo();
  });
});
