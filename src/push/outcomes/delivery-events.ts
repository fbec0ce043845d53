import type { DeliveryEvent } from './delivery-event.ts';

/** The slice whose events are recorded. */
export interface DeliverySlice {
  readonly appId: string;
  readonly pushId: string;
  /** `<taskId>/<slice>`: the same when the slice is redone. */
  readonly sliceKey: string;
  /** When the slice's deliveries ended, Unix ms. */
  readonly endedAt: number;
}

/**
 * Where the sender hands the final outcomes of its deliveries: once per
 * slice, with an event for every device the slice targeted, after the last
 * delivery ended and before the slice reports its counts (so a push that
 * reads `done` has recorded every event). Not called for a slice that
 * stopped short (a rebalance, an outage): the slice is redone whole and
 * records then. A redone slice records its events again under the same
 * `sliceKey`.
 *
 * What a rejection means: the slice fails and is offered again, like a
 * failed write of its counts. A sink that must never hold deliveries back
 * (a stream, webhooks) queues the events and answers at once, and counts
 * what it drops rather than rejecting. The sink's `record` is on the
 * sender's hot path once per slice: it must not do per-event I/O.
 */
export interface DeliveryEvents {
  record(slice: DeliverySlice, events: readonly DeliveryEvent[]): Promise<void>;
}

/** Records nothing: a sender with no delivery log and no outcome stream. */
export const noDeliveryEvents: DeliveryEvents = Object.freeze({ record: () => Promise.resolve() });
