import type { LoggedOutcome } from '../core/ports/delivery-log-store.ts';
import type { DeliveryLogDeps } from '../push/delivery-log/delivery-log-deps.ts';
import { decodeEntries } from '../push/delivery-log/entries-codec.ts';
import { deliveryEventJson, type DeliveryEventJson } from '../push/outcomes/delivery-event.ts';

const failureOutcomes: readonly LoggedOutcome[] = ['failed', 'invalidToken'];
const summaryPage = 200;

/**
 * A push's failed and invalidToken deliveries as the delivery log records
 * them, each slice's once: `next` answers those of the slices recorded
 * since the last call. Only slices whose counts hold a failure are read. A
 * slice redone after it was read is not read again (its devices were
 * answered already), so each device comes once.
 */
export class PushFailureFeed {
  readonly #deps: DeliveryLogDeps;
  readonly #appId: string;
  readonly #pushId: string;
  /** Slices looked at, with or without failures. */
  readonly #seen = new Set<string>();

  constructor(deps: DeliveryLogDeps, appId: string, pushId: string) {
    this.#deps = deps;
    this.#appId = appId;
    this.#pushId = pushId;
  }

  async next(): Promise<DeliveryEventJson[]> {
    const log = this.#deps.store.deliveries;
    const found: DeliveryEventJson[] = [];
    let after: string | null = null;
    for (;;) {
      const summaries = await log.listSlices(this.#appId, this.#pushId, after, summaryPage);
      for (const summary of summaries) {
        if (this.#seen.has(summary.sliceKey)) continue;
        this.#seen.add(summary.sliceKey);
        const outcomes = failureOutcomes.filter((outcome) => summary.counts[outcome] > 0);
        if (outcomes.length === 0) continue;
        const read = await log.readSlice(this.#appId, this.#pushId, summary.sliceKey, outcomes);
        if (read === null) continue;
        const row = { appId: this.#appId, pushId: this.#pushId, sliceKey: summary.sliceKey };
        for (const outcome of outcomes) found.push(...decodeEntries(read.entries[outcome], row).map(deliveryEventJson));
      }
      if (summaries.length < summaryPage) return found;
      after = summaries.at(-1)?.sliceKey ?? null;
    }
  }
}
