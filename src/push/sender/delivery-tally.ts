import { gatewayNames, type GatewayName } from '../gateways/delivery.ts';
import type { SenderMetrics } from './sender-metrics.ts';

/** The final outcomes as `herald_push_deliveries_total` labels them. */
export const talliedOutcomes = ['delivered', 'invalid-token', 'failed', 'not-sent'] as const;

export type TalliedOutcome = (typeof talliedOutcomes)[number];

/** The outcomes of devices that were not delivered, which `herald_push_failures_total` counts by reason too. */
export type FailedOutcome = Exclude<TalliedOutcome, 'delivered'>;

/**
 * One slice's final outcomes by gateway, and the reasons of those not
 * delivered, added to the metrics when the slice ends rather than one device
 * at a time: a labelled counter increment costs more than the rest of a
 * delivery's bookkeeping. A delivered device is one increment of a field.
 */
export class DeliveryTally {
  readonly #counts = Object.fromEntries(gatewayNames.map((gateway) => [gateway, { delivered: 0, 'invalid-token': 0, failed: 0, 'not-sent': 0 }])) as Record<
    GatewayName,
    Record<TalliedOutcome, number>
  >;

  /** Counts by gateway, outcome and reason of the devices not delivered; made at a slice's first failure. */
  #reasons: Map<GatewayName, Map<FailedOutcome, Map<string, number>>> | undefined;

  add(gateway: GatewayName, outcome: TalliedOutcome): void {
    this.#counts[gateway][outcome] += 1;
  }

  /** A device not delivered, with its reason (one of the documented set). */
  fail(gateway: GatewayName, outcome: FailedOutcome, reason: string): void {
    this.#counts[gateway][outcome] += 1;
    const byGateway = (this.#reasons ??= new Map<GatewayName, Map<FailedOutcome, Map<string, number>>>());
    let byOutcome = byGateway.get(gateway);
    if (byOutcome === undefined) byGateway.set(gateway, (byOutcome = new Map<FailedOutcome, Map<string, number>>()));
    let byReason = byOutcome.get(outcome);
    if (byReason === undefined) byOutcome.set(outcome, (byReason = new Map<string, number>()));
    byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
  }

  /** Hands the counts to the metrics and starts again from zero. */
  report(metrics: Pick<SenderMetrics, 'delivery' | 'failure'>): void {
    for (const [gateway, outcomes] of Object.entries(this.#counts) as [GatewayName, Record<TalliedOutcome, number>][]) {
      for (const [outcome, count] of Object.entries(outcomes) as [TalliedOutcome, number][]) {
        if (count === 0) continue;
        metrics.delivery(gateway, outcome, count);
        outcomes[outcome] = 0;
      }
    }
    const reasons = this.#reasons;
    if (reasons === undefined) return;
    this.#reasons = undefined;
    for (const [gateway, byOutcome] of reasons) {
      for (const [outcome, byReason] of byOutcome) for (const [reason, count] of byReason) metrics.failure(gateway, outcome, reason, count);
    }
  }
}
