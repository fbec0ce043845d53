import type { DeliveryEvent } from './delivery-event.ts';
import type { DeliveryEvents, DeliverySlice } from './delivery-events.ts';

/**
 * Several sinks behind the one port the sender knows: the delivery log,
 * and whatever else follows the outcomes (an outcome stream, webhooks).
 * Each slice's events go to every sink at once; the slice waits for all of
 * them, so a sink that must not hold deliveries back answers at once (see
 * `DeliveryEvents`).
 */
export class DeliveryEventSinks implements DeliveryEvents {
  readonly #sinks: readonly DeliveryEvents[];

  constructor(sinks: readonly DeliveryEvents[]) {
    this.#sinks = [...sinks];
  }

  get size(): number {
    return this.#sinks.length;
  }

  async record(slice: DeliverySlice, events: readonly DeliveryEvent[]): Promise<void> {
    const sinks = this.#sinks;
    if (sinks.length === 1) return (sinks[0] as DeliveryEvents).record(slice, events);
    await Promise.all(sinks.map((sink) => sink.record(slice, events)));
  }
}
