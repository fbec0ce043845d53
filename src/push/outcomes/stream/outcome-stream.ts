import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../../core/clock.ts';
import type { Logger } from '../../../core/logger.ts';
import type { OutgoingMessage } from '../../../core/ports/bus.ts';
import type { OutcomeStreamConfig } from '../../../config/outcome-stream-schema.ts';
import { LogThrottle } from '../../gateways/log-throttle.ts';
import type { DeliveryEvent } from '../delivery-event.ts';
import type { DeliveryEvents, DeliverySlice } from '../delivery-events.ts';
import { outcomeMessage } from './outcome-message.ts';
import type { OutcomeDropReason, OutcomeStreamMetrics } from './outcome-stream-metrics.ts';

export interface OutcomeStreamDeps {
  bus: { publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> };
  /** `<prefix>push.outcomes`. */
  topic: string;
  settings: Pick<OutcomeStreamConfig, 'maxPendingEvents' | 'maxWaitMs' | 'maxBatchEvents'>;
  metrics: OutcomeStreamMetrics;
  logger: Logger;
  clock: Clock;
  /** Waits before a failed batch is produced again: from `initialDelayMs`, doubling to `maxDelayMs`. Default 200 ms to 10 s. */
  retry?: { initialDelayMs: number; maxDelayMs: number };
}

const recorded = Promise.resolve();

/**
 * The outcome stream's sink: each slice's delivery events go into a bounded
 * buffer; one loop produces the buffer in batches of up to `maxBatchEvents`
 * on the outcome topic, one batch at a time, so a device's events reach its
 * partition in the order they were made, and the events of slices ending
 * together share a produce call.
 *
 * `record` answers once the slice's events are written (acks=all), as the
 * slice's next task is, so a sender killed after its slice reported loses
 * none of them; but never later than `maxWaitMs`: then the slice goes on and
 * its events stay buffered, produced when Kafka takes them. A batch the
 * producer fails to send after its own retries is counted and sent again
 * after a pause, while the buffer takes new events up to `maxPendingEvents`;
 * what a full buffer has no room for within `maxWaitMs` is dropped and
 * counted. So Kafka being slow or away costs a slice a bounded wait, never
 * memory.
 *
 * At least once: a batch sent again after a failure may have been written
 * in part, and a redone slice produces its events again; consumers drop
 * repeats by the event's `id` (docs/outcome-stream.md).
 */
export class OutcomeStream implements DeliveryEvents {
  readonly #deps: OutcomeStreamDeps;
  readonly #throttle: LogThrottle;
  #pending: DeliveryEvent[] = [];
  #head = 0;
  /** Events ever appended, and ever produced (or given up at shutdown): a slice waits until the second passes its last. */
  #appended = 0;
  #produced = 0;
  /** Slices waiting for their events, in the order of their last event. */
  #waiters: { upTo: number; resolve: () => void }[] = [];
  /** Resolved when the loop has events to send, or must stop. */
  #wake: (() => void) | null = null;
  /** Resolved when the buffer gets room, or the stream closes. */
  #room = Promise.withResolvers<void>();
  #closing = false;
  /** Aborted when the drain time is over: the loop stops and what is left is dropped. */
  readonly #stop = new AbortController();
  readonly #loop: Promise<void>;
  readonly #untrack: () => void;
  #closed: Promise<void> | undefined;

  constructor(deps: OutcomeStreamDeps) {
    this.#deps = deps;
    this.#throttle = new LogThrottle({ intervalMs: 60_000, clock: deps.clock });
    this.#untrack = deps.metrics.trackPending(() => this.size);
    this.#loop = this.#run();
  }

  /** Events buffered, the batch being produced included. */
  get size(): number {
    return this.#pending.length - this.#head;
  }

  record(_slice: DeliverySlice, events: readonly DeliveryEvent[]): Promise<void> {
    if (events.length === 0) return recorded;
    if (this.#closing) {
      this.#drop('shutdown', events.length);
      return recorded;
    }
    const deadline = performance.now() + this.#deps.settings.maxWaitMs;
    if (this.size + events.length <= this.#deps.settings.maxPendingEvents) {
      this.#append(events, 0, events.length);
      return this.#written(this.#appended, deadline);
    }
    return this.#recordWhenRoom(events, deadline);
  }

  /**
   * Stops taking events and keeps producing what is buffered for at most
   * `drainMs`; the rest is dropped and counted as `shutdown`. Call before
   * the bus closes. Idempotent.
   */
  close(drainMs: number): Promise<void> {
    if (this.#closed === undefined) {
      this.#closing = true;
      this.#wake?.();
      this.#room.resolve();
      const timer = setTimeout(() => this.#stop.abort(), drainMs);
      const stopped = new Promise<void>((resolve) => this.#stop.signal.addEventListener('abort', () => resolve(), { once: true }));
      this.#closed = Promise.race([this.#loop, stopped]).then(() => {
        clearTimeout(timer);
        this.#stop.abort();
        this.#drop('shutdown', this.size);
        this.#pending = [];
        this.#head = 0;
        this.#produced = this.#appended;
        this.#release();
        this.#untrack();
      });
    }
    return this.#closed;
  }

