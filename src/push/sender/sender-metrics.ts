import type { GatewayName } from '../gateways/delivery.ts';
import type { FailedOutcome } from './delivery-tally.ts';

/**
 * What senders count: `herald_push_deliveries_total{gateway,outcome}`,
 * `herald_push_failures_total{gateway,outcome,reason}`,
 * `herald_push_tasks_in_flight` and `herald_push_delivery_window{gateway}`.
 */
export interface SenderMetrics {
  /** `count` devices' final outcome: `delivered`, `invalid-token`, `failed`, or `not-sent` when they never reached a gateway. */
  delivery(gateway: GatewayName, outcome: string, count: number): void;
  /** `count` devices not delivered for `reason` (one of the documented set; the metric counts any other word as `Other`). */
  failure(gateway: GatewayName, outcome: FailedOutcome, reason: string, count: number): void;
  sliceStarted(): void;
  sliceEnded(): void;
  /** A gateway's delivery window's size now (`herald_push_delivery_window{gateway}`). */
  deliveryWindow(gateway: GatewayName, size: number): void;
}

export const noopSenderMetrics: SenderMetrics = {
  delivery: () => {},
  failure: () => {},
  sliceStarted: () => {},
  sliceEnded: () => {},
  deliveryWindow: () => {},
};
