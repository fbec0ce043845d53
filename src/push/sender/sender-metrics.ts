import type { GatewayName } from '../gateways/delivery.ts';

/** What senders count: `herald_push_deliveries_total{gateway,outcome}` `herald_push_tasks_in_flight` and `herald_push_delivery_window{gateway}`. */
export interface SenderMetrics {
  /** `count` devices' final outcome: `delivered`, `invalid-token`, `failed`, or `not-sent` when they never reached a gateway. */
  delivery(gateway: GatewayName, outcome: string, count: number): void;
  sliceStarted(): void;
  sliceEnded(): void;
  /** A gateway's delivery window's size now (`herald_push_delivery_window{gateway}`). */
  deliveryWindow(gateway: GatewayName, size: number): void;
}

export const noopSenderMetrics: SenderMetrics = {
  delivery: () => {},
  sliceStarted: () => {},
  sliceEnded: () => {},
  deliveryWindow: () => {},
};