  /** Resolves when the events up to `upTo` are produced, or at `deadline`, whichever comes first. */
  async #written(upTo: number, deadline: number): Promise<void> {
    if (this.#produced >= upTo) return;
    const left = deadline - performance.now();
    if (left <= 0) return;
    const { promise, resolve } = Promise.withResolvers<void>();
    const waiter = { upTo, resolve };
    this.#waiters.push(waiter);
    const timer = setTimeout(resolve, left);
    await promise;
    clearTimeout(timer);
    const at = this.#waiters.indexOf(waiter);
    if (at >= 0) this.#waiters.splice(at, 1);
  }

  /** Lets go of the slices whose events are all produced. */
  #release(): void {
    while (this.#waiters.length > 0 && (this.#waiters[0] as { upTo: number }).upTo <= this.#produced) this.#waiters.shift()?.resolve();
  }

  /** A full buffer: takes what fits as room appears, until `deadline`; drops the rest. */
  async #recordWhenRoom(events: readonly DeliveryEvent[], deadline: number): Promise<void> {
    let taken = 0;
    while (taken < events.length && !this.#closing) {
      const room = this.#deps.settings.maxPendingEvents - this.size;
      if (room > 0) {
        const count = Math.min(room, events.length - taken);
        this.#append(events, taken, count);
        taken += count;
        continue;
      }
      const left = deadline - performance.now();
      if (left <= 0) break;
      const timer = Promise.withResolvers<void>();
      const timeout = setTimeout(timer.resolve, left);
      await Promise.race([this.#room.promise, timer.promise]);
      clearTimeout(timeout);
    }
    const dropped = events.length - taken;
    if (dropped > 0) this.#drop(this.#closing ? 'shutdown' : 'buffer_full', dropped);
    if (taken > 0) await this.#written(this.#appended, deadline);
  }

  #append(events: readonly DeliveryEvent[], from: number, count: number): void {
    for (let index = from; index < from + count; index += 1) this.#pending.push(events[index] as DeliveryEvent);
    this.#appended += count;
    this.#wake?.();
  }

  async #run(): Promise<void> {
    const { bus, topic, settings, metrics } = this.#deps;
    const retry = this.#deps.retry ?? { initialDelayMs: 200, maxDelayMs: 10_000 };
    while (!this.#stop.signal.aborted) {
      if (this.size === 0) {
        if (this.#closing) return;
        await this.#nextEvents();
        continue;
      }
      const count = Math.min(this.size, settings.maxBatchEvents);
      const messages: OutgoingMessage[] = new Array<OutgoingMessage>(count);
      for (let index = 0; index < count; index += 1) messages[index] = outcomeMessage(this.#pending[this.#head + index] as DeliveryEvent);
      for (let failures = 0; !this.#stop.signal.aborted; ) {
        try {
          await bus.publish(topic, messages);
          if (this.#stop.signal.aborted) return;
          metrics.produced(count);
          this.#advance(count);
          break;
        } catch (error) {
          if (this.#stop.signal.aborted) return;
          failures += 1;
          metrics.produceFailed();
          const held = this.#throttle.admit('failed');
          if (held !== undefined) this.#deps.logger.warn({ err: error, topic, events: count, pending: this.size, heldBack: held }, 'outcome stream: produce failed; trying again');
          try {
            await sleep(Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** Math.min(failures - 1, 20)), undefined, { signal: this.#stop.signal });
          } catch {
            return;
          }
        }
      }
    }
  }

  /** Resolves when events are appended, or the stream closes or stops. */
  async #nextEvents(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#wake = resolve;
    const stopped = () => resolve();
    this.#stop.signal.addEventListener('abort', stopped, { once: true });
    await promise;
    this.#stop.signal.removeEventListener('abort', stopped);
    this.#wake = null;
  }

  #advance(count: number): void {
    this.#head += count;
    this.#produced += count;
    this.#release();
    if (this.#head >= 4096 && this.#head * 2 >= this.#pending.length) {
      this.#pending = this.#pending.slice(this.#head);
      this.#head = 0;
    }
    const room = this.#room;
    this.#room = Promise.withResolvers<void>();
    room.resolve();
  }

  #drop(reason: OutcomeDropReason, count: number): void {
    if (count <= 0) return;
    this.#deps.metrics.dropped(reason, count);
    if (reason !== 'buffer_full') return;
    const held = this.#throttle.admit('full');
    if (held !== undefined) this.#deps.logger.warn({ topic: this.#deps.topic, dropped: count, maxPendingEvents: this.#deps.settings.maxPendingEvents, heldBack: held }, 'outcome stream buffer full: delivery events dropped');
  }
}
