import { gatewayNames, type GatewayName } from '../gateways/delivery.ts';
import type { SenderMetrics } from './sender-metrics.ts';

/** The final outcomes as `herald_push_deliveries_total` labels them. */
export const talliedOutcomes = ['delivered', 'invalid-token', 'failed', 'not-sent'] as const;

export type TalliedOutcome = (typeof talliedOutcomes)[number];

/**
 * One slice's final outcomes by gateway, added to the deliveries counter when
 * the slice ends rather than one device at a time: a labelled counter
 * increment costs more than the rest of a delivery's bookkeeping.
 */
export class DeliveryTally {
  readonly #counts = Object.fromEntries(gatewayNames.map((gateway) => [gateway, { delivered: 0, 'invalid-token': 0, failed: 0, 'not-sent': 0 }])) as Record<
    GatewayName,
    Record<TalliedOutcome, number>
  >;

  add(gateway: GatewayName, outcome: TalliedOutcome): void {
    this.#counts[gateway][outcome] += 1;
  }

  /** Hands the counts to the metrics and starts again from zero. */
  report(metrics: Pick<SenderMetrics, 'delivery'>): void {
    for (const [gateway, outcomes] of Object.entries(this.#counts) as [GatewayName, Record<TalliedOutcome, number>][]) {
      for (const [outcome, count] of Object.entries(outcomes) as [TalliedOutcome, number][]) {
        if (count === 0) continue;
        metrics.delivery(gateway, outcome, count);
        outcomes[outcome] = 0;
      }
    }
  }
}
