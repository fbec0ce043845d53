import type { GatewayName } from '../gateways/delivery.ts';

/** What senders count: `herald_push_deliveries_total{gateway,outcome}` and `herald_push_tasks_in_flight`. */
export interface SenderMetrics {
  /** A device's final outcome: `delivered`, `invalid-token`, `failed`, or `not-sent` when it never reached a gateway. */
  delivery(gateway: GatewayName, outcome: string): void;
  sliceStarted(): void;
  sliceEnded(): void;
}

export const noopSenderMetrics: SenderMetrics = {
  delivery: () => {},
  sliceStarted: () => {},
  sliceEnded: () => {},
};
