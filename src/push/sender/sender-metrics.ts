import type { GatewayName } from '../gateways/delivery.ts';

/** What senders count: `herald_push_deliveries_total{gateway,outcome}` and `herald_push_tasks_in_flight`. */
export interface SenderMetrics {
  /** `count` devices' final outcome: `delivered`, `invalid-token`, `failed`, or `not-sent` when they never reached a gateway. */
  delivery(gateway: GatewayName, outcome: string, count: number): void;
  sliceStarted(): void;
  sliceEnded(): void;
}

export const noopSenderMetrics: SenderMetrics = {
  delivery: () => {},
  sliceStarted: () => {},
  sliceEnded: () => {},
};
